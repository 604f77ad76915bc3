"""Read-only rows (``queries.rows``): every field reads as on a Peewee instance, on
every backend, and a row refuses what only an instance can do."""

from __future__ import annotations

import typing as t

import peewee as pw
import pytest
from conftest import Api

from calendar_rest.app import Application
from calendar_rest.models import Attachment, Event, Organizer, Term, Venue, model_of
from calendar_rest.queries.sql.rows import as_rows, fetch_rows, row_class
from calendar_rest.wire.kept import row_of

MODELS = (Event, Venue, Organizer, Term, Attachment)


def _field_names(model: type[pw.Model]) -> list[str]:
    return [
        field.object_id_name if isinstance(field, pw.ForeignKeyField) else field.name
        for field in model._meta.sorted_fields
    ]


def _records(api: Api) -> None:
    """An event with a venue, an organizer, a category, a tag and an image: every field
    kind the hot models hold (dates, flags, coordinates, foreign keys, NULLs)."""
    venue = api.post(
        "/venues",
        "administrator",
        json={"venue": "Hall", "geo_lat": 48.856614000000014, "geo_lng": 2.3522219},
    ).json
    organizer = api.post("/organizers", "administrator", json={"organizer": "Org"}).json
    api.create_event(
        venue=venue["id"],
        organizer=[organizer["id"]],
        categories=["Music"],
        tags=["jazz"],
        image="https://images.example/a.png",
        all_day=True,
        featured=True,
    )


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
def test_a_row_reads_every_field_as_an_instance_does(
    api: Api, app: Application, model: type[pw.Model]
) -> None:
    _records(api)
    with app.database.connection_context():
        instances = list(model.select().order_by(model.id))
        rows = [row for row, _ in fetch_rows(model, ("test", model.__name__), model.select, [])]
    assert instances and len(rows) == len(instances)
    rows.sort(key=lambda row: row.id)
    for instance, row in zip(instances, rows, strict=True):
        for name in _field_names(model):
            expected, got = getattr(instance, name), getattr(row, name)
            assert got == expected and type(got) is type(expected), (model, name, got, expected)
        assert model_of(row) is model and model_of(instance) is model


def test_a_row_has_no_related_object_and_cannot_be_saved(api: Api, app: Application) -> None:
    _records(api)
    with app.database.connection_context():
        (event,), _ = zip(*fetch_rows(Event, ("test", "event"), Event.select, []), strict=True)
    assert isinstance(event.venue_id, int)
    with pytest.raises(AttributeError):
        event.venue  # noqa: B018 - an instance would query here; a row refuses
    with pytest.raises(AttributeError):
        t.cast(t.Any, event).save()


def test_a_row_is_its_own_memo_key_and_rows_of_two_models_differ_by_class() -> None:
    width = len(Term._meta.sorted_fields)
    values = tuple(range(width))
    (term,) = as_rows(Term, [values])
    assert row_of(term) == values and hash(row_of(term)) == hash(values)
    assert type(term) is row_class(Term) and row_class(Term) is not row_class(Venue)
    assert repr(term).startswith("<TermRow (")


def test_extra_trailing_columns_are_cut_off() -> None:
    width = len(Term._meta.sorted_fields)
    (term,) = as_rows(Term, [(*range(width), "extra")])
    assert len(term) == width
