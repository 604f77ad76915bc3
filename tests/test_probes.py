"""``/-/live`` and ``/-/ready`` in process (operations.md §1): what a load balancer
and Kubernetes rely on besides the database going down (``test_ready_postgres.py``).

Both answer HEAD, refuse other methods with the API's JSON 405, are listed in no
index nor in ``/doc``, are never cached nor rate-limited and ignore ``Accept``; the
readiness probe names an outdated schema and an unreachable database.
"""

from __future__ import annotations

import typing as t
from pathlib import Path

import pytest
from conftest import NS, Api, api_for, assert_wp_error
from werkzeug.test import Client, TestResponse

from calendar_rest import create_app
from calendar_rest.app import Application
from calendar_rest.db import connect_database, login_store
from calendar_rest.models import bind_models
from calendar_rest.repository.schema import create_schema

PROBES = ("/-/live", "/-/ready")
JSON = "application/json; charset=UTF-8"


def probe(app: Application, path: str, method: str = "GET", **kwargs: t.Any) -> TestResponse:
    return Client(app).open(path, method=method, **kwargs)


@pytest.mark.parametrize("path", PROBES)
def test_a_probe_answers_head_with_the_status_of_get_and_no_body(api: Api, path: str) -> None:
    got = probe(api.app, path)
    head = probe(api.app, path, "HEAD")
    assert got.status_code == 200, got.get_data(as_text=True)
    assert got.json is not None and got.json["status"] == "ok"
    assert head.status_code == got.status_code
    assert head.get_data() == b""
    assert head.content_type == got.content_type == JSON


@pytest.mark.parametrize("path", PROBES)
@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
def test_a_probe_refuses_other_methods_with_a_json_405(api: Api, path: str, method: str) -> None:
    response = probe(api.app, path, method, json={"status": "ok"})
    assert_wp_error(response, 405, "rest_no_route")
    assert response.headers["Allow"] == "GET, HEAD"
    assert response.headers["Cache-Control"] == "no-store"


@pytest.mark.parametrize("path", PROBES)
def test_a_probe_is_json_whatever_the_client_accepts(api: Api, path: str) -> None:
    """The site's HTML and the API's media-type rules are not the probes'."""
    for accept in ("text/html", "application/xml", "image/png"):
        response = probe(api.app, path, headers={"Accept": accept})
        assert (response.status_code, response.content_type) == (200, JSON), accept


def test_no_index_nor_document_lists_a_probe(api: Api) -> None:
    for path in ("/", NS, f"{NS}/", f"{NS}/doc"):
        response = api.client.get(path)
        assert response.status_code == 200, path
        text = response.get_data(as_text=True)
        assert "/-/" not in text, path
        assert "/events" in text, path  # it does list routes
    assert api.client.get(f"{NS}/-/ready").status_code == 404  # not an API route either


def test_probes_are_never_cached(api: Api) -> None:
    first, second = (probe(api.app, "/-/ready") for _ in range(2))
    for response in (first, second):
        assert response.status_code == 200
        assert response.headers["Cache-Control"] == "no-store"
        assert "X-Calendar-Cache" not in response.headers
        assert "ETag" not in response.headers and "Last-Modified" not in response.headers
    # the API's reads beside them are cached: the header would be there if it applied
    api.get("/events")
    assert api.get("/events").headers["X-Calendar-Cache"] == "hit"


def test_probes_are_not_rate_limited_nor_counted(
    api: Api, sibling_app: t.Callable[..., Application]
) -> None:
    limited = api_for(sibling_app(rate_limit_anonymous=2, rate_limit_window=3600), api)
    for _ in range(10):  # more than the limit: none is refused, none is counted
        for path in PROBES:
            assert probe(limited.app, path).status_code == 200, path
    assert [limited.get("/events").status_code for _ in range(3)] == [200, 200, 429]
    for path in PROBES:  # refused reads leave the probes answering
        assert probe(limited.app, path).status_code == 200, path
        assert probe(limited.app, path, "HEAD").status_code == 200, path


# -- what /-/ready checks ------------------------------------------------------------------


@pytest.fixture
def fresh_app(tmp_path: Path) -> t.Iterator[Application]:
    """An app on a new SQLite file, its schema created by another database object
    first, as ``serve`` does (whose models' default binding is then not the app's)."""
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    schema_step = connect_database(url)
    bind_models(schema_step, login_store(schema_step))
    create_schema(schema_step)
    schema_step.close_all()
    app = create_app(url)
    yield app
    app.database.close_all()


def ready(app: Application) -> tuple[int, dict[str, t.Any]]:
    response = probe(app, "/-/ready")
    assert response.content_type == JSON
    return response.status_code, t.cast(dict[str, t.Any], response.json)


def test_ready_names_an_outdated_schema_until_it_is_upgraded(fresh_app: Application) -> None:
    current = {"status": "ok", "database": "ok", "schema": "ok", "replicas": []}
    assert ready(fresh_app) == (200, current)
    with fresh_app.database.connection_context():  # what an older version lacked
        fresh_app.database.execute_sql("ALTER TABLE venue DROP COLUMN phone")
    outdated = {"status": "unavailable", "database": "ok", "schema": "outdated", "replicas": []}
    assert ready(fresh_app) == (503, outdated)
    assert probe(fresh_app, "/-/ready", "HEAD").status_code == 503
    assert probe(fresh_app, "/-/live").status_code == 200
    create_schema(fresh_app.database)  # what ``init`` or ``serve`` runs on an upgrade
    assert ready(fresh_app) == (200, current)


def test_ready_names_a_missing_table(fresh_app: Application) -> None:
    with fresh_app.database.connection_context():
        fresh_app.database.execute_sql("DROP TABLE webhook_attempt")
    assert ready(fresh_app) == (
        503,
        {"status": "unavailable", "database": "ok", "schema": "outdated", "replicas": []},
    )


def test_ready_answers_503_when_the_database_cannot_be_opened(tmp_path: Path) -> None:
    """A SQLite file in a folder that is not there: the probe fails, ``live`` does
    not look at the database."""
    app = create_app(f"sqlite:///{tmp_path / 'missing' / 'calendar.db'}")
    try:
        assert ready(app) == (
            503,
            {"status": "unavailable", "database": "unreachable", "replicas": []},
        )
        live = probe(app, "/-/live")
        assert (live.status_code, live.json) == (200, {"status": "ok"})
    finally:
        app.database.close_all()
