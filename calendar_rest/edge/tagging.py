"""Which record a reply shows, and the validators (``ETag``, ``Last-Modified``) of its
200 (``sync.md`` §1.1, §1.2).

A single record's tag covers the exact body bytes and the record's revision (the
position of its latest change), so it changes on every write, even two within one
second; a list's tag is its body's digest alone. ``Last-Modified`` follows the
record's own ``modified_utc`` (events, venues, organizers; terms have none).
"""

from __future__ import annotations

import typing as t

from ..queries.lists.changes import COLLECTIONS, revision
from ..routes import RouteSpec
from ..wire.reply import Reply
from .conditional import entity_tag, last_modified

SINGLE_SHAPES = frozenset({"item", "by_slug"})
#: a record type (``queries.changes``, whose revisions tags cover) by resource name
RECORD_TYPES = {collection: record_type for record_type, collection in COLLECTIONS.items()}
#: the resources whose singles carry ``Last-Modified`` (terms have no ``modified``)
DATED = frozenset({"events", "venues", "organizers"})


class Record(t.NamedTuple):
    """The record a single-record reply shows (what its validators depend on)."""

    #: its change-log type; None for a resource without revisions
    type: str | None
    id: int | None
    last_modified: str | None
    #: its revision, read with what the body shows (None: read it when tagging)
    revision: int | None = None


def record_of(spec: RouteSpec, method: str, reply: Reply) -> Record | None:
    """The record a successful reply of a single route (or a create) is about, read off
    its body before ``_fields`` reduces it."""
    create = spec.shape == "collection" and method == "POST"
    if reply.status < 300 and reply.about is not None:  # a serialised body (iCalendar)
        return Record(RECORD_TYPES.get(spec.resource), reply.about, None)
    if reply.status >= 300 or not isinstance(reply.body, dict):
        return None
    if spec.shape not in SINGLE_SHAPES and not create:
        return None
    record_id = reply.body.get("id")
    record_id = record_id if isinstance(record_id, int) else None
    modified = last_modified(reply.body.get("modified_utc")) if spec.resource in DATED else None
    return Record(RECORD_TYPES.get(spec.resource), record_id, modified, reply.revision)


def validators(body: bytes, record: Record | None) -> list[tuple[str, str]]:
    """``ETag`` (and ``Last-Modified``) of a 200 with ``body``: a record's tag also
    covers its revision, so it changes on every write even within one second."""
    if record is None or record.type is None or record.id is None:
        return [("ETag", entity_tag(body))]
    known = record.revision
    current = known if known is not None else revision(record.type, record.id)
    headers = [("ETag", entity_tag(body, current))]
    if record.last_modified:
        headers.append(("Last-Modified", record.last_modified))
    return headers
