"""Request IDs, access lines and metrics of every request (``operations.md`` §2, §3),
in process: what the operator's log and Prometheus get, and what they never get.

The metrics are read back with ``prometheus_client``'s own text parser; the same text
passes Prometheus's (``promtool``) in ``test_operations_serve.py``.
"""

from __future__ import annotations

import base64
import io
import json
import logging
import typing as t

import pytest
from conftest import Api, assert_wp_error
from prometheus_client.parser import text_string_to_metric_families
from werkzeug.test import Client

from calendar_rest.app import Application
from calendar_rest.telemetry import logs, request_ids

LOOPBACK = {"REMOTE_ADDR": "127.0.0.1"}
SECRET_TOKEN = "metrics-token-3f1c"


class Captured:
    """Every log line the app writes while a test runs, formatted as in production."""

    def __init__(self, log_format: str) -> None:
        self.stream = io.StringIO()
        self.handler: logging.Handler = logging.NullHandler()

    @property
    def text(self) -> str:
        self.handler.flush()  # the lines still waiting for their batch
        return self.stream.getvalue()

    def json_lines(self) -> list[dict[str, t.Any]]:
        return [json.loads(line) for line in self.text.splitlines() if line]

    def access(self) -> list[dict[str, t.Any]]:
        return [line for line in self.json_lines() if "route" in line]


@pytest.fixture(params=["json"])
def captured(request: pytest.FixtureRequest) -> t.Iterator[Captured]:
    """Logging as ``serve --log-format`` configures it, at DEBUG: everything."""
    capture = Captured(request.param)
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    capture.handler = logs.configure(request.param, capture.stream, logging.DEBUG)
    try:
        yield capture
    finally:
        logs.unconfigure()
        root.setLevel(level)
        logging.getLogger("peewee").setLevel(logging.NOTSET)
        assert root.handlers == handlers


def metric_samples(app: Application, **environ: str) -> dict[tuple[str, tuple[t.Any, ...]], float]:
    """``/-/metrics`` as ``{(sample name, sorted labels): value}``."""
    response = Client(app).get("/-/metrics", environ_base={**LOOPBACK, **environ})
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.content_type.startswith("text/plain")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.get_data(as_text=True))
        for sample in family.samples
    }


def requests_of(samples: dict[tuple[str, tuple[t.Any, ...]], float], route: str) -> float:
    return sum(
        value
        for (name, labels), value in samples.items()
        if name == "calendar_rest_http_requests_total" and ("route", route) in labels
    )


# -- request IDs -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "given",
    ["abc-123", "A.b_C-9", "x" * 64, "7f3e2c1a-0b9d-4c2e-8f1a-2b3c4d5e6f70"],
)
def test_a_safe_request_id_is_kept_and_returned(api: Api, given: str) -> None:
    response = api.get("/events", headers={"X-Request-ID": given})
    assert response.headers["X-Request-ID"] == given


@pytest.mark.parametrize(
    "given", ["", "x" * 65, "has space", "semi;colon", "slash/", "é", "a\tb", "{json}"]
)
def test_an_unsafe_request_id_is_replaced_by_a_new_one(api: Api, given: str) -> None:
    response = api.get("/events", headers={"X-Request-ID": given})
    made = response.headers["X-Request-ID"]
    assert made != given and request_ids.SAFE.fullmatch(made)


def test_every_answer_carries_its_own_request_id(app: Application, api: Api) -> None:
    """A miss, a hit, a 304, a 404, an error before routing, a write, the probes."""
    first = api.get("/events")
    hit = api.get("/events")
    assert hit.headers["X-Calendar-Cache"] == "hit"
    not_modified = api.get("/events", headers={"If-None-Match": first.headers["ETag"]})
    assert not_modified.status_code == 304
    missing = api.get("/events/999999")
    write = api.post(
        "/events",
        "administrator",
        json={"title": "t", "start_date": "2030-01-01 10:00:00", "end_date": "2030-01-01 11:00:00"},
    )
    refused = api.post("/events", json={"title": "anonymous"})
    client = Client(app)
    live = client.get("/-/live")
    ready = client.head("/-/ready")
    scrape = client.get("/-/metrics", environ_base=LOOPBACK)
    denied = client.get("/-/metrics", environ_base={"REMOTE_ADDR": "203.0.113.9"})
    answers = [first, hit, not_modified, missing, write, refused, live, ready, scrape, denied]
    assert [a.status_code for a in answers] == [200, 200, 304, 404, 201, 401, 200, 200, 200, 404]
    ids = [answer.headers.get("X-Request-ID") for answer in answers]
    assert all(ids) and len(set(ids)) == len(ids), ids


