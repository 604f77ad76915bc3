"""The operator's recipe of ``docs/operations.md``, checked: the page names every metric
the service defines (with its type and labels) and no other, quotes the Prometheus files
of ``examples/prometheus/`` as they are, and its load-balancer and Kubernetes recipes
(and the deployment page's) probe ``/-/ready`` and ``/-/live``.

With the real Prometheus (Debian's ``prometheus`` package; ``slow`` and ``clients``, a
missing binary skips, or fails under ``CALENDAR_REST_REQUIRE_CLIENTS=1``): ``promtool``
accepts the scrape configuration and the rules (and refuses a broken rule), and a
Prometheus server running the docs' configuration, pointed at ``serve --workers 2``
with a metrics token, counts every request made and evaluates every alert rule.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
import typing as t
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
import yaml
from client_servers import missing
from conftest import NS
from prometheus_client.metrics import MetricWrapperBase
from serve_process import HOST, free_port, serving

import calendar_rest
from calendar_rest.telemetry.metrics import ServiceMetrics, WorkerMetrics

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "operations.md"
DEPLOYMENT = ROOT / "docs" / "deployment.md"
EXAMPLES = ROOT / "examples" / "prometheus"
SCRAPE_CONFIG = EXAMPLES / "prometheus.yml"
RULES = EXAMPLES / "alerts.yml"
#: the job of the app machines in the scrape configuration
APP_JOB = "calendar-rest"
#: the route ``serving`` polls until the server answers (requests this test does not count)
STARTUP_ROUTE = f"{NS}/events"
#: what the test asks the server, each several times (cache misses, then hits)
PATHS = (
    f"{NS}/venues",
    f"{NS}/organizers",
    f"{NS}/categories",
    f"{NS}/tags",
    f"{NS}/events/3",
    f"{NS}/no-such-route",
    "/events/",
)
ROUNDS = 4
#: the bound of Prometheus starting, scraping what was asked, evaluating the rules
DEADLINE = 30.0
#: a series a histogram exposes beside its name
SUFFIXES = ("_bucket", "_count", "_sum", "_created")


# -- what the service defines -----------------------------------------------------------


def defined_metrics() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Every metric of the app and of the webhook worker: its exposed name (a counter's
    with ``_total``), its type and its labels."""
    found: dict[str, tuple[str, tuple[str, ...]]] = {}
    service = ServiceMetrics()
    holders: list[object] = [service, service.requests, WorkerMetrics(lambda: 0.0)]
    for holder in holders:
        for metric in vars(holder).values():
            if isinstance(metric, MetricWrapperBase):
                (family,) = metric.describe()
                name = family.name + ("_total" if family.type == "counter" else "")
                labels = tuple(getattr(metric, "_labelnames", ()))
                found[name] = (family.type, labels)
    assert len(found) >= 14, sorted(found)  # the spec's list at least: none slipped by
    return found


def named_metrics(text: str) -> set[str]:
    """The metric names ``text`` mentions, without a histogram's series suffix."""
    names = set(re.findall(r"\bcalendar_rest_[a-z0-9_]+\b", text))
    return {next((n[: -len(s)] for s in SUFFIXES if n.endswith(s)), n) for n in names}


def code_blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.MULTILINE | re.DOTALL)


# -- the fast checks of the page ---------------------------------------------------------


def test_the_page_names_every_metric_with_its_type_and_labels() -> None:
    rows = {
        match.group(1): line
        for line in PAGE.read_text().splitlines()
        if (match := re.match(r"\| `(calendar_rest_[a-z0-9_]+)` \|", line))
    }
    for name, (kind, labels) in defined_metrics().items():
        assert name in rows, f"{name} is not in the page's table of metrics"
        cells = [cell.strip() for cell in rows[name].split("|")[1:-1]]
        assert cells[1] == kind, (name, cells[1])
        named = re.findall(r"`([a-z_]+)`", cells[2])
        assert tuple(named) == labels, (name, named)
        assert not labels or cells[2] != "none", name


