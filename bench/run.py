"""Benchmark ``calendar-rest serve`` against a bare-WSGI floor, for several data sizes.

For each N: seed (or reuse) ``bench/data/events-N.db``, start the app server and two
floor servers (the bare app under plain waitress and under the project's own
``serving.server``, same threads), then for each scenario measure both floors with a
body of the scenario's size, keep the faster as the floor, and measure the app itself,
and print req/s, p50 and p99 with their ratios to the floor. Tables are also written to
``bench/results/`` as JSON and Markdown. Servers listen on 127.0.0.1 only and are always stopped.

    python bench/run.py --sizes 10000,100000,1000000 --connections 16 --threads 8 --duration 10
    python bench/run.py --quick
    python bench/run.py --sizes 100000 --scenarios default --workers 1,2   # core scaling
    python bench/run.py --sizes 10000 --scenarios mixed --write-interval 0.5   # under writes

Answers carrying ``X-Calendar-Cache`` are counted, so each row also gives the response
cache's hit rate; the ``mixed`` scenario edits an event through the API while it reads.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import dataclasses
import datetime as dt
import html
import http.client
import importlib.util
import json
import os
import platform
import random
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import typing as t
from pathlib import Path
from urllib.parse import quote, urlsplit

import peewee as pw
from load import LoadResult, run_load
from seed import COMMON_WORD, seed
from wrk_load import available as wrk_available
from wrk_load import run_wrk

from calendar_rest import models
from calendar_rest.cli.database import display_url
from calendar_rest.clock import SYSTEM_CLOCK, utc_now
from calendar_rest.db import connect_database, login_store
from calendar_rest.repository.users import add_application_password
from calendar_rest.wordpress.taxonomies import CATEGORIES

BENCH = Path(__file__).resolve().parent
DATA = BENCH / "data"
RESULTS = BENCH / "results"
DEFAULT_BACKEND = f"sqlite:///{DATA}/events-{{n}}.db"
EVENTS = "/calendar/events/v1/events"
HOST = "127.0.0.1"
SINGLE_IDS = 2000
#: body-size probe: how many of a scenario's paths to fetch once and average
PROBES = 20
READY_TIMEOUT = 60.0
#: the cached single-event run cycles the first of the IDs only: the popular events a
#: cache holds (all 2,000 would mostly miss within a run, measuring the cold path again)
CACHED_SINGLE_IDS = 100
#: the mixed scenario's singles: the first IDs of ``Facts.event_ids``, Zipf-weighted
MIXED_SINGLES = 500
#: the seeded administrator who makes the mixed scenario's writes, and the label of the
#: application password each run gives it (replacing the previous run's)
WRITER_LOGIN = "bench-admin"
WRITER_LABEL = "bench-writer"
#: what the writes append to the title, and take away again (one word, so the search
#: index only ever gains and loses that word)
EDIT_SUFFIX = " (updated)"
PLAIN_TITLE = re.compile(r"^[A-Za-z0-9 ]+$")
#: the site's list page (issue 32), measured by the ``pages`` scenario
LIST_PAGE = "/events/list/"
#: where a page names the API list of exactly what it shows
JSON_ALTERNATE = re.compile(r'<link rel="alternate" type="application/json"[^>]* href="([^"]+)"')
#: issue 32's targets: a cold list page serves at least this share of the cold API rate
#: of the same filter; a cached page at least this share of a cached API answer's rate
COLD_PAGE_TARGET = 0.6
CACHED_PAGE_TARGET = 0.9
#: the page and its API answer are measured in this many alternating rounds, each of
#: ``--duration / PAGE_ROUNDS`` seconds but at least PAGE_ROUND_SECONDS (or --duration)
PAGE_ROUNDS = 4
PAGE_ROUND_SECONDS = 0.6

FLOOR_SERVER = (
    "import sys, waitress; sys.path.insert(0, sys.argv[1]); from floor import app; "
    "waitress.serve(app, host=sys.argv[2], port=int(sys.argv[3]), threads=int(sys.argv[4]))"
)
#: the same bare app under the project's own server set-up (``serve``'s waitress
#: adjustments, batched accepts, poll): the floor is the faster of the two in each
#: measurement, since plain waitress spins and would flatter every ratio
PROJECT_FLOOR_SERVER = (
    "import sys; sys.path.insert(0, sys.argv[1]); from floor import app; "
    "from calendar_rest.serving.server import serve; "
    "serve(app, host=sys.argv[2], port=int(sys.argv[3]), threads=int(sys.argv[4]))"
)
#: used when the ``calendar-rest`` CLI is not available: the same waitress call
APP_SERVER = (
    "import sys, waitress, calendar_rest; "
    "waitress.serve(calendar_rest.create_app(sys.argv[1]), host=sys.argv[2], "
    "port=int(sys.argv[3]), threads=int(sys.argv[4]))"
)


@dataclasses.dataclass(frozen=True)
class Scenario:
    key: str
    name: str
    description: str
    #: whether a writer thread edits an event while the scenario is measured
    writes: bool = False


SCENARIOS = (
    Scenario("default", "default list", "GET /events: first page of the default listing"),
    Scenario("category", "category filter", "?categories=<slug of the median-size category>"),
    Scenario("search", "search", f"?search={COMMON_WORD} (a few % of the events match)"),
    Scenario("window", "date window", "?start_date=<today+30d>&end_date=<today+60d>"),
    Scenario("deep", "deep page", "?page=<total_pages // 2 of the default listing>"),
    Scenario(
        "single",
        "single event by id",
        "/events/<id>, cycling --single-ids published IDs (cached: the first 100)",
    ),
    Scenario("venues", "venues list", "GET /venues: first page of venues (newest first)"),
    Scenario("organizers", "organizers list", "GET /organizers: first page of organizers"),
    Scenario("categories", "categories list", "GET /categories: first page of categories"),
    Scenario("tags", "tags list", "GET /tags: first page of tags"),
    Scenario(
        "mixed",
        "mixed, under writes",
        "default list, page 2, category, date window, singles; a PATCH every --write-interval s",
        writes=True,
    ),
    Scenario(
        "pages",
        "site pages",
        "/events/list/ vs its JSON alternate (cold) and vs GET /events (cached)",
    ),
)


@dataclasses.dataclass(frozen=True)
class Facts:
    """What the scenarios need to know about a seeded database."""

    category: str
    event_ids: list[int]
    earliest_start: dt.datetime | None


@dataclasses.dataclass(frozen=True)
class Settings:
    connections: int
    threads: int
    duration: float
    warmup: float
    max_requests: int
    single_ids: int = SINGLE_IDS
    workers: tuple[int, ...] = (1,)
    #: seconds between two writes of the mixed scenario
    write_interval: float = 1.0
    #: the load client: ``python`` (``load.py``) or ``wrk`` (``wrk_load.py``)
    client: str = "python"
    #: several workers listen on sockets of their own (``serve --reuse-port``)
    reuse_port: bool = False


@dataclasses.dataclass(frozen=True)
class WriteTarget:
    """What the mixed scenario's writer edits, and the credentials it edits with."""

    login: str
    secret: str
    event_id: int
    title: str


