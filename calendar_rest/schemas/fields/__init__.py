"""marshmallow fields that read parameters the way WordPress validates them.

Each field checks shape only (types, formats, enumerations); whether an ID exists is
the web layer's business, because it needs the database. The schemas use them as
``from . import fields as f`` (``f.String``, ``f.IdList``), and every name below is
importable from here.

- ``base`` — ``WPField`` (WordPress-style errors, JSON Schema, help text) and the
  fields that take any value (``Raw``, ``Truthy``, ``RawList``)
- ``numeric`` — ``Boolean``, ``Integer``, ``Number`` and ``to_int``
- ``text`` — ``String``, ``Choice``, ``Language``, ``Status``, ``Timezone``, ``Url``
  and ``is_url``
- ``dates`` — ``LooseDate``, ``ModifiedDate`` and a series' ``Recurrence`` lines
- ``lists`` — ``IdList``, ``TermList``, ``StringList`` and ``split_list``
"""

from __future__ import annotations

from .base import MAX_INT, JsonSchema, Raw, RawList, Truthy, WPField
from .dates import YEARS, LooseDate, ModifiedDate, Recurrence
from .lists import IdList, StringList, TermList, split_list
from .numeric import Boolean, Integer, Number, to_int
from .text import (
    LANGUAGES,
    MAX_URL,
    WRITABLE_STATUSES,
    Choice,
    Language,
    OptionalText,
    Status,
    String,
    Timezone,
    Url,
    is_url,
)

__all__ = [
    "LANGUAGES",
    "MAX_INT",
    "MAX_URL",
    "WRITABLE_STATUSES",
    "YEARS",
    "Boolean",
    "Choice",
    "IdList",
    "Integer",
    "JsonSchema",
    "Language",
    "LooseDate",
    "ModifiedDate",
    "Number",
    "OptionalText",
    "Raw",
    "RawList",
    "Recurrence",
    "Status",
    "String",
    "StringList",
    "TermList",
    "Timezone",
    "Truthy",
    "Url",
    "WPField",
    "is_url",
    "split_list",
    "to_int",
]