def test_the_page_and_the_rules_name_only_metrics_that_exist() -> None:
    defined = set(defined_metrics())
    for document in (PAGE, RULES):
        unknown = named_metrics(document.read_text()) - defined
        assert not unknown, f"{document.name} names metrics the service lacks: {unknown}"


def test_the_page_quotes_the_scrape_configuration_and_the_rules_as_they_are() -> None:
    blocks = code_blocks(PAGE.read_text(), "yaml")
    assert SCRAPE_CONFIG.read_text() in blocks
    assert RULES.read_text() in blocks


def test_the_scrape_configuration_scrapes_metrics_and_loads_the_rules() -> None:
    config = yaml.safe_load(SCRAPE_CONFIG.read_text())
    assert config["rule_files"] == [RULES.name]
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    assert set(jobs) == {APP_JOB, "calendar-rest-webhooks"}
    assert all(job["metrics_path"] == "/-/metrics" for job in jobs.values())
    assert jobs[APP_JOB]["authorization"]["type"] == "Bearer"


def test_the_rules_alert_on_what_the_issue_names() -> None:
    rules = [
        rule for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]
    ]
    expressions = [" ".join(rule["expr"].split()) for rule in rules]
    wanted = {
        "5xx rate": r'calendar_rest_http_requests_total\{status="5xx"\}',
        "p99 by route": r"histogram_quantile\(0\.99, sum by \(route, le\) \(rate\("
        r"calendar_rest_http_request_duration_seconds_bucket",
        "cache hit rate": r'calendar_rest_response_cache_requests_total\{outcome="hit"\}',
        "outbox depth": r"calendar_rest_webhook_outbox_depth",
        "replica lag": r"calendar_rest_replica_lag_seconds",
    }
    for what, pattern in wanted.items():
        assert any(re.search(pattern, expression) for expression in expressions), what
    assert all(rule["labels"]["severity"] in ("warning", "critical") for rule in rules)


def test_the_recipes_probe_ready_and_live() -> None:
    page = PAGE.read_text()
    (pod,) = [
        yaml.safe_load(block)["containers"][0]
        for block in code_blocks(page, "yaml")
        if "readinessProbe" in block
    ]
    assert pod["readinessProbe"]["httpGet"]["path"] == "/-/ready"
    assert pod["livenessProbe"]["httpGet"]["path"] == "/-/live"
    assert pod["readinessProbe"]["timeoutSeconds"] > 2  # above ready_timeout's default
    (balancer,) = [block for block in code_blocks(page, "text") if "httpchk" in block]
    assert "uri /-/ready" in balancer
    (health,) = re.findall(r"\*\*Health check:\*\* `GET ([^`]+)`", DEPLOYMENT.read_text())
    assert health == "/-/ready"
    documents = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
    old = [path.name for path in documents if "categories?per_page=1" in path.read_text()]
    assert not old, f"the old health check is still recommended in {old}"


# -- with the real Prometheus ------------------------------------------------------------


def tool(name: str) -> str:
    """A Prometheus binary on PATH, else skip (fail when the clients are required)."""
    found = shutil.which(name)
    if found is None:
        missing(f"{name} (no {name} binary on PATH)", "apt-get install prometheus")
    return found