# -- database ---------------------------------------------------------------------------


def inspect(url: str, seed_value: int, single_ids: int = SINGLE_IDS) -> Facts:
    """The median-size category, random published unprotected event IDs, earliest start."""
    database = connect_database(url)
    models.bind_models(database, login_store(database))
    try:
        with database.connection_context():
            categories = [
                term.slug
                for term in models.Term.select(models.Term.slug)
                .where(models.Term.taxonomy == CATEGORIES.name)
                .order_by(models.Term.count.desc(), models.Term.id)
            ]
            ids = [
                event.id
                for event in models.Event.select(models.Event.id)
                .where((models.Event.status == "publish") & (models.Event.password == ""))
                .order_by(models.Event.id)
            ]
            earliest = models.Event.select(pw.fn.MIN(models.Event.start_utc)).scalar()
    finally:
        database.close()
    rng = random.Random(seed_value)
    picked = rng.sample(ids, min(single_ids, len(ids)))
    if isinstance(earliest, str):
        earliest = dt.datetime.fromisoformat(earliest)
    return Facts(categories[len(categories) // 2], picked, earliest)


def prepare_writes(url: str, facts: Facts) -> WriteTarget:
    """Give :data:`WRITER_LOGIN` a fresh application password (dropping the one of a
    previous run) and pick the event to edit: a published one with a plain title
    (restored exactly) that the search scenario does not find."""
    database = connect_database(url)
    models.bind_models(database, login_store(database))
    try:
        with database.connection_context(), database.atomic():
            user = models.User.get(models.User.login == WRITER_LOGIN)
            stored = models.ApplicationPassword
            stored.delete().where((stored.user == user) & (stored.name == WRITER_LABEL)).execute()
            secret = add_application_password(user, utc_now(SYSTEM_CLOCK), WRITER_LABEL)
            titles = {
                event.id: event.title
                for event in models.Event.select(models.Event.id, models.Event.title).where(
                    models.Event.id.in_(facts.event_ids[:200])
                )
            }
    finally:
        database.close()
    for pk in facts.event_ids[:200]:
        title = titles.get(pk, "")
        if PLAIN_TITLE.match(title) and COMMON_WORD not in title.lower():
            return WriteTarget(WRITER_LOGIN, secret, pk, title.removesuffix(EDIT_SUFFIX))
    raise RuntimeError("no event with a plain title to edit among the sampled IDs")


# -- servers ----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def app_command(
    url: str,
    port: int,
    threads: int,
    cache: bool = True,
    workers: int = 1,
    reuse_port: bool = False,
) -> list[str]:
    if importlib.util.find_spec("calendar_rest.cli") is not None:
        more = ["--workers", str(workers)] if workers > 1 else []
        more += ["--reuse-port"] if workers > 1 and reuse_port else []
        return [
            sys.executable,
            "-m",
            "calendar_rest",
            "--database",
            url,
            "serve",
            "--host",
            HOST,
            "--port",
            str(port),
            "--threads",
            str(threads),
            "--cache-entries",
            "2048" if cache else "0",
            *more,
        ]
    if workers > 1:
        raise RuntimeError("--workers above 1 needs the calendar-rest CLI (serve --workers)")
    return [sys.executable, "-c", APP_SERVER, url, HOST, str(port), str(threads)]


def floor_command(port: int, threads: int, server: str = FLOOR_SERVER) -> list[str]:
    return [sys.executable, "-c", server, str(BENCH), HOST, str(port), str(threads)]


class Server:
    """A server subprocess on 127.0.0.1; a context manager that always stops it."""

    def __init__(self, name: str, command: list[str], port: int) -> None:
        self.name = name
        self.port = port
        self.base = f"http://{HOST}:{port}"
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT
        )

    def __enter__(self) -> Server:
        try:
            self.wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait_ready(self) -> None:
        """Poll until the server answers HTTP (any status), or fail with its log."""
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} server exited early:\n{self.output()}")
            try:
                status, _ = fetch(self.base, "/")
                if status:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} server not ready in {READY_TIMEOUT:.0f} s")

    def wait_idle(self, quiet: float = 0.5, limit: float = 60.0) -> None:
        """Wait (at most ``limit`` s) until the server (with its worker processes, under
        ``--workers``) has used no CPU for ``quiet`` s, so that requests a timed-out
        client left behind do not slow the next run."""
        if not Path(f"/proc/{self.process.pid}/stat").exists():  # not Linux
            return
        deadline = time.monotonic() + limit
        before = _tree_ticks(self.process.pid)
        while time.monotonic() < deadline:
            time.sleep(quiet)
            now = _tree_ticks(self.process.pid)
            if now == before:
                return
            before = now

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-4000:]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def _cpu_ticks(stat: Path) -> int:
    """User + system CPU ticks of a process, from ``/proc/PID/stat``."""
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def _tree_ticks(pid: int) -> tuple[int, ...]:
    """CPU ticks of ``pid`` and of each of its child processes (the workers)."""
    ticks = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(stat.parent.name) == pid or int(fields[1]) == pid:
            ticks.append(int(fields[11]) + int(fields[12]))
    return tuple(sorted(ticks))