def test_a_rate_limited_answer_carries_its_request_id(sibling_app: t.Any) -> None:
    limited = sibling_app(rate_limit_anonymous=1)
    client = Client(limited)
    client.get("/calendar/events/v1/events")
    refused = client.get("/calendar/events/v1/events", headers={"X-Request-ID": "retry-1"})
    assert refused.status_code == 429
    assert refused.headers["X-Request-ID"] == "retry-1"


# -- access lines ----------------------------------------------------------------------


def test_one_access_line_per_request_with_every_field(api: Api, captured: Captured) -> None:
    event = api.create_event()
    api.get(f"/events/{event['id']}", headers={"X-Request-ID": "read-1"})
    api.get(f"/events/{event['id']}", headers={"X-Request-ID": "read-2"})
    api.get("/events/999999?search=x", headers={"X-Request-ID": "missing-1"})
    lines = {line["request_id"]: line for line in captured.access()}
    miss, hit, missing = lines["read-1"], lines["read-2"], lines["missing-1"]
    assert list(miss) == [
        "time", "request_id", "method", "route", "path", "status", "bytes",
        "duration_ms", "user", "client", "replica", "cache",
    ]  # fmt: skip
    assert (
        miss["route"] == hit["route"] == missing["route"] == ("/calendar/events/v1/events/<int:id>")
    )  # the template, not the raw path
    assert miss["path"] == f"/calendar/events/v1/events/{event['id']}"
    assert missing["path"] == "/calendar/events/v1/events/999999"  # no query string
    assert (miss["cache"], hit["cache"]) == ("miss", "hit")
    assert (miss["status"], missing["status"]) == (200, 404)
    assert miss["bytes"] > 0 and hit["bytes"] == miss["bytes"]
    assert miss["method"] == "GET" and miss["user"] is None and miss["replica"] is None
    assert isinstance(miss["duration_ms"], float) and miss["duration_ms"] >= 0
    assert miss["time"].endswith("Z") and miss["time"][10] == "T"
    created = [line for line in captured.access() if line["method"] == "POST"]
    assert "cache" not in created[0]  # a write does not look the cache up
    assert created[0]["status"] == 201 and created[0]["user"] == api.users["administrator"].id
    assert created[0]["route"] == "/calendar/events/v1/events"


def test_an_unmatched_path_is_logged_under_one_route(api: Api, captured: Captured) -> None:
    for path in ("/nothing/here", "/nor/there"):
        api.client.get(path)
    assert {line["route"] for line in captured.access()} == {"unmatched"}


def test_the_client_is_the_address_behind_the_trusted_proxies(
    sibling_app: t.Any, captured: Captured
) -> None:
    proxied = Client(sibling_app(trusted_proxies=("10.0.0.0/8",)))
    forwarded = {"X-Forwarded-For": "198.51.100.7"}
    proxied.get("/calendar/events/v1/events", environ_base={"REMOTE_ADDR": "10.1.2.3"},
                headers=forwarded)  # fmt: skip
    proxied.get("/calendar/events/v1/events", environ_base={"REMOTE_ADDR": "192.0.2.5"},
                headers=forwarded)  # fmt: skip
    assert [line["client"] for line in captured.access()] == ["198.51.100.7", "192.0.2.5"]


def test_probes_are_logged_at_debug_only(app: Application, captured: Captured) -> None:
    client = Client(app)
    logging.getLogger(logs.ACCESS_LOGGER).setLevel(logging.INFO)
    try:
        client.get("/-/live")
        client.get("/-/ready")
        assert captured.access() == []
    finally:
        logging.getLogger(logs.ACCESS_LOGGER).setLevel(logging.NOTSET)
    client.get("/-/live")
    assert [line["route"] for line in captured.access()] == ["unmatched"]
    assert [line["path"] for line in captured.access()] == ["/-/live"]


def test_the_access_log_can_be_turned_off(sibling_app: t.Any, captured: Captured) -> None:
    Client(sibling_app(access_log=False)).get("/calendar/events/v1/events")
    assert captured.access() == []


# -- a failure's log lines -------------------------------------------------------------


@pytest.fixture
def failing(sibling_app: t.Any, monkeypatch: pytest.MonkeyPatch) -> Application:
    """An app whose events list fails with an unexpected error (a bug)."""
    from calendar_rest.resources.events import Events

    def broken(*args: t.Any, **kwargs: t.Any) -> t.Any:
        logging.getLogger("calendar_rest.resources").warning("about to fail")
        raise RuntimeError("boom")

    monkeypatch.setattr(Events, "on_get_collection", broken)
    return t.cast(Application, sibling_app())


