"""The webhook worker's own ``/-/metrics`` and ``/-/live`` (``webhooks run
--metrics-port``) and its log lines (``--log-format``), ``operations.md`` §2, §3.

The slow test runs the real worker as a subprocess against a local endpoint that
answers each subscription its own way (200, 503 with a ``Retry-After`` of an hour, 500
on a message's last attempt, 410), holding every answer until the first scrape. The
text is checked by Prometheus's own ``promtool check metrics`` (Debian's
``prometheus`` package: skipped without it, failed under
``CALENDAR_REST_REQUIRE_CLIENTS=1``) and read with ``prometheus_client``'s parser.
"""

from __future__ import annotations

import datetime as dt
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import typing as t
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from client_servers import missing
from conftest import Api, api_for
from prometheus_client.parser import text_string_to_metric_families
from serve_process import free_port
from webhook_helpers import attempts, subscribe
from werkzeug.test import Client

from calendar_rest.app import Application
from calendar_rest.delivery.probes import WorkerProbes
from calendar_rest.delivery.worker import OUTCOMES, outcome_label
from calendar_rest.models import WebhookMessage
from calendar_rest.repository.webhooks import Outcome
from calendar_rest.telemetry.metrics import WorkerMetrics
from calendar_rest.telemetry.scrape_guard import ScrapeGuard

TOKEN = "scrape-token-7"
#: a second loopback address, outside the worker's ``metrics_allow`` in the slow test
OUTSIDER = "127.0.0.2"
DEADLINE = 20.0
Build = t.Callable[..., Application]
#: path of the endpoint -> (status, headers) it answers
ANSWERS = {
    "/ok": (200, {}),
    "/busy": (503, {"Retry-After": "3600"}),
    "/broken": (500, {}),
    "/gone": (410, {}),
}
HOLD_SECONDS = 0.6


class Endpoint:
    """Answers each path as :data:`ANSWERS` says, every answer held until ``gate``."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.arrived = threading.Event()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                endpoint.arrived.set()
                endpoint.gate.wait(DEADLINE)
                status, headers = ANSWERS.get(self.path, (404, {}))
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: t.Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def close(self) -> None:
        self.gate.set()
        self.server.shutdown()
        self.server.server_close()


def fetch(
    port: int, path: str, source: str = "127.0.0.1", headers: dict[str, str] | None = None
) -> tuple[int, str]:
    """GET ``path`` on the worker's port from the loopback address ``source``."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=10, source_address=(source, 0)
    )
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a scrape, by name and labels."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def deliveries(values: dict[tuple[str, tuple[tuple[str, str], ...]], float]) -> dict[str, float]:
    return {
        dict(labels)["outcome"]: value
        for (name, labels), value in values.items()
        if name == "calendar_rest_webhook_deliveries_total"
    }


def promtool() -> str:
    """Prometheus's ``promtool`` (skipped, or failed under ``REQUIRE_CLIENTS``, without)."""
    found = shutil.which("promtool")
    if found is None:
        missing("promtool (Prometheus)", "apt-get install prometheus")
    return found