def fetch(base: str, path: str) -> tuple[int, bytes]:
    """One GET on loopback; returns (status, body)."""
    parts = urlsplit(base)
    assert parts.hostname == HOST
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


# -- scenarios --------------------------------------------------------------------------


def scenario_paths(key: str, facts: Facts, app_base: str, today: dt.date) -> list[str]:
    if key == "default":
        return [EVENTS]
    if key == "category":
        return [f"{EVENTS}?categories={quote(facts.category)}"]
    if key == "search":
        return [f"{EVENTS}?search={quote(COMMON_WORD)}"]
    if key == "window":
        start, end = today + dt.timedelta(days=30), today + dt.timedelta(days=60)
        return [f"{EVENTS}?start_date={start.isoformat()}&end_date={end.isoformat()}"]
    if key == "deep":
        status, body = fetch(app_base, EVENTS)
        total_pages = json.loads(body).get("total_pages", 1) if status == 200 else 1
        return [f"{EVENTS}?page={max(1, total_pages // 2)}"]
    if key == "single":
        return [f"{EVENTS}/{pk}" for pk in facts.event_ids]
    if key in ("venues", "organizers", "categories", "tags"):
        return [EVENTS.rsplit("/", 1)[0] + f"/{key}"]
    if key == "mixed":
        return mixed_paths(facts, today)
    raise ValueError(f"unknown scenario {key!r}")


def mixed_paths(facts: Facts, today: dt.date) -> list[str]:
    """A public site's reads: in every 10 requests, 3 default lists, page 2, a category,
    a date window and 4 single events, drawn Zipf-like (a few are popular) from the
    first :data:`MIXED_SINGLES` sampled IDs."""
    window = scenario_paths("window", facts, "", today)[0]
    category = scenario_paths("category", facts, "", today)[0]
    ids = facts.event_ids[:MIXED_SINGLES]
    rng = random.Random(len(ids))
    singles = rng.choices(ids, weights=[1 / rank for rank in range(1, len(ids) + 1)], k=2000)
    paths = []
    for i in range(0, len(singles), 4):
        one, two, three, four = (f"{EVENTS}/{pk}" for pk in singles[i : i + 4])
        paths += [EVENTS, one, f"{EVENTS}?page=2", two, EVENTS]
        paths += [category, three, window, EVENTS, four]
    return paths


# -- site pages (issue 32) --------------------------------------------------------------


