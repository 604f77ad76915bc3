"""``create_schema`` on a database made by an earlier version: events stored before
iCalendar UIDs existed get one each, in batches (``repository.schema``)."""

from __future__ import annotations

import uuid

import pytest
from conftest import Api

from calendar_rest.app import Application
from calendar_rest.models import Event
from calendar_rest.repository import schema


def test_events_without_a_uid_get_distinct_ones_and_the_others_keep_theirs(
    app: Application, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = [int(api.create_event(title=f"Before UIDs {n}")["id"]) for n in range(5)]
    database = app.database
    with database.connection_context():
        kept = Event.get_by_id(ids[0]).uid
        Event.update(uid="").where(Event.id.in_(ids[1:])).execute()
    monkeypatch.setattr(schema, "UID_BATCH", 2)  # two batches and a part
    schema.create_schema(database)
    with database.connection_context():
        uids = {event.id: event.uid for event in Event.select().where(Event.id.in_(ids))}
    assert uids[ids[0]] == kept
    assert len(set(uids.values())) == 5
    for value in uids.values():
        assert str(uuid.UUID(value)) == value