@pytest.mark.parametrize("captured", ["json", "text"], indirect=True)
def test_every_log_line_of_a_500_carries_its_request_id(
    failing: Application, captured: Captured
) -> None:
    response = Client(failing).get(
        "/calendar/events/v1/events", headers={"X-Request-ID": "failed-42"}
    )
    assert_wp_error(response, 500, "rest_internal_error")
    assert response.headers["X-Request-ID"] == "failed-42"
    lines = captured.text.splitlines()
    assert any("Traceback" in line or "traceback" in line for line in lines), captured.text
    assert any("RuntimeError: boom" in line for line in lines)
    assert any("about to fail" in line for line in lines)
    assert len(lines) >= 3
    for line in lines:
        assert "failed-42" in line, line
    if isinstance(captured.handler.formatter, logs.JsonFormatter):
        documents = captured.json_lines()  # the traceback inside its record's line
        assert {document["request_id"] for document in documents} == {"failed-42"}
        assert [d["status"] for d in documents if "route" in d] == [500]


def test_a_log_line_outside_any_request_has_no_request_id(captured: Captured) -> None:
    logging.getLogger("calendar_rest").warning("between requests")
    assert captured.json_lines()[-1]["request_id"] is None
    assert request_ids.current.get() is None


# -- what is never logged --------------------------------------------------------------


def test_no_log_line_carries_a_password_a_token_or_a_body(
    sibling_app: t.Any, api: Api, captured: Captured
) -> None:
    """Every kind of secret a run uses, at DEBUG: application passwords (good and
    bad), an event's password in the query and in a body, a bearer token, a body."""
    app = sibling_app(metrics_token=SECRET_TOKEN, login_max_failures_per_user=2)
    client = Client(app)
    secrets = {
        "application password": api.passwords["administrator"],
        "event password": "hunter2-event-secret",
        "wrong password": "not-the-password-9c1d",
        "metrics token": SECRET_TOKEN,
        "body text": "body-marker-5e7a9",
    }
    authorization = api.headers("administrator")["Authorization"]
    created = client.post(
        "/calendar/events/v1/events",
        headers={"Authorization": authorization},
        json={
            "title": "Protected",
            "start_date": "2030-02-01 10:00:00",
            "end_date": "2030-02-01 11:00:00",
            "description": secrets["body text"],
            "post_password": secrets["event password"],
        },
    )
    assert created.status_code == 201, created.get_data(as_text=True)
    event = created.json["id"]
    client.get(f"/calendar/events/v1/events/{event}?password={secrets['event password']}")
    client.get(f"/events/{event}/?password={secrets['event password']}")
    wrong = base64.b64encode(f"administrator:{secrets['wrong password']}".encode()).decode()
    for _ in range(3):  # failures, then the lock
        client.get("/calendar/events/v1/events", headers={"Authorization": f"Basic {wrong}"})
    client.get("/-/metrics", headers={"Authorization": f"Bearer {SECRET_TOKEN}"})
    client.get("/-/metrics", headers={"Authorization": "Bearer wrong-token-77"})
    assert len(captured.access()) >= 7
    for name, secret in secrets.items():
        assert secret not in captured.text, f"the {name} was logged"
    assert "wrong-token-77" not in captured.text
    assert base64.b64encode(b"administrator:").decode()[:12] not in captured.text


# -- metrics -----------------------------------------------------------------------------


def test_requests_are_counted_by_route_template_method_and_status_class(api: Api) -> None:
    before = metric_samples(api.app)
    event = api.create_event()
    for _ in range(3):
        api.get(f"/events/{event['id']}")
    api.get("/events/999998")
    api.get("/events/999999")
    after = metric_samples(api.app)
    route = "/calendar/events/v1/events/<int:id>"

    def delta(status: str) -> float:
        key = (
            "calendar_rest_http_requests_total",
            (("method", "GET"), ("route", route), ("status", status)),
        )
        return after.get(key, 0) - before.get(key, 0)

    assert (delta("2xx"), delta("4xx")) == (3, 2)
    raw = f"/events/{event['id']}"
    assert not any(raw in value for _, labels in after for _, value in labels)
    hits = ("calendar_rest_response_cache_requests_total", (("outcome", "hit"),))
    assert after[hits] - before.get(hits, 0) == 2
    count = ("calendar_rest_http_request_duration_seconds_count", (("route", route),))
    assert after[count] - before.get(count, 0) == 5
    statements = ("calendar_rest_db_statements_per_request_count", ())
    assert after[statements] - before[statements] >= 6
    database_time = ("calendar_rest_db_seconds_per_request_sum", ())
    assert after[database_time] > before[database_time]


def test_a_request_counts_its_own_statements(api: Api, sql_statements: list[str]) -> None:
    """The statement histogram's sum grows by what the request ran, no more."""
    before = metric_samples(api.app)
    sql_statements.clear()
    api.get("/venues")
    ran = len(sql_statements)
    after = metric_samples(api.app)
    key = ("calendar_rest_db_statements_per_request_sum", ())
    assert ran > 0 and after[key] - before[key] == ran