def api_twin(base: str, page: str) -> str:
    """The API list of exactly what ``page`` shows: the path and query of the page's
    ``<link rel="alternate" type="application/json">``."""
    status, body = fetch(base, page)
    found = JSON_ALTERNATE.search(body.decode(errors="replace"))
    if status != 200 or found is None:
        raise RuntimeError(f"{page} answered {status} without a JSON alternate")
    parts = urlsplit(html.unescape(found.group(1)))
    return parts.path + (f"?{parts.query}" if parts.query else "")


def page_rows(
    scenario: Scenario,
    app: Server,
    floor: t.Sequence[Server],
    settings: Settings,
    label: str,
    suffix: str,
) -> list[dict[str, t.Any]]:
    """The list page and the API answer issue 32 compares it with, on one server: on
    the cold one (no response cache) the API list of the page's own filter, on the
    cached one the default ``GET /events``.

    The two are measured in :data:`PAGE_ROUNDS` alternating rounds (API then page, page
    then API, ...), each ``duration / PAGE_ROUNDS`` long (at least
    :data:`PAGE_ROUND_SECONDS`), so that a change of the machine's load during the
    scenario weighs on both alike; each row sums (or averages) its rounds."""
    api = api_twin(app.base, LIST_PAGE) if label == "cold" else EVENTS
    roles = (
        ("api", "API, the page's filter" if label == "cold" else "API default list", api),
        ("page", "list page", LIST_PAGE),
    )
    seconds = max(settings.duration / PAGE_ROUNDS, min(settings.duration, PAGE_ROUND_SECONDS))
    each = dataclasses.replace(settings, duration=seconds)
    rounds: dict[str, list[dict[str, t.Any]]] = {"api": [], "page": []}
    for number in range(PAGE_ROUNDS):
        for role, _, path in roles if number % 2 == 0 else roles[::-1]:
            rounds[role].append(measure(scenario, [path], app, floor, each))
    rows = []
    for role, name, _ in roles:
        row = combined(rounds[role])
        row.update(scenario=f"{name} ({label}{suffix})", cache=label, page_role=role)
        rows.append(row)
    return rows


def combined(rounds: list[dict[str, t.Any]]) -> dict[str, t.Any]:
    """One row of several measurements of one path: counts summed, rates and latencies
    averaged over the rounds, ratios recomputed from those."""
    row = dict(rounds[0])
    for key in ("requests", "errors", "floor_errors", "cache_hits", "cache_misses"):
        row[key] = sum(one[key] for one in rounds)
    for key in ("req_per_s", "p50_ms", "p99_ms"):
        for name in (key, f"floor_{key}"):
            row[name] = round(sum(one[name] for one in rounds) / len(rounds), 2)
    row["req_per_s_ratio"] = ratio(row["req_per_s"], row["floor_req_per_s"])
    row["p50_ratio"] = ratio(row["p50_ms"], row["floor_p50_ms"])
    row["p99_ratio"] = ratio(row["p99_ms"], row["floor_p99_ms"])
    answered = row["cache_hits"] + row["cache_misses"]
    row["hit_rate"] = round(100.0 * row["cache_hits"] / answered, 1) if answered else None
    row["rounds"] = len(rounds)
    return row


def page_ratios(rows: list[dict[str, t.Any]]) -> list[dict[str, t.Any]]:
    """Per cache mode (and worker count): page req/s over API req/s, against its target;
    also the ratio of their /floor ratios, which discounts the difference of body sizes."""
    found = []
    for cache, target in (("cold", COLD_PAGE_TARGET), ("cached", CACHED_PAGE_TARGET)):
        for workers in sorted({row["workers"] for row in rows if row.get("page_role")}):
            pair = {
                row["page_role"]: row
                for row in rows
                if row.get("page_role") and row["cache"] == cache and row["workers"] == workers
            }
            if set(pair) != {"api", "page"}:
                continue
            page, api = pair["page"], pair["api"]
            value = ratio(page["req_per_s"], api["req_per_s"])
            found.append(
                {
                    "cache": cache,
                    "workers": workers,
                    "page_req_per_s": page["req_per_s"],
                    "api_req_per_s": api["req_per_s"],
                    "api_path": api["path"],
                    "page_bytes": page["body_bytes"],
                    "api_bytes": api["body_bytes"],
                    "ratio": value,
                    "target": target,
                    "passed": value is not None and value >= target,
                    "floor_adjusted": ratio(
                        page["req_per_s_ratio"] or 0.0, api["req_per_s_ratio"] or 0.0
                    ),
                }
            )
    return found


def page_verdicts(rows: list[dict[str, t.Any]]) -> dict[str, t.Any]:
    """``{"pages": page_ratios(rows)}``, printed, when the ``pages`` scenario ran."""
    if not any(row.get("page_role") for row in rows):
        return {}
    found = page_ratios(rows)
    print(f"\n{pages_note(found)}", flush=True)
    return {"pages": found}


