"""``calendar-rest serve`` as operators run it (``operations.md`` §2, §3): one scrape
of a pre-forked server sums every worker, Prometheus's own parser (``promtool``)
reads it, and the log lines on standard error are one JSON object each.

Real servers on 127.0.0.1, every wait bounded (``serve_process.serving``).
"""

from __future__ import annotations

import http.client
import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from client_servers import missing
from conftest import NS
from prometheus_client.parser import text_string_to_metric_families
from serve_process import HOST, serving

from calendar_rest.telemetry.metrics import FLUSH_SECONDS

pytestmark = [pytest.mark.slow, pytest.mark.backends("sqlite")]

EVENTS = f"{NS}/events"
#: a scrape waits this long at most for the other workers' last second of requests
SUMMED_WITHIN = 10.0


def get(port: int, path: str, headers: dict[str, str] | None = None) -> http.client.HTTPResponse:
    """One request on a connection of its own (so that any worker may take it)."""
    connection = http.client.HTTPConnection(HOST, port, timeout=10)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        response.read()
        return response
    finally:
        connection.close()


def scrape(port: int) -> str:
    connection = http.client.HTTPConnection(HOST, port, timeout=10)
    try:
        connection.request("GET", "/-/metrics")
        response = connection.getresponse()
        body = response.read().decode()
        assert response.status == 200, body
        return body
    finally:
        connection.close()


def counted(text: str, route: str) -> float:
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "calendar_rest_http_requests_total" and sample.labels["route"] == route
    )


def promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        missing("promtool (Prometheus)", "apt-get install prometheus")
    return found


def test_one_scrape_sums_the_requests_of_every_worker(tmp_path: Path) -> None:
    """Requests on new connections until both workers served some (each worker's
    request IDs have their own prefix); a scrape then shows exactly their sum over
    the count before (the start-up checks'), once each worker's last second is in."""
    with serving(tmp_path, workers=2, options=("--log-format", "json")) as served:
        time.sleep(FLUSH_SECONDS + 0.5)  # what the start-up checks made, flushed
        before = counted(scrape(served.port), EVENTS)
        prefixes: dict[str, int] = {}
        deadline = time.monotonic() + SUMMED_WITHIN
        while (len(prefixes) < 2 or sum(prefixes.values()) < 40) and time.monotonic() < deadline:
            response = get(served.port, EVENTS)
            assert response.status == 200
            prefix = response.headers["X-Request-ID"].split("-")[0]
            prefixes[prefix] = prefixes.get(prefix, 0) + 1
        assert len(prefixes) == 2, f"one worker served everything: {prefixes}"
        sent = sum(prefixes.values())
        while counted(text := scrape(served.port), EVENTS) < before + sent:
            assert time.monotonic() < deadline + SUMMED_WITHIN, (before, sent, prefixes)
            time.sleep(0.2)
        time.sleep(FLUSH_SECONDS + 0.5)
        text = scrape(served.port)
        assert counted(text, EVENTS) == before + sent, (before, sent, prefixes)
        checked = subprocess.run(
            [promtool(), "check", "metrics"], input=text, capture_output=True, text=True, timeout=60
        )
        # Prometheus's own parser and linter (naming, units, help texts): no complaint
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert "calendar_rest_http_request_duration_seconds_bucket" in text


def test_the_log_is_one_json_object_a_line_with_the_client_behind_the_proxy(
    tmp_path: Path,
) -> None:
    """Also that ``serve`` passes ``X-Forwarded-For`` on to the app (waitress drops it
    by default): the trusted proxy's client is the access line's ``client``."""
    settings = {"trusted_proxies": "127.0.0.1"}
    with serving(tmp_path, settings=settings, options=("--log-format", "json")) as served:
        forwarded = get(
            served.port, EVENTS, {"X-Forwarded-For": "198.51.100.23", "X-Request-ID": "via-proxy"}
        )
        assert forwarded.status == 200
        time.sleep(0.6)  # the log writes its lines within FLUSH_SECONDS (0.2 s)
        output = served.output()
    lines = [line for line in output.splitlines() if line.startswith("{")]
    documents = [json.loads(line) for line in lines]  # every log line parses
    access = [d for d in documents if d.get("request_id") == "via-proxy"]
    assert len(access) == 1, output
    assert access[0]["client"] == "198.51.100.23"
    assert access[0]["route"] == EVENTS and access[0]["status"] == 200
    others = [line for line in output.splitlines() if not line.startswith("{")]
    assert all(line.startswith("Serving http://") for line in others), others


def test_the_text_format_puts_the_request_id_on_the_line(tmp_path: Path) -> None:
    with serving(tmp_path, options=("--log-format", "text")) as served:
        assert get(served.port, EVENTS, {"X-Request-ID": "text-line-1"}).status == 200
        time.sleep(0.6)  # the log writes its lines within FLUSH_SECONDS (0.2 s)
        output = served.output()
    line = next(line for line in output.splitlines() if "[text-line-1]" in line)
    assert "calendar_rest.access" in line and f'"GET {EVENTS}" 200' in line


def test_the_log_is_json_when_standard_error_is_no_terminal(tmp_path: Path) -> None:
    with serving(tmp_path) as served:
        assert get(served.port, EVENTS, {"X-Request-ID": "default-format"}).status == 200
        time.sleep(0.6)  # the log writes its lines within FLUSH_SECONDS (0.2 s)
        output = served.output()
    line = next(line for line in output.splitlines() if "default-format" in line)
    assert json.loads(line)["request_id"] == "default-format"


def test_the_last_lines_are_written_when_the_server_is_stopped(tmp_path: Path) -> None:
    """Lines wait up to ``FLUSH_SECONDS`` for their batch; SIGTERM writes them first."""
    with serving(tmp_path, options=("--log-format", "json")) as served:
        assert get(served.port, EVENTS, {"X-Request-ID": "just-before-stop"}).status == 200
    assert '"request_id":"just-before-stop"' in served.output()
    assert served.process.returncode == -15  # still ended by SIGTERM, as before