def promtool_check(binary: str, text: str) -> None:
    """Prometheus's own linter accepts the text."""
    checked = subprocess.run(
        [binary, "check", "metrics"],
        input=text,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.strip() == "" and checked.stderr.strip() == "", checked.stdout


def assert_refused(status: int, body: str) -> None:
    assert status == 404
    assert json.loads(body)["code"] == "rest_no_route"


@pytest.mark.slow
def test_the_worker_counts_times_and_logs_its_deliveries(
    api: Api, app: Application, sibling_app: Build
) -> None:
    checker = promtool()
    hooks = api_for(sibling_app(webhook_allow_private=True), api)
    endpoint = Endpoint()
    ok = subscribe(hooks, endpoint.url("/ok"), ["tag.created"])
    subscribe(hooks, endpoint.url("/busy"), ["venue.created"])
    broken = subscribe(hooks, endpoint.url("/broken"), ["tag.updated"])
    subscribe(hooks, endpoint.url("/gone"), ["tag.deleted"])
    tags = [hooks.post("/tags", "editor", json={"name": f"T{n}"}).json for n in range(3)]
    hooks.post("/venues", "editor", json={"venue": "Hall"})
    hooks.patch(f"/tags/{tags[0]['id']}", "editor", json={"description": "Renamed"})
    hooks.delete(f"/tags/{tags[1]['id']}", "editor")
    with app.database.connection_context():  # its next failure is its last
        WebhookMessage.update(attempts=9).where(
            WebhookMessage.subscription == broken["id"]
        ).execute()
    port = free_port()
    env = {
        **os.environ,
        "CALENDAR_REST_WEBHOOK_ALLOW_PRIVATE": "1",
        "CALENDAR_REST_METRICS_ALLOW": "127.0.0.1/32",
        "CALENDAR_REST_METRICS_TOKEN": TOKEN,
    }
    command = [sys.executable, "-m", "calendar_rest", "--database", app.settings.database_url]
    worker = subprocess.Popen(
        [*command, "webhooks", "run", "--metrics-port", str(port), "--log-format", "json"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        assert endpoint.arrived.wait(DEADLINE), "no delivery reached the endpoint"
        held_since = time.monotonic()
        status, before = fetch(port, "/-/metrics")
        assert status == 200, before
        promtool_check(checker, before)
        values = samples(before)
        assert values[("calendar_rest_webhook_outbox_depth", ())] == 6
        assert deliveries(values) == dict.fromkeys(OUTCOMES, 0)
        assert values[("calendar_rest_webhook_delivery_seconds_count", ())] == 0

        # the guard, as the app's: an address outside metrics_allow, a wrong token and
        # a forwarded request are told the route does not exist; the token admits
        assert_refused(*fetch(port, "/-/metrics", OUTSIDER))
        assert_refused(*fetch(port, "/-/metrics", headers={"Authorization": "Bearer nope"}))
        assert_refused(*fetch(port, "/-/metrics", headers={"X-Forwarded-For": "127.0.0.1"}))
        assert_refused(*fetch(port, "/-/nothing"))
        bearer = {"Authorization": f"Bearer {TOKEN}"}
        assert fetch(port, "/-/metrics", OUTSIDER, bearer)[0] == 200
        assert fetch(port, "/-/live", OUTSIDER) == (200, '{"status":"ok"}')

        time.sleep(max(0.0, HOLD_SECONDS - (time.monotonic() - held_since)))
        endpoint.gate.set()
        deadline = time.monotonic() + DEADLINE
        while sum(deliveries(values).values()) < 6 and time.monotonic() < deadline:
            time.sleep(0.1)
            status, after = fetch(port, "/-/metrics", headers=bearer)
            values = samples(after)
        promtool_check(checker, after)
        assert deliveries(values) == {
            **dict.fromkeys(OUTCOMES, 0),
            "delivered": 3,
            "retry_scheduled": 1,
            "failed": 1,
            "gone": 1,
        }
        histogram = "calendar_rest_webhook_delivery_seconds"
        assert values[(f"{histogram}_count", ())] == 6
        assert values[(f"{histogram}_bucket", (("le", "+Inf"),))] == 6
        # the attempts in flight while the answers were held took that long at least
        assert values[(f"{histogram}_bucket", (("le", "0.5"),))] <= 5
        assert values[(f"{histogram}_sum", ())] >= HOLD_SECONDS - 0.1
        # what is left: the message told to come back in an hour
        assert values[("calendar_rest_webhook_outbox_depth", ())] == 1
        assert len(attempts(app)) == 6

        worker.send_signal(signal.SIGTERM)
        _, errors = worker.communicate(timeout=DEADLINE)
        assert worker.returncode == 0, errors.decode()
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.communicate(timeout=10)
        endpoint.close()
    lines = [json.loads(line) for line in errors.decode().splitlines()]  # JSON, every one
    assert any(
        line["message"] == f"webhook worker metrics on http://127.0.0.1:{port}/-/metrics"
        for line in lines
    )
    attempt_lines = [
        line for line in lines if re.match(r"webhook msg_\S+ subscription", line["message"])
    ]
    assert len(attempt_lines) == 6
    for line in attempt_lines:  # the delivery's webhook-id is the line's request ID
        assert line["request_id"] == line["message"].split()[1]
    assert len({line["request_id"] for line in attempt_lines}) == 6
    assert ok["secret"].removeprefix("whsec_") not in errors.decode()


@pytest.mark.slow
def test_a_port_in_use_is_one_line_and_status_1(app: Application) -> None:
    port = free_port()
    command = [sys.executable, "-m", "calendar_rest", "--database", app.settings.database_url]
    with socket.socket() as holder:  # the port taken
        holder.bind(("127.0.0.1", port))
        holder.listen()
        done = subprocess.run(
            [*command, "webhooks", "run", "--once", "--metrics-port", str(port)],
            capture_output=True,
            text=True,
            timeout=DEADLINE,
            check=False,
        )
    assert done.returncode == 1
    assert f"cannot serve the worker's metrics on 127.0.0.1:{port}" in done.stderr
    assert "Traceback" not in done.stderr


# -- in process: the app of the worker's port, and the outcome labels -------------------


def probes(allow: tuple[str, ...] = ("127.0.0.0/8", "::1"), token: str | None = None) -> Client:
    metrics = WorkerMetrics(lambda: 4.0)
    return Client(WorkerProbes(metrics, ScrapeGuard(allow, token)))


@pytest.mark.parametrize(
    ("address", "headers", "admitted"),
    [
        ("127.0.0.1", {}, True),
        ("::1", {}, True),
        ("::ffff:127.0.0.1", {}, True),
        ("192.0.2.7", {}, False),
        ("not-an-address", {}, False),
        ("127.0.0.1", {"X-Forwarded-For": "127.0.0.1"}, False),
        ("127.0.0.1", {"Forwarded": "for=127.0.0.1"}, False),
        ("192.0.2.7", {"Authorization": f"Bearer {TOKEN}"}, True),
        ("192.0.2.7", {"Authorization": f"bearer  {TOKEN} "}, True),
        ("192.0.2.7", {"Authorization": f"Bearer {TOKEN}", "X-Forwarded-For": "1.2.3.4"}, True),
        ("127.0.0.1", {"Authorization": "Bearer wrong"}, False),
        ("192.0.2.7", {"Authorization": f"Basic {TOKEN}"}, False),
    ],
)
def test_the_guard_of_the_worker_s_metrics(
    address: str, headers: dict[str, str], admitted: bool
) -> None:
    client = probes(token=TOKEN)
    response = client.get("/-/metrics", headers=headers, environ_base={"REMOTE_ADDR": address})
    if admitted:
        assert response.status_code == 200
        assert response.headers["Content-Type"].startswith("text/plain")
        assert "calendar_rest_webhook_outbox_depth 4.0" in response.get_data(as_text=True)
    else:
        assert response.status_code == 404
        assert response.json == {
            "code": "rest_no_route",
            "message": "No route was found matching the URL and request method.",
            "data": {"status": 404},
        }
    assert response.headers["Cache-Control"] == "no-store"


def test_no_token_set_admits_no_bearer() -> None:
    response = probes(allow=()).get(
        "/-/metrics", headers={"Authorization": "Bearer "}, environ_base={"REMOTE_ADDR": "::1"}
    )
    assert response.status_code == 404


def test_live_other_paths_and_methods() -> None:
    client = probes(allow=())
    outside = {"REMOTE_ADDR": "192.0.2.7"}
    live = client.get("/-/live", environ_base=outside)
    assert (live.status_code, live.json) == (200, {"status": "ok"})
    head = client.head("/-/live", environ_base=outside)
    assert head.status_code == 200 and head.get_data() == b""
    for path in ("/", "/-/ready", "/-/metrics/", "/calendar/events/v1"):
        assert client.get(path, environ_base=outside).status_code == 404
    refused = client.post("/-/live", environ_base=outside)
    assert refused.status_code == 405 and refused.headers["Allow"] == "GET, HEAD"
    assert refused.json["code"] == "rest_no_route"


def test_outcome_labels() -> None:
    def outcome(state: str, gone: bool = False) -> Outcome:
        return Outcome(dt.datetime(2026, 1, 1), 200, None, 5, state, None, gone=gone)

    assert outcome_label(outcome("done"), True) == "delivered"
    assert outcome_label(outcome("done", gone=True), True) == "gone"
    assert outcome_label(outcome("pending"), True) == "retry_scheduled"
    assert outcome_label(outcome("failed"), True) == "failed"
    assert outcome_label(outcome("done"), False) == "lease_lost"
    assert {"delivered", "gone", "retry_scheduled", "failed", "lease_lost", "error"} == set(
        OUTCOMES
    )