def pages_note(found: list[dict[str, t.Any]]) -> str:
    """The issue 32 verdicts, one line per cache mode (and worker count)."""
    lines = ["Site pages (issue 32): list page req/s / API req/s"]
    for entry in found:
        verdict = "pass" if entry["passed"] else "FAIL"
        value = "-" if entry["ratio"] is None else f"{entry['ratio']:.2f}"
        adjusted = entry["floor_adjusted"]
        plural = "s" if entry["workers"] > 1 else ""
        lines.append(
            f"  {entry['cache']:<6} ({entry['workers']} worker{plural}): "
            f"{entry['page_req_per_s']:.0f} / {entry['api_req_per_s']:.0f} = {value} "
            f"(target >= {entry['target']:.2f}: {verdict}); /floor ratios "
            f"{'-' if adjusted is None else f'{adjusted:.2f}'}; "
            f"{entry['page_bytes']} vs {entry['api_bytes']} bytes, API {entry['api_path']}"
        )
    return "\n".join(lines)


class Writer:
    """A thread making one small authenticated write every ``interval`` seconds (a
    ``PATCH`` of one event's title, as an editor would) while a scenario is measured;
    every write invalidates what each server process cached. The title alternates
    between its seeded value and that value plus :data:`EDIT_SUFFIX`, and is left as
    seeded, so the reusable database keeps its content (modification times and the
    change log aside)."""

    def __init__(self, base: str, target: WriteTarget, interval: float) -> None:
        parts = urlsplit(base)
        assert parts.hostname == HOST
        self.host, self.port = parts.hostname, parts.port
        self.target = target
        self.interval = interval
        token = base64.b64encode(f"{target.login}:{target.secret}".encode()).decode()
        self.headers = {"Authorization": f"Basic {token}", "Content-Type": "application/json"}
        self.path = f"{EVENTS}/{target.event_id}"
        self.edited = False
        self.latencies: list[float] = []
        self.errors = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, name="bench-writer", daemon=True)

    def __enter__(self) -> Writer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
        if self.edited and not self.write(self.target.title):
            print(f"  warning: could not restore the title of event {self.target.event_id}")

    def run(self) -> None:
        """Write at a fixed rate (a slow write delays the next one, never doubles it)."""
        next_at = time.monotonic() + self.interval
        while not self.stop.wait(max(0.0, next_at - time.monotonic())):
            next_at += self.interval
            title = self.target.title if self.edited else self.target.title + EDIT_SUFFIX
            began = time.perf_counter()
            if self.write(title):
                self.latencies.append((time.perf_counter() - began) * 1000.0)
                self.edited = not self.edited
            else:
                self.errors += 1
            next_at = max(next_at, time.monotonic())

    def write(self, title: str) -> bool:
        """One ``PATCH`` on a connection of its own; whether it answered 200."""
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            connection.request("PATCH", self.path, json.dumps({"title": title}), self.headers)
            response = connection.getresponse()
            response.read()
            return response.status == 200
        except (OSError, http.client.HTTPException):
            return False
        finally:
            connection.close()

    def figures(self) -> dict[str, t.Any]:
        ordered = sorted(self.latencies)
        return {
            "write_interval": self.interval,
            "writes": len(ordered),
            "write_errors": self.errors,
            "write_p50_ms": round(ordered[len(ordered) // 2], 2) if ordered else None,
        }


def probe(base: str, paths: list[str]) -> tuple[int, int]:
    """(mean body size, non-200 count) over the first :data:`PROBES` paths."""
    sizes, failures = [], 0
    for path in paths[:PROBES]:
        status, body = fetch(base, path)
        sizes.append(len(body))
        failures += status != 200
    return round(sum(sizes) / len(sizes)), failures


def measure(
    scenario: Scenario,
    paths: list[str],
    app: Server,
    floors: t.Sequence[Server],
    settings: Settings,
    target: WriteTarget | None = None,
) -> dict[str, t.Any]:
    size, failures = probe(app.base, paths)
    if failures:
        print(f"  warning: {scenario.name}: {failures} probe request(s) were not 200")
    load: dict[str, t.Any] = {
        "connections": settings.connections,
        "duration": settings.duration,
        "max_requests": settings.max_requests,
        "warmup": settings.warmup,
    }
    run = run_wrk if settings.client == "wrk" else run_load
    app.wait_idle()
    measured = [(run(floor.base, [f"/?size={size}"], **load), floor) for floor in floors]
    base, best_floor = max(measured, key=lambda pair: pair[0].req_per_s)
    writes: dict[str, t.Any] = {}
    if scenario.writes and target is not None:
        with Writer(app.base, target, settings.write_interval) as writer:
            result: LoadResult = run(app.base, paths, **load)
        writes = writer.figures()
    else:
        result = run(app.base, paths, **load)
    hit_rate = result.hit_rate
    return {
        "scenario": scenario.name,
        "path": paths[0],
        "body_bytes": size,
        "requests": result.requests,
        "errors": result.errors,
        "req_per_s": round(result.req_per_s, 1),
        "p50_ms": round(result.p50_ms, 2),
        "p99_ms": round(result.p99_ms, 2),
        "floor_req_per_s": round(base.req_per_s, 1),
        "floor_p50_ms": round(base.p50_ms, 2),
        "floor_p99_ms": round(base.p99_ms, 2),
        "floor_errors": base.errors,
        "floor_server": best_floor.name,
        "req_per_s_ratio": ratio(result.req_per_s, base.req_per_s),
        "p50_ratio": ratio(result.p50_ms, base.p50_ms),
        "p99_ratio": ratio(result.p99_ms, base.p99_ms),
        "cache_hits": result.cache_hits,
        "cache_misses": result.cache_misses,
        "hit_rate": None if hit_rate is None else round(100.0 * hit_rate, 1),
        **writes,
    }


def ratio(value: float, floor: float) -> float | None:
    return round(value / floor, 3) if floor else None


# -- output -----------------------------------------------------------------------------

COLUMNS = (
    ("scenario", "scenario", "{}"),
    ("body_bytes", "bytes", "{}"),
    ("requests", "n", "{}"),
    ("req_per_s", "req/s", "{:.0f}"),
    ("req_per_s_ratio", "/floor", "{:.2f}"),
    ("p50_ms", "p50 ms", "{:.2f}"),
    ("p50_ratio", "/floor", "{:.1f}x"),
    ("p99_ms", "p99 ms", "{:.2f}"),
    ("p99_ratio", "/floor", "{:.1f}x"),
    ("floor_req_per_s", "floor req/s", "{:.0f}"),
    ("floor_p50_ms", "floor p50", "{:.2f}"),
    ("floor_p99_ms", "floor p99", "{:.2f}"),
    ("hit_rate", "hit %", "{:.1f}"),
    ("errors", "errors", "{}"),
)


def cells(row: dict[str, t.Any]) -> list[str]:
    return [fmt.format(row[key]) if row[key] is not None else "-" for key, _, fmt in COLUMNS]


def text_row(values: list[str], widths: list[int]) -> str:
    first = values[0].ljust(widths[0])
    return "  ".join([first, *(v.rjust(w) for v, w in zip(values[1:], widths[1:], strict=True))])


def text_table(rows: list[dict[str, t.Any]]) -> str:
    header = [title for _, title, _ in COLUMNS]
    body = [cells(row) for row in rows]
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    return "\n".join(text_row(line, widths) for line in [header, *body])


def markdown_table(rows: list[dict[str, t.Any]]) -> str:
    header = [title for _, title, _ in COLUMNS]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cells(row)) + " |" for row in rows]
    return "\n".join(lines)


