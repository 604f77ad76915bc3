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


SUPERSEDED = {
    "event_organizer": ("event_organizer_event_id", "event_organizer_organizer_id"),
    "event_term": ("event_term_event_id", "event_term_term_id"),
}


def test_the_link_tables_lose_the_indexes_their_key_and_reverse_index_serve(
    app: Application, api: Api
) -> None:
    """Earlier versions indexed each column of a link table on its own besides the key
    (event first) and the reverse index (the other side first): two indexes more to
    write for every link, thousands in a series write."""
    api.create_event(title="Linked", categories=["Jazz"])
    database = app.database
    left, right = database.quote[0], database.quote[1]
    with database.connection_context():
        for table, names in SUPERSEDED.items():
            for name in names:
                column = name.removeprefix(f"{table}_")
                database.execute_sql(
                    f"CREATE INDEX {left}{name}{right} ON {left}{table}{right} "
                    f"({left}{column}{right})"
                )
    schema.create_schema(database)
    with database.connection_context():
        for table, names in SUPERSEDED.items():
            kept = {index.name for index in database.get_indexes(table)}
            assert not kept & set(names), kept
    listed = api.get("/events", query_string={"categories": "jazz"}).json["events"]
    assert [event["title"] for event in listed] == ["Linked"]