def promtool(*arguments: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [tool("promtool"), *map(str, arguments)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def recipe_copy(directory: Path, token: str) -> Path:
    """The scrape configuration and its rules copied into ``directory``, with the token
    file the configuration names: the configuration's own path."""
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copy(SCRAPE_CONFIG, directory)
    shutil.copy(RULES, directory)
    config = yaml.safe_load(SCRAPE_CONFIG.read_text())
    (app_job,) = [job for job in config["scrape_configs"] if job["job_name"] == APP_JOB]
    (directory / app_job["authorization"]["credentials_file"]).write_text(token)
    return directory / SCRAPE_CONFIG.name


@pytest.mark.slow
@pytest.mark.clients
def test_promtool_accepts_the_configuration_and_the_rules(tmp_path: Path) -> None:
    config = recipe_copy(tmp_path, "a-token")
    checked = promtool("check", "config", "--lint=all", "--lint-fatal", config)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "1 rule files found" in checked.stdout
    checked = promtool("check", "rules", "--lint=all", "--lint-fatal", RULES)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    rules = sum(len(group["rules"]) for group in yaml.safe_load(RULES.read_text())["groups"])
    assert f"SUCCESS: {rules} rules found" in checked.stdout
    # the check can fail: a rule whose expression does not parse is refused
    broken = tmp_path / "broken.yml"
    broken.write_text(RULES.read_text().replace("> 0.01", "> 0.01)", 1))
    refused = promtool("check", "rules", broken)
    assert refused.returncode != 0 and "parse error" in refused.stdout + refused.stderr


class Prometheus:
    """A Prometheus server's HTTP API on 127.0.0.1."""

    def __init__(self, port: int) -> None:
        self.base = f"http://{HOST}:{port}"

    def get(self, path: str, **query: str) -> t.Any:
        url = f"{self.base}{path}?{urllib.parse.urlencode(query)}"
        with urllib.request.urlopen(url, timeout=10) as answer:
            document = json.loads(answer.read())
        assert document["status"] == "success", document
        return document["data"]

    def query(self, expression: str) -> list[dict[str, t.Any]]:
        """An instant query's result; a query Prometheus cannot evaluate fails the test
        (its 400 or 422, with the error, is raised as an HTTPError)."""
        try:
            data = self.get("/api/v1/query", query=expression)
        except urllib.error.HTTPError as error:
            pytest.fail(f"{expression!r}: {error.read().decode(errors='replace')}")
        return t.cast(list[dict[str, t.Any]], data["result"])

    def value(self, expression: str) -> float | None:
        result = self.query(expression)
        return float(result[0]["value"][1]) if result else None

    def rules(self) -> list[dict[str, t.Any]]:
        groups = self.get("/api/v1/rules")["groups"]
        return [rule for group in groups for rule in group["rules"]]


def wait_until(condition: t.Callable[[], t.Any], what: str) -> t.Any:
    """``condition()`` once truthy, polled for at most :data:`DEADLINE` seconds."""
    deadline = time.monotonic() + DEADLINE
    while True:
        outcome = condition()
        if outcome:
            return outcome
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {DEADLINE:.0f} s")
        time.sleep(0.5)


@contextlib.contextmanager
def prometheus_running(config: Path, port: int) -> t.Iterator[Prometheus]:
    """``prometheus`` on ``config``, its data in a directory beside it; always stopped."""
    log = config.parent / "prometheus.log"
    with open(log, "wb") as sink:
        process = subprocess.Popen(
            [
                tool("prometheus"),
                f"--config.file={config}",
                f"--storage.tsdb.path={config.parent / 'data'}",
                f"--web.listen-address={HOST}:{port}",
                "--log.level=warn",
            ],
            stdout=sink,
            stderr=subprocess.STDOUT,
            cwd=config.parent,
        )
    server = Prometheus(port)

    def ready() -> bool:
        if process.poll() is not None:
            pytest.fail(f"prometheus exited {process.returncode}:\n{log.read_text()}")
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(f"{server.base}/-/ready", timeout=2) as answer:
                return bool(answer.status == 200)
        return False

    try:
        wait_until(ready, "prometheus ready")
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def load_demo(database: Path) -> None:
    """``calendar-rest demo`` into the SQLite file ``serving`` then serves."""
    checkout = str(Path(calendar_rest.__file__).resolve().parent.parent)
    environment = {k: v for k, v in os.environ.items() if not k.startswith("CALENDAR_REST_")}
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [checkout, os.environ.get("PYTHONPATH")])
    )
    command = [sys.executable, "-m", "calendar_rest", "--database", f"sqlite:///{database}", "demo"]
    subprocess.run(command, env=environment, capture_output=True, timeout=60, check=True)