def heading(meta: dict[str, t.Any]) -> str:
    return (
        f"N = {meta['events']:,} events, {meta['backend']}, {meta['connections']} connections, "
        f"threads = {meta['threads']} per process, app workers = "
        f"{','.join(map(str, meta['workers']))}, {meta['duration']:g} s per run "
        f"(+{meta['warmup']:g} s warm-up, max {meta['max_requests']:,} requests); "
        f"load average {meta['load_before']} before, {meta['load_after']} after; "
        f"load client {meta.get('client', 'python')}"
        + ("; workers with --reuse-port" if meta.get("reuse_port") else "")
    )


def write_results(meta: dict[str, t.Any], rows: list[dict[str, t.Any]]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    stem = RESULTS / f"{meta['timestamp']}-{meta['events']}"
    stem.with_suffix(".json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2))
    markdown = f"# calendar_rest benchmark\n\n{heading(meta)}\n\n{markdown_table(rows)}\n"
    notes = [writes_note(row) for row in rows if "writes" in row]
    if notes:
        markdown += "\n" + "".join(f"- {note}\n" for note in notes)
    if meta.get("scaling"):
        markdown += f"\n```text\n{scaling_table(meta['scaling'])}\n```\n"
    if meta.get("pages"):
        markdown += f"\n```text\n{pages_note(meta['pages'])}\n```\n"
    stem.with_suffix(".md").write_text(markdown)
    return stem


def writes_note(row: dict[str, t.Any]) -> str:
    """What the writer of a row did: ``mixed, under writes (cached): 3 writes ...``."""
    p50 = "-" if row["write_p50_ms"] is None else f"{row['write_p50_ms']:.1f} ms"
    return (
        f"{row['scenario']}: {row['writes']} writes, one every {row['write_interval']:g} s "
        f"({row['write_errors']} failed, p50 {p50}); cache hits {row['cache_hits']}, "
        f"misses {row['cache_misses']}"
    )


# -- orchestration ----------------------------------------------------------------------


def load_average() -> str:
    try:
        return "/".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - not on every platform
        return "n/a"


def run_size(
    events: int, template: str, scenarios: list[Scenario], settings: Settings, seed_value: int
) -> tuple[dict[str, t.Any], list[dict[str, t.Any]]]:
    """Seed, start both servers, measure every scenario, stop the servers."""
    url = template.format(n=events)
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    print(f"\n== N = {events:,}: seeding {display_url(url)}", flush=True)
    seeded = seed(url, events, seed=seed_value)
    print(
        "  reused the existing database"
        if seeded["skipped"]
        else f"  seeded in {seeded['seconds']:.1f} s",
        flush=True,
    )
    facts = inspect(url, seed_value, settings.single_ids)
    target = prepare_writes(url, facts) if any(s.writes for s in scenarios) else None
    today = dt.datetime.now(dt.timezone.utc).date()
    if facts.earliest_start and abs((facts.earliest_start.date() - today).days + 365) > 7:
        print(
            f"  warning: seeded relative to another day (earliest start "
            f"{facts.earliest_start:%Y-%m-%d}); delete the database to re-anchor it"
        )
    meta: dict[str, t.Any] = {
        "timestamp": time.strftime("%Y%m%d-%H%M%S"),
        "events": events,
        "backend": display_url(url),
        "seeding": seeded,
        "category": facts.category,
        "search": COMMON_WORD,
        **dataclasses.asdict(settings),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_before": load_average(),
    }
    rows = []
    floor_port, project_floor_port = free_port(), free_port()
    floor_servers = (
        Server("waitress", floor_command(floor_port, settings.threads), floor_port),
        Server(
            "serve",
            floor_command(project_floor_port, settings.threads, PROJECT_FLOOR_SERVER),
            project_floor_port,
        ),
    )
    with contextlib.ExitStack() as stack:
        floor = [stack.enter_context(server) for server in floor_servers]
        servers = {}  # (workers, label) -> server
        for workers in settings.workers:
            for label, cache in (("cold", False), ("cached", True)):
                port = free_port()
                command = app_command(
                    url, port, settings.threads, cache, workers, settings.reuse_port
                )
                server = Server(f"{label} app, {workers} worker(s)", command, port)
                servers[workers, label] = stack.enter_context(server)
                print(f"  {server.name}: {server.base}", flush=True)
        print(
            f"  floors {', '.join(server.base for server in floor)}; "
            f"category {facts.category!r}, search {COMMON_WORD!r}",
            flush=True,
        )
        widths = [33, 6, 6, 6, 6, 7, 7, 7, 7, 11, 9, 9, 5, 6]
        print(text_row([title for _, title, _ in COLUMNS], widths), flush=True)
        for scenario in scenarios:
            for (workers, label), server in servers.items():
                if scenario.key == "pages":
                    suffix = worker_label(settings, workers)
                    rows_of_pages = page_rows(scenario, server, floor, settings, label, suffix)
                    for row in rows_of_pages:
                        row["workers"] = workers
                        rows.append(row)
                        print(text_row(cells(row), widths), flush=True)
                    continue
                paths = scenario_paths(scenario.key, facts, server.base, today)
                if scenario.key == "single" and label == "cached":
                    paths = paths[:CACHED_SINGLE_IDS]  # a hot set the warm-up fills
                row = measure(scenario, paths, server, floor, settings, target)
                row["scenario"] = f"{scenario.name} ({label}{worker_label(settings, workers)})"
                row["workers"] = workers
                row["cache"] = label
                rows.append(row)
                print(text_row(cells(row), widths), flush=True)
                if "writes" in row:
                    print(f"  {writes_note(row)}", flush=True)
    meta["load_after"] = load_average()
    meta.update(page_verdicts(rows))
    if len(settings.workers) > 1:
        meta["scaling"] = scaling(rows, settings.workers)
        print(f"\n{scaling_table(meta['scaling'])}", flush=True)
    stem = write_results(meta, rows)
    print(f"  written {stem}.json and .md", flush=True)
    return meta, rows


def worker_label(settings: Settings, workers: int) -> str:
    """``, 2 workers`` in a scenario's name when several counts are compared."""
    if settings.workers == (1,):
        return ""
    return f", {workers} worker{'s' if workers > 1 else ''}"


def scaling(rows: list[dict[str, t.Any]], counts: tuple[int, ...]) -> list[dict[str, t.Any]]:
    """Per scenario and cache mode: req/s with each worker count over req/s with the
    first count, raw and as the ratio of their /floor ratios (each row's floor was
    measured just before it, so the second one discounts drift in the machine's load)."""
    first, table = counts[0], []
    by_key = {(row["path"], row["cache"], row["workers"]): row for row in rows}
    for row in rows:
        if row["workers"] != first:
            continue
        for count in counts[1:]:
            other = by_key.get((row["path"], row["cache"], count))
            if other is None:
                continue
            table.append(
                {
                    "scenario": row["scenario"].rsplit(",", 1)[0] + ")",
                    "workers": f"{count} vs {first}",
                    "req_per_s": (row["req_per_s"], other["req_per_s"]),
                    "speedup": ratio(other["req_per_s"], row["req_per_s"]),
                    "floor_ratios": (row["req_per_s_ratio"], other["req_per_s_ratio"]),
                    "speedup_vs_floor": ratio(
                        other["req_per_s_ratio"] or 0.0, row["req_per_s_ratio"] or 0.0
                    ),
                }
            )
    return table


def scaling_table(table: list[dict[str, t.Any]]) -> str:
    header = ["scenario", "workers", "req/s", "speedup", "/floor", "speedup of /floor"]
    lines = [
        [
            entry["scenario"],
            entry["workers"],
            "{:.0f} -> {:.0f}".format(*entry["req_per_s"]),
            "-" if entry["speedup"] is None else f"{entry['speedup']:.2f}x",
            "{} -> {}".format(*entry["floor_ratios"]),
            "-" if entry["speedup_vs_floor"] is None else f"{entry['speedup_vs_floor']:.2f}x",
        ]
        for entry in table
    ]
    widths = [max(len(line[i]) for line in [header, *lines]) for i in range(len(header))]
    body = "\n".join(text_row(line, widths) for line in [header, *lines])
    return f"Core scaling (the same floor server, one waitress process, for every row):\n{body}"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        default="10000,100000,1000000",
        help="comma-separated event counts N (default 10000,100000,1000000)",
    )
    parser.add_argument("--connections", type=int, default=16, help="client connections")
    parser.add_argument("--threads", type=int, default=8, help="waitress threads (both servers)")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per measured run")
    parser.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds first")
    parser.add_argument(
        "--max-requests", type=int, default=200_000, help="measured requests per run at most"
    )
    parser.add_argument(
        "--backend-url",
        default=DEFAULT_BACKEND,
        metavar="URL-TEMPLATE",
        help="database URL with {n} for N (default bench/data/events-{n}.db)",
    )
    parser.add_argument(
        "--scenarios",
        default=",".join(s.key for s in SCENARIOS),
        help="subset of: " + ", ".join(s.key for s in SCENARIOS),
    )
    parser.add_argument("--seed", type=int, default=42, help="seeder random seed")
    parser.add_argument(
        "--single-ids",
        type=int,
        default=SINGLE_IDS,
        help=f"distinct IDs the single-event scenario cycles through (default {SINGLE_IDS})",
    )
    parser.add_argument(
        "--workers",
        default="1",
        help="comma-separated worker process counts of the app (serve --workers), "
        "e.g. 1,2 to print the core scaling (default 1)",
    )
    parser.add_argument(
        "--write-interval",
        type=float,
        default=1.0,
        help="seconds between two writes of the mixed scenario (default 1)",
    )
    parser.add_argument(
        "--reuse-port",
        action="store_true",
        help="with --workers above 1: serve --reuse-port (each worker its own socket, "
        "the kernel spreads the connections)",
    )
    parser.add_argument(
        "--client",
        choices=("python", "wrk"),
        default="python",
        help="load client: python (bench/load.py, the default) or wrk (Debian's wrk, "
        "far cheaper per request: it shows what the python client cannot once a server "
        "is as fast as the floor, such as cached reads on several workers)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="smoke run (under a minute): N = 10000, 0.6 s per run"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.duration, args.warmup = "10000", 0.6, 0.2
        args.write_interval = min(args.write_interval, 0.25)
    by_key = {s.key: s for s in SCENARIOS}
    wanted = [key.strip() for key in args.scenarios.split(",") if key.strip()]
    unknown = [key for key in wanted if key not in by_key]
    if unknown:
        parser.error(f"unknown scenario(s) {', '.join(unknown)}; choose from {', '.join(by_key)}")
    args.scenario_list = [by_key[key] for key in wanted]
    try:
        args.size_list = [int(size) for size in args.sizes.split(",") if size.strip()]
        args.worker_counts = tuple(int(n) for n in args.workers.split(",") if n.strip())
    except ValueError:
        parser.error("--sizes and --workers take comma-separated integers")
    if not args.worker_counts or min(args.worker_counts) < 1:
        parser.error("--workers takes positive integers")
    if "{n}" not in args.backend_url:
        parser.error("--backend-url needs {n}: each N gets its own database")
    if min(args.connections, args.threads, args.max_requests, args.single_ids, *args.size_list) < 1:
        parser.error("sizes, connections, threads, max requests and IDs must be positive")
    if not args.write_interval > 0:
        parser.error("--write-interval must be a positive number of seconds")
    if args.client == "wrk" and not wrk_available():
        parser.error("--client wrk: wrk is not installed (Debian: apt-get install wrk)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    settings = Settings(
        args.connections,
        args.threads,
        args.duration,
        args.warmup,
        args.max_requests,
        args.single_ids,
        args.worker_counts,
        args.write_interval,
        args.client,
        args.reuse_port,
    )
    results = []
    for events in args.size_list:
        results.append(run_size(events, args.backend_url, args.scenario_list, settings, args.seed))
    print(
        "\n== Summary (ratios: app / floor; req/s below 1 and latencies above 1 are the "
        "app's own cost)"
    )
    for meta, rows in results:
        print(f"\n{heading(meta)}\n{text_table(rows)}")
        for row in rows:
            if "writes" in row:
                print(writes_note(row))
        if meta.get("scaling"):
            print(f"\n{scaling_table(meta['scaling'])}")
        if meta.get("pages"):
            print(f"\n{pages_note(meta['pages'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
