"""The dispatcher: the route table is bound once, at start-up, and every method of a
request is answered by that one mechanism."""

from __future__ import annotations

import re
import typing as t
from argparse import Namespace
from pathlib import Path

import pytest
from conftest import Api, assert_wp_error
from marshmallow import Schema
from werkzeug.datastructures import MultiDict
from werkzeug.test import Client

from calendar_rest import create_app
from calendar_rest import responders as base
from calendar_rest.app import Application
from calendar_rest.resources import RESOURCE_CLASSES
from calendar_rest.responders import Arguments
from calendar_rest.routes import ROUTES, route_table
from calendar_rest.schemas import validate
from calendar_rest.schemas.events import EventArchiveArgs


def test_every_route_and_method_of_the_table_has_a_bound_responder(app: Application) -> None:
    targets = app.dispatcher.targets
    for route in route_table(RESOURCE_CLASSES):
        for method in route.spec.methods:
            target = targets[(route.key, method)]
            assert target.route.spec == route.spec
            assert callable(target.responder)
    assert len({route.key for route in app.dispatcher.routes}) == len(ROUTES)


def test_head_is_answered_by_the_get_responder_without_a_body(api: Api) -> None:
    event = api.create_event(title="Heads up")
    for path in ("/events", f"/events/{event['id']}", "/", "/doc"):
        get, head = api.get(path), api.request("HEAD", path)
        assert (head.status_code, get.status_code) == (200, 200), path
        assert head.get_data() == b""
        for name in ("Content-Type", "Content-Length", "X-WP-Total", "Link", "Allow"):
            assert head.headers.get(name) == get.headers.get(name), (path, name)


def test_head_of_a_missing_record_is_the_get_error_without_a_body(api: Api) -> None:
    head = api.request("HEAD", "/events/424242")
    assert head.status_code == 404 and head.get_data() == b""


@pytest.mark.parametrize(("method", "path"), [("PUT", "/events"), ("DELETE", "/doc")])
def test_a_method_the_route_does_not_serve_is_no_route(api: Api, method: str, path: str) -> None:
    assert_wp_error(api.request(method, path, "administrator"), 404, "rest_no_route")


@pytest.mark.parametrize(
    ("caller", "allow", "reads"),
    [(None, "GET", 0), ("editor", "GET, POST, PUT, PATCH, DELETE", 1)],
    ids=["anonymous", "editor"],
)
def test_invalid_parameters_are_refused_before_the_responder_runs(
    api: Api, sql_statements: list[str], caller: str | None, allow: str, reads: int
) -> None:
    """A responder that does not collect errors never starts: the event is read once,
    by its key, for the ``Allow`` header every answer carries (open-web.md §4), and not
    at all for an anonymous caller, who may only ever ``GET`` a record."""
    event = api.create_event(title="Addressed")
    api.get("/")  # the first request after writes also reads the next publication date
    sql_statements.clear()
    response = api.get(f"/events/{event['id']}", caller, query_string={"context": "nonsense"})
    assert_wp_error(response, 400, "rest_invalid_param")
    assert response.headers["Allow"] == allow
    event_reads = [sql for sql in sql_statements if re.search(r'FROM [`"]event[`"]', sql)]
    assert len(event_reads) == reads, sql_statements


@pytest.mark.backends("sqlite")
def test_a_database_without_its_schema_answers_a_json_error_not_a_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The generation read and the publisher run before routing: their failure is still
    the pipeline's JSON 500, logged once."""
    app = create_app(f"sqlite:///{tmp_path / 'empty.db'}")
    for method in ("GET", "POST"):
        response = Client(app).open("/calendar/events/v1/events", method=method)
        assert_wp_error(response, 500, "rest_internal_error")
    assert "could not read the database" in caplog.text


def test_a_read_without_parameters_reuses_its_defaults_but_never_shares_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What an argument set makes of no parameters is validated once per schema; each
    request still gets its own dictionary to change."""
    validated: list[t.Mapping[str, object]] = []

    def counted(schema: Schema, params: t.Mapping[str, object]) -> dict[str, object]:
        validated.append(params)
        return validate(schema, params)

    monkeypatch.setattr(base, "validate", counted)
    schema = EventArchiveArgs()
    for _ in range(3):
        arguments = Arguments.load(schema, {})
        assert arguments.valid["page"] == 1 and not arguments.errors
        arguments.valid["page"] = 7  # a responder may change its own copy
    assert validated == [{}]
    assert Arguments.load(schema, {"page": "x"}).errors  # parameters are still validated
    assert len(validated) == 2


def test_a_paths_route_is_matched_once_and_each_request_gets_its_own_values(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    event = api.create_event(title="Matched")
    dispatcher = api.app.dispatcher
    dispatcher.matched.cache_clear()
    walks: list[str] = []
    original = dispatcher.adapter.match

    def counted(path: str, *args: t.Any, **kwargs: t.Any) -> t.Any:
        walks.append(path)
        return original(path, *args, **kwargs)

    monkeypatch.setattr(dispatcher.adapter, "match", counted)
    for _ in range(3):
        assert api.get(f"/events/{event['id']}", "administrator").status_code == 200
    assert len(walks) == 1
    long_slug = "x" * 300  # longer paths are matched every time, never kept
    for _ in range(2):
        assert api.get(f"/events/by-slug/{long_slug}").status_code == 400
    assert len(walks) == 3
    path = f"/calendar/events/v1/events/{event['id']}"
    request = t.cast(t.Any, type("R", (), {"path": path, "environ": {}}))
    _, first = dispatcher.match(request)
    first["id"] = -1  # a caller changing its values changes nobody else's
    assert dispatcher.match(request)[1]["id"] == event["id"]


def test_a_reads_query_string_is_validated_once_and_each_request_gets_its_own_copy(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    api.create_event(title="Tagged", tags=["jazz"], categories=["Music"])
    validations: list[object] = []
    original = base.validate

    def counted(schema: Schema, params: t.Any) -> t.Any:
        validations.append(params)
        return original(schema, params)

    monkeypatch.setattr(base, "validate", counted)
    query = "/events?tags=jazz&categories=music&per_page=5"
    for _ in range(3):
        listed = api.get(query)
        assert listed.status_code == 200 and listed.json["total"] == 1
    assert len(validations) == 1
    for _ in range(2):  # a refusal is answered every time, and never kept
        assert_wp_error(api.get("/events?per_page=nope"), 400, "rest_invalid_param")
    assert len(validations) == 3
    dispatcher = api.app.dispatcher
    target = dispatcher.targets[("events.collection", "GET")]
    pairs = [("tags", "jazz"), ("categories", "music"), ("per_page", "5")]
    request = t.cast(t.Any, Namespace(method="GET", args=MultiDict(pairs)))
    request.environ = {"QUERY_STRING": "tags=jazz&categories=music&per_page=5"}
    params, arguments = dispatcher.calls.parameters(request, target)
    arguments.valid["tags"].append("changed")
    params["tags"] = "changed"
    again_params, again = dispatcher.calls.parameters(request, target)
    assert again.valid["tags"] == ["jazz"] and again_params["tags"] != "changed"