def test_refusals_and_locks_are_counted(sibling_app: t.Any, api: Api) -> None:
    limited = Client(sibling_app(rate_limit_anonymous=1))
    locking = Client(sibling_app(login_max_failures_per_user=1))
    before = metric_samples(api.app)
    limited.get("/calendar/events/v1/events")
    assert limited.get("/calendar/events/v1/events").status_code == 429
    wrong = base64.b64encode(b"editor:wrong-password").decode()
    locking.get("/calendar/events/v1/events", headers={"Authorization": f"Basic {wrong}"})
    after = metric_samples(api.app)
    limited = ("calendar_rest_rate_limited_total", (("limit", "anon"),))
    locks = ("calendar_rest_login_throttle_locks_total", (("scope", "login"),))
    assert after[limited] - before.get(limited, 0) == 1
    assert after[locks] - before.get(locks, 0) == 1


def test_probes_are_not_counted(app: Application) -> None:
    before = metric_samples(app)
    Client(app).get("/-/live")
    after = metric_samples(app)
    assert not any(("route", "unmatched") in labels for _, labels in set(after) - set(before))


# -- who may read the metrics ----------------------------------------------------------


@pytest.mark.parametrize(
    ("environ", "headers", "status"),
    [
        ({"REMOTE_ADDR": "127.0.0.1"}, {}, 200),
        ({"REMOTE_ADDR": "127.8.9.1"}, {}, 200),
        ({"REMOTE_ADDR": "::1"}, {}, 200),
        ({"REMOTE_ADDR": "::ffff:127.0.0.1"}, {}, 200),
        ({"REMOTE_ADDR": "203.0.113.9"}, {}, 404),
        ({"REMOTE_ADDR": "10.0.0.1"}, {}, 404),
        ({"REMOTE_ADDR": ""}, {}, 404),
        # a local proxy that is not trusted passes on a remote client's request
        ({"REMOTE_ADDR": "127.0.0.1"}, {"X-Forwarded-For": "203.0.113.9"}, 404),
        ({"REMOTE_ADDR": "127.0.0.1"}, {"Forwarded": "for=203.0.113.9"}, 404),
        ({"REMOTE_ADDR": "203.0.113.9"}, {"Authorization": f"Bearer {SECRET_TOKEN}"}, 200),
        ({"REMOTE_ADDR": "203.0.113.9"}, {"Authorization": f"bearer {SECRET_TOKEN}"}, 200),
        ({"REMOTE_ADDR": "203.0.113.9"}, {"Authorization": "Bearer wrong"}, 404),
        ({"REMOTE_ADDR": "203.0.113.9"}, {"Authorization": f"Basic {SECRET_TOKEN}"}, 404),
        # with a token set, a wrong one is refused even from an allowed address
        ({"REMOTE_ADDR": "127.0.0.1"}, {"Authorization": "Bearer wrong"}, 404),
    ],
)
def test_the_metrics_are_served_to_allowed_addresses_and_the_token_only(
    sibling_app: t.Any, environ: dict[str, str], headers: dict[str, str], status: int
) -> None:
    app = sibling_app(metrics_token=SECRET_TOKEN)
    response = Client(app).get("/-/metrics", environ_base=environ, headers=headers)
    assert response.status_code == status
    if status == 404:
        assert_wp_error(response, 404, "rest_no_route")
        assert b"calendar_rest_" not in response.data


def test_a_trusted_proxy_passes_on_its_clients_address(sibling_app: t.Any) -> None:
    app = sibling_app(trusted_proxies=("10.0.0.0/8",), metrics_allow=("192.0.2.0/24",))
    client = Client(app)
    proxy = {"REMOTE_ADDR": "10.0.0.2"}
    allowed = client.get("/-/metrics", environ_base=proxy, headers={"X-Forwarded-For": "192.0.2.8"})
    refused = client.get("/-/metrics", environ_base=proxy, headers={"X-Forwarded-For": "127.0.0.1"})
    assert (allowed.status_code, refused.status_code) == (200, 404)


def test_metrics_off_records_nothing_and_serves_nothing(sibling_app: t.Any) -> None:
    app = sibling_app(metrics=False)
    assert app.metrics is None and app.observer.metrics is None
    assert Client(app).get("/-/metrics", environ_base=LOOPBACK).status_code == 404


def test_a_bad_allow_list_fails_at_start() -> None:
    from calendar_rest.settings import Settings

    with pytest.raises(ValueError, match="metrics_allow"):
        Settings.build("sqlite:///:memory:", metrics_allow=("not-an-address",))
    built = Settings.build(
        "sqlite:///:memory:", environ={"CALENDAR_REST_METRICS_ALLOW": "10.0.0.0/8, ::1"}
    )
    assert built.metrics_allow == ("10.0.0.0/8", "::1")