def status_of(port: int, path: str, headers: dict[str, str] | None = None) -> int:
    """A GET's status, on a connection of its own (so both workers take some)."""
    connection = http.client.HTTPConnection(HOST, port, timeout=10)
    try:
        connection.request("GET", path, headers=headers or {})
        answer = connection.getresponse()
        answer.read()
        return answer.status
    finally:
        connection.close()


@pytest.mark.slow
@pytest.mark.clients
def test_a_real_prometheus_counts_every_request_and_evaluates_every_rule(
    tmp_path: Path,
) -> None:
    pytest.importorskip("gunicorn", reason="the 'workers' extra (gunicorn) is not installed")
    tool("prometheus")
    token = secrets.token_urlsafe(24)
    load_demo(tmp_path / "served.db")
    # only the token admits a scraper: no address is allowed (192.0.2.1 is TEST-NET-1)
    settings = {"metrics_token": token, "metrics_allow": "192.0.2.1"}
    with serving(tmp_path, workers=2, settings=settings) as served:
        assert status_of(served.port, "/-/metrics") == 404
        assert status_of(served.port, "/-/metrics", {"Authorization": "Bearer wrong"}) == 404
        assert status_of(served.port, "/-/metrics", {"Authorization": f"Bearer {token}"}) == 200
        for _ in range(ROUNDS):
            for path in PATHS:
                assert status_of(served.port, path) in (200, 404), path
        asked = ROUNDS * len(PATHS)

        config_path = recipe_copy(tmp_path / "prometheus", token)
        config = yaml.safe_load(config_path.read_text())
        config["global"].update(scrape_interval="1s", scrape_timeout="1s", evaluation_interval="1s")
        (app_job,) = [job for job in config["scrape_configs"] if job["job_name"] == APP_JOB]
        app_job["static_configs"] = [{"targets": [f"{HOST}:{served.port}"]}]
        config["scrape_configs"] = [app_job]  # no webhook worker runs here
        config_path.write_text(yaml.safe_dump(config))

        with prometheus_running(config_path, free_port()) as prometheus:
            counted = f'sum(calendar_rest_http_requests_total{{route!="{STARTUP_ROUTE}"}})'
            wait_until(
                lambda: (prometheus.value(counted) or 0) >= asked,
                f"Prometheus counting the {asked} requests",
            )
            assert prometheus.value(counted) == asked
            total = prometheus.value("sum(calendar_rest_http_requests_total)")
            startup = prometheus.value(
                f'sum(calendar_rest_http_requests_total{{route="{STARTUP_ROUTE}"}})'
            )
            assert total == asked + (startup or 0) and startup, (total, startup)
            assert prometheus.value(f'up{{job="{APP_JOB}"}}') == 1
            hits = 'sum(calendar_rest_response_cache_requests_total{outcome="hit"})'
            assert (prometheus.value(hits) or 0) > 0

            defined = [
                rule
                for group in yaml.safe_load(RULES.read_text())["groups"]
                for rule in group["rules"]
            ]

            def evaluated() -> list[dict[str, t.Any]]:
                loaded = prometheus.rules()
                done = len(loaded) == len(defined) and all(r["health"] == "ok" for r in loaded)
                return loaded if done else []

            loaded = wait_until(evaluated, "every rule loaded and evaluated")
            assert {rule["name"] for rule in loaded} == {rule["alert"] for rule in defined}
            assert not [rule for rule in loaded if rule.get("lastError")], loaded
            for rule in defined:
                prometheus.query(rule["expr"])  # fails the test on an error
            # the rules work on what was scraped: no worker is scraped, so that alert is
            # pending; a service answering well sets off no 5xx alert
            active = {
                alert["labels"]["alertname"] for alert in prometheus.get("/api/v1/alerts")["alerts"]
            }
            assert "CalendarRestNoWebhookWorker" in active, active
            assert "CalendarRestHigh5xxRate" not in active, active
