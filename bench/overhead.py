"""What a feature costs the cached read: the method ``rate_limits.py`` and
``operations.py`` share (``anchors.md`` §3, issue 34: under 3 % of its throughput).

Two measurements, each comparing the feature off with the feature on, on
``calendar-rest demo``'s data in one temporary SQLite database:

1. over HTTP, the target (:func:`over_http`): two ``calendar-rest serve`` processes on
   the same database, differing only in the feature's settings, started anew each
   round (:func:`serving`) and loaded in turn, in alternating order, with the
   anonymous cached read of ``GET /events`` (``load.py``). Each round gives the
   requests a second and the server's CPU time a request (``/proc``): the cost in
   throughput of a CPU-bound server is 1 - off/on of
   the median of the rounds' CPU ratios (requests a second are printed too, but on a
   shared machine the other processes move them far more than a few µs do);
2. in-process, the absolute figure (:func:`in_process`): CPU µs per cached hit of the
   WSGI callable alone, off and on, in alternating rounds; its difference over the
   server's CPU a request (off) is an estimate of (1), printed beside it.

The verdict (:func:`report`, exit 1 at the target or above) is (1); ``--control`` runs
both servers alike, which shows how far the method's noise goes on the machine as it
is. Servers listen on 127.0.0.1 and are always stopped.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as dt
import http.client
import json
import os
import statistics
import tempfile
import time
import typing as t
from pathlib import Path

from load import run_load
from run import EVENTS, HOST, Server, _tree_ticks, app_command, free_port
from transfer import environ, get

from calendar_rest import create_app
from calendar_rest.app import Application
from calendar_rest.importing.demo import load_demo

RESULTS = Path(__file__).resolve().parent / "results"
#: the most a feature may cost a cached read, in throughput
TARGET_COST = 0.03


@dataclasses.dataclass(frozen=True)
class Variant:
    """One server's set-up: environment variables set (a value) or removed (None),
    and arguments added to its ``serve``."""

    name: str
    variables: t.Mapping[str, str | None] = dataclasses.field(default_factory=dict)
    serve_args: tuple[str, ...] = ()


@contextlib.contextmanager
def environment(variables: t.Mapping[str, str | None]) -> t.Iterator[None]:
    """``variables`` set (or removed) for a server started meanwhile."""
    saved = dict(os.environ)
    for name, value in variables.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def get_path(base: str, path: str) -> tuple[int, dict[str, str], bytes]:
    """One ``GET``: status, headers (lower-cased names) and body."""
    connection = http.client.HTTPConnection(HOST, int(base.rsplit(":", 1)[1]), timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        headers = {name.lower(): value for name, value in response.getheaders()}
        return response.status, headers, body
    finally:
        connection.close()


def headers_of(base: str) -> dict[str, str]:
    """The headers of one anonymous ``GET /events`` (checked to be a 200)."""
    status, headers, _ = get_path(base, EVENTS)
    assert status == 200, status
    return headers


#: what checks the two servers once the rounds are over: off, on, and the requests
#: each one answered in the measured rounds
Check = t.Callable[[Server, Server, dict[str, int]], None]


def over_http(
    url: str, args: argparse.Namespace, off: Variant, on: Variant, check: Check
) -> dict[str, t.Any]:
    """Requests a second and server CPU a request of the cached read, ``off`` and
    ``on`` (``off`` twice with ``--control``), alternating rounds, each round on two
    servers started for it (see :func:`serving`)."""
    rates: dict[str, list[float]] = {"off": [], "on": []}
    cpu: dict[str, list[float]] = {"off": [], "on": []}
    for turn in range(args.rounds):
        order = [("off", off), ("on", off if args.control else on)]
        order = order if turn % 2 == 0 else order[::-1]
        with serving(url, args, [variant for _, variant in order]) as servers:
            sent = {"off": 0, "on": 0}
            for (kind, _), server in zip(order, servers, strict=True):
                rate, cpu_us, requests = measure(server, args)
                rates[kind].append(rate)
                cpu[kind].append(cpu_us)
                sent[kind] = requests
            off_server, on_server = servers if turn % 2 == 0 else servers[::-1]
            check(off_server, on_server, sent)
    rate_ratios = [pair[1] / pair[0] for pair in zip(rates["off"], rates["on"], strict=True)]
    cpu_ratios = [pair[1] / pair[0] for pair in zip(cpu["off"], cpu["on"], strict=True)]
    return {
        "off_req_per_s": [round(rate, 1) for rate in rates["off"]],
        "on_req_per_s": [round(rate, 1) for rate in rates["on"]],
        "off_cpu_us": [round(value, 1) for value in cpu["off"]],
        "on_cpu_us": [round(value, 1) for value in cpu["on"]],
        "cpu_ratios": [round(value, 4) for value in sorted(cpu_ratios)],
        "req_per_s_on_over_off": round(statistics.median(rate_ratios), 4),
        "cpu_on_over_off": round(statistics.median(cpu_ratios), 4),
        "cost": round(1 - 1 / statistics.median(cpu_ratios), 4),
    }


@contextlib.contextmanager
def serving(
    url: str, args: argparse.Namespace, variants: list[Variant]
) -> t.Iterator[list[Server]]:
    """A server of each variant, started in that order, its cache holding the read.

    Fresh servers every round: two processes alike differ by up to 10 % in CPU a
    request on a shared machine, for as long as they run (where the kernel placed
    them, their memory's layout); new ones each round turn that difference into
    noise the median of the rounds discounts, instead of a cost."""
    with contextlib.ExitStack() as stack:
        servers = []
        for variant in variants:
            with environment(variant.variables):
                port = free_port()
                command = [*app_command(url, port, args.threads), *variant.serve_args]
                servers.append(stack.enter_context(Server(variant.name, command, port)))
        for server in servers:
            headers_of(server.base)
        yield servers


def measure(server: Server, args: argparse.Namespace) -> tuple[float, float, int]:
    """One round on ``server``: requests a second, the server's CPU µs a request
    (``/proc``; what its throughput is once the CPU is the bound, whatever else the
    machine runs meanwhile), and the requests measured."""
    load = {"connections": args.connections, "max_requests": args.max_requests, "warmup": 0.0}
    server.wait_idle()
    run_load(server.base, [EVENTS], duration=args.warmup, **load)  # connections warm
    before = sum(_tree_ticks(server.process.pid))
    result = run_load(server.base, [EVENTS], duration=args.duration, **load)
    ticks = sum(_tree_ticks(server.process.pid)) - before
    if result.errors:
        raise SystemExit(f"{server.name}: {result.errors} request(s) failed")
    cpu_us = ticks / os.sysconf("SC_CLK_TCK") * 1e6 / result.requests
    return result.req_per_s, cpu_us, result.requests


def in_process(
    off: Application,
    on: Application,
    args: argparse.Namespace,
    clock: t.Callable[[], float] = time.thread_time,
) -> dict[str, t.Any]:
    """CPU µs (by ``clock``: this thread's by default, what else runs matters less)
    per anonymous cache hit of the WSGI callable, ``off`` and ``on``."""
    base = environ(EVENTS, None)
    for app in (off, on):
        get(app, base)
        assert get(app, base)[0].get("x-calendar-cache") == "hit"
    costs: dict[str, list[float]] = {"off": [], "on": []}
    for turn in range(args.rounds):
        order = [("off", off), ("on", on)]
        for kind, app in order if turn % 2 == 0 else reversed(order):
            started = clock()
            for _ in range(args.requests):
                get(app, base)
            costs[kind].append((clock() - started) / args.requests * 1e6)
    off_us, on_us = statistics.median(costs["off"]), statistics.median(costs["on"])
    return {
        "off_us_rounds": [round(value, 2) for value in costs["off"]],
        "on_us_rounds": [round(value, 2) for value in costs["on"]],
        "off_us": round(off_us, 2),
        "on_us": round(on_us, 2),
        "added_us": round(on_us - off_us, 2),
    }


@dataclasses.dataclass(frozen=True)
class Feature:
    """What is compared: its name, the app's settings and the servers' set-up off and
    on, how the servers are checked, and what runs around the in-process rounds (given
    a temporary directory and the arguments) with the CPU clock they read."""

    name: str
    off_settings: t.Mapping[str, t.Any]
    on_settings: t.Mapping[str, t.Any]
    off: Variant
    on: Variant
    check: Check
    around: t.Callable[[Path, argparse.Namespace], t.ContextManager[None]] = lambda *_: (
        contextlib.nullcontext()
    )
    clock: t.Callable[[], float] = time.thread_time


def compare(feature: Feature, args: argparse.Namespace) -> int:
    """Both measurements on a fresh copy of the demo data, then :func:`report`."""
    with tempfile.TemporaryDirectory(prefix=f"calendar-rest-{feature.name}-") as directory:
        url = f"sqlite:///{directory}/demo.db"
        off = create_app(url, **feature.off_settings)
        load_demo(off.database)
        on = create_app(url, **feature.on_settings)
        with feature.around(Path(directory), args):
            local = in_process(off, on, args, feature.clock)
        for app in (off, on):
            app.database.close()
        served = over_http(url, args, feature.off, feature.on, feature.check)
    return report(feature.name, local, served, args)


def arguments(description: str, control: str) -> argparse.ArgumentParser:
    """The options both benches take (``--control``: what ``control`` says)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds per app")
    parser.add_argument("--duration", type=float, default=2.0, help="seconds per HTTP round")
    parser.add_argument("--warmup", type=float, default=0.5, help="unmeasured seconds first")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--threads", type=int, default=8, help="server threads")
    parser.add_argument("--max-requests", type=int, default=200_000)
    parser.add_argument("--requests", type=int, default=20_000, help="in-process hits per round")
    parser.add_argument("--control", action="store_true", help=control)
    return parser


def spread(values: t.Sequence[float]) -> str:
    """The median of ``values`` and their range."""
    return f"{statistics.median(values):.1f} ({min(values):.1f}-{max(values):.1f})"


def report(
    feature: str, local: dict[str, t.Any], served: dict[str, t.Any], args: argparse.Namespace
) -> int:
    """Print the figures, save them to ``bench/results/<time>-<feature>.json`` and give
    the exit status: 0 when the cost over HTTP is under :data:`TARGET_COST`."""
    #: the feature's in-process CPU over what a served cached read costs the server
    estimate = local["added_us"] / statistics.median(served["off_cpu_us"])
    served["estimated_cost"] = round(estimate, 4)
    met = served["cost"] < TARGET_COST
    print(
        f"in-process cached hit of {EVENTS}: off {local['off_us']:.2f} µs, "
        f"on {local['on_us']:.2f} µs (+{local['added_us']:.2f} µs)"
    )
    for kind in ("off", "on"):
        rates, cpu = served[f"{kind}_req_per_s"], served[f"{kind}_cpu_us"]
        print(f"over HTTP, {kind:3}: req/s {rates}, median {spread(rates)}")
        print(f"  server CPU µs a request {cpu}, median {spread(cpu)}")
    print(f"rounds' CPU ratios on/off: {served['cpu_ratios']}")
    print(
        f"estimated cost: +{local['added_us']:.2f} µs of "
        f"{statistics.median(served['off_cpu_us']):.1f} µs = {100 * estimate:.1f} %"
    )
    print(
        f"on/off, medians of the rounds' ratios: req/s {served['req_per_s_on_over_off']:.4f}, "
        f"CPU a request {served['cpu_on_over_off']:.4f}: cost over HTTP "
        f"{100 * served['cost']:.1f} %{' (control: both off)' if args.control else ''} "
        f"(target under {100 * TARGET_COST:.0f} %: {'met' if met else 'NOT met'})"
    )
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    result = {"in_process": local, "http": served, "settings": vars(args), "target": TARGET_COST}
    (RESULTS / f"{stamp}-{feature}.json").write_text(json.dumps(result, indent=2))
    return 0 if met else 1
