"""What every record shares: the base model, the vocabulary of statuses and roles, and
the bounds of an ID.

Models are declared without a database (``binding.bind_models`` attaches them), and
each thread binds them to the database of the app it serves.
"""

from __future__ import annotations

import typing as t

import peewee as pw
from playhouse.shortcuts import ThreadSafeDatabaseMetadata

POST_STATUSES = ("publish", "future", "draft", "pending", "private", "trash")
PUBLISHED_STATUSES = ("publish", "future")
ROLES = ("administrator", "editor", "author", "contributor", "subscriber")
#: largest ID a 32-bit INTEGER primary key holds (the same on every backend)
MAX_ID = 2**31 - 1


def could_exist(record_id: int) -> bool:
    """Whether ``record_id`` fits a primary key: larger path or body IDs name no record,
    and passing them to a driver could overflow it."""
    return 0 < record_id <= MAX_ID


def model_of(record: t.Any) -> type[pw.Model]:
    """The model ``record`` belongs to: its class, or for a read-only row
    (``queries.rows``) the model it is a row of."""
    cls = type(record)
    found = _MODELS.get(cls)
    if found is None:
        found = _MODELS[cls] = getattr(cls, "row_model", None) or cls
    return found


#: ``model_of`` by class: a handful of models and their row classes
_MODELS: dict[type[t.Any], type[pw.Model]] = {}


class BaseModel(pw.Model):
    # Peewee adds attributes at run time that the type checker cannot see: the implicit
    # ``id`` primary key and, for each foreign key ``x``, the raw-id accessor ``x_id``.
    # Models declare them as bare annotations, which Peewee ignores (no value, no field):
    # read on the class they are the field, read on a record the stored value.

    class Meta:
        legacy_table_names = False
        #: each thread binds the models to the database of the app it is serving, so
        #: several apps (different databases) can live in one process
        model_metadata_class = ThreadSafeDatabaseMetadata
