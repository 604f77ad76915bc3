"""What keeps processes and clients in step: the shared counters (the write
generation) and the change log the sync feed and the webhooks read."""

from __future__ import annotations

import peewee as pw

from .base import BaseModel


class SiteState(BaseModel):
    """Counters shared by every process on the database.

    ``generation`` is bumped inside every write transaction, so any process can tell
    in one indexed read whether what it cached is still current;
    ``max_event_seconds`` bounds event durations, which turns "ends after X" into an
    index range on the start date.
    """

    key = pw.CharField(max_length=32, primary_key=True)
    value = pw.BigIntegerField(default=0)


class ChangeEntry(BaseModel):
    """One change of one record, appended by the write that made it (``sync.md`` §3.9).

    ``position`` is the write generation the write took (``SiteState``), so entries
    commit in position order on every backend; ``id`` orders the entries of one write.
    The visibility attributes before and after the change (``None`` status: the
    record did not exist) let the change feed judge each entry for each caller.
    """

    id: pw.AutoField[int]
    position = pw.BigIntegerField()
    record_type = pw.CharField(max_length=10)
    record_id = pw.IntegerField()
    #: ``created``, ``updated`` or ``deleted``
    kind = pw.CharField(max_length=8)
    changed_utc = pw.DateTimeField()
    before_status = pw.CharField(max_length=20, null=True)
    before_author = pw.IntegerField(null=True)
    after_status = pw.CharField(max_length=20, null=True)
    after_author = pw.IntegerField(null=True)

    class Meta:
        indexes = (
            (("position", "id"), False),
            (("record_type", "record_id", "position"), False),
        )
