"""What the rate limits cost a cached read (``anchors.md`` §3: under 3 % of its throughput).

On ``calendar-rest demo``'s data, in a temporary SQLite database, two measurements,
each comparing the limits off (the default) with the recommended limits on, counted
in memory and raised so that nothing is refused (every request still takes a token
and gets its ``RateLimit`` headers; all come from one address, so they share one
bucket and its lock, the worst case):

1. over HTTP, the target: two ``calendar-rest serve`` processes on the same database,
   one with the limits and one without, loaded in turn with the anonymous cached read
   of ``GET /events`` (``load.py``), in alternating rounds of one run. Each round gives
   the requests a second and the server's CPU time a request (``/proc``): the cost in
   throughput of a CPU-bound server is 1 - off/on of the median of the rounds' CPU
   ratios (requests a second are printed too, but on a shared machine the other
   processes move them far more than a few µs do);
2. in-process, the absolute figure: CPU µs (this thread's) per cached hit of the WSGI
   callable alone, off and on, in alternating rounds (no server: the limiter's share is
   as large as it gets there).

The verdict (exit 1 at 3 % or more) is the estimate: the in-process CPU the limits add,
over the server's CPU a cached read (off); the direct A/B ratios are printed beside it,
and ``--control`` shows how far two identical servers differ on the machine as it is.
Servers listen on 127.0.0.1 and are always stopped.

    python bench/rate_limits.py
    python bench/rate_limits.py --rounds 7 --duration 3 --connections 16 --threads 8
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import http.client
import json
import os
import statistics
import sys
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
#: the most a limited cached read may cost over an unlimited one, in throughput
TARGET_COST = 0.03
#: limits on, and never reached by the measurement
LIMITS: dict[str, t.Any] = {
    "rate_limit_anonymous": 10**9,
    "rate_limit_authenticated": 10**9,
    "rate_limit_writes": 10**9,
}


@contextlib.contextmanager
def limits_in_environment(on: bool) -> t.Iterator[None]:
    """``CALENDAR_REST_RATE_LIMIT_*`` set (or not) for a server started meanwhile."""
    saved = dict(os.environ)
    for name, value in LIMITS.items():
        variable = f"CALENDAR_REST_{name.upper()}"
        if on:
            os.environ[variable] = str(value)
        else:
            os.environ.pop(variable, None)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def headers_of(base: str) -> dict[str, str]:
    """The headers of one anonymous ``GET /events`` (checked to be a 200)."""
    connection = http.client.HTTPConnection(HOST, int(base.rsplit(":", 1)[1]), timeout=10)
    try:
        connection.request("GET", EVENTS)
        response = connection.getresponse()
        response.read()
        assert response.status == 200, response.status
        return {name.lower(): value for name, value in response.getheaders()}
    finally:
        connection.close()


def over_http(url: str, args: argparse.Namespace) -> dict[str, t.Any]:
    """Requests a second of the cached read, limits off and on, alternating rounds."""
    servers = []
    with contextlib.ExitStack() as stack:
        for on in (False, True):
            with limits_in_environment(on and not args.control):
                port = free_port()
                command = app_command(url, port, args.threads)
                servers.append(stack.enter_context(Server(f"limits {on}", command, port)))
        off, on_server = servers
        for server in servers:  # stored in each one's cache
            headers_of(server.base)
        assert "ratelimit" not in headers_of(off.base)
        assert ("ratelimit" in headers_of(on_server.base)) != args.control
        rates: dict[str, list[float]] = {"off": [], "on": []}
        cpu: dict[str, list[float]] = {"off": [], "on": []}
        for turn in range(args.rounds):
            order = [("off", off), ("on", on_server)]
            for kind, server in order if turn % 2 == 0 else reversed(order):
                rate, cpu_us = measure(server, args)
                rates[kind].append(rate)
                cpu[kind].append(cpu_us)
    rate_ratios = [pair[1] / pair[0] for pair in zip(rates["off"], rates["on"], strict=True)]
    cpu_ratios = [pair[1] / pair[0] for pair in zip(cpu["off"], cpu["on"], strict=True)]
    return {
        "off_req_per_s": [round(rate, 1) for rate in rates["off"]],
        "on_req_per_s": [round(rate, 1) for rate in rates["on"]],
        "off_cpu_us": [round(value, 1) for value in cpu["off"]],
        "on_cpu_us": [round(value, 1) for value in cpu["on"]],
        "req_per_s_on_over_off": round(statistics.median(rate_ratios), 4),
        "cpu_on_over_off": round(statistics.median(cpu_ratios), 4),
        "cost": round(1 - 1 / statistics.median(cpu_ratios), 4),
    }


def measure(server: Server, args: argparse.Namespace) -> tuple[float, float]:
    """One round on ``server``: requests a second, and the server's CPU µs a request
    (``/proc``; what its throughput is once the CPU is the bound, whatever else the
    machine runs meanwhile)."""
    load = {"connections": args.connections, "max_requests": args.max_requests, "warmup": 0.0}
    server.wait_idle()
    run_load(server.base, [EVENTS], duration=args.warmup, **load)  # connections warm
    before = sum(_tree_ticks(server.process.pid))
    result = run_load(server.base, [EVENTS], duration=args.duration, **load)
    ticks = sum(_tree_ticks(server.process.pid)) - before
    if result.errors:
        raise SystemExit(f"{server.name}: {result.errors} request(s) failed")
    return result.req_per_s, ticks / os.sysconf("SC_CLK_TCK") * 1e6 / result.requests


def in_process(off: Application, on: Application, rounds: int, requests: int) -> dict[str, t.Any]:
    """CPU µs per anonymous cache hit of the WSGI callable, limits off and on."""
    base = environ(EVENTS, None)
    for app in (off, on):
        get(app, base)
        assert get(app, base)[0].get("x-calendar-cache") == "hit"
    costs: dict[str, list[float]] = {"off": [], "on": []}
    for turn in range(rounds):
        order = [("off", off), ("on", on)]
        for kind, app in order if turn % 2 == 0 else reversed(order):
            started = time.thread_time()  # this thread's CPU: what else runs matters less
            for _ in range(requests):
                get(app, base)
            costs[kind].append((time.thread_time() - started) / requests * 1e6)
    off_us, on_us = statistics.median(costs["off"]), statistics.median(costs["on"])
    return {
        "off_us": round(off_us, 2),
        "on_us": round(on_us, 2),
        "added_us": round(on_us - off_us, 2),
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds per app")
    parser.add_argument("--duration", type=float, default=2.0, help="seconds per HTTP round")
    parser.add_argument("--warmup", type=float, default=0.5, help="unmeasured seconds first")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--threads", type=int, default=8, help="server threads")
    parser.add_argument("--max-requests", type=int, default=200_000)
    parser.add_argument("--requests", type=int, default=20_000, help="in-process hits per round")
    parser.add_argument(
        "--control",
        action="store_true",
        help="both servers without limits: the noise of the method, as a cost",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="calendar-rest-rate-limits-") as directory:
        url = f"sqlite:///{directory}/demo.db"
        off = create_app(url)
        load_demo(off.database)
        on = create_app(url, **LIMITS)
        local = in_process(off, on, args.rounds, args.requests)
        for app in (off, on):
            app.database.close()
        served = over_http(url, args)
    #: the limiter adds CPU in-process and nothing else (no I/O): its share of what a
    #: served cached read costs the server is its cost in a CPU-bound server's throughput
    estimate = local["added_us"] / statistics.median(served["off_cpu_us"])
    served["estimated_cost"] = round(estimate, 4)
    met = estimate < TARGET_COST
    print(
        f"in-process cached hit of {EVENTS}: off {local['off_us']:.2f} µs, "
        f"on {local['on_us']:.2f} µs (+{local['added_us']:.2f} µs)"
    )
    print(f"over HTTP, req/s off: {served['off_req_per_s']}")
    print(f"over HTTP, req/s on:  {served['on_req_per_s']}")
    print(f"server CPU µs a request, off: {served['off_cpu_us']}")
    print(f"server CPU µs a request, on:  {served['on_cpu_us']}")
    print(
        f"on/off, medians of the rounds' ratios: req/s {served['req_per_s_on_over_off']:.4f}, "
        f"CPU a request {served['cpu_on_over_off']:.4f} (measured cost "
        f"{100 * served['cost']:.1f} %)"
    )
    print(
        f"estimated cost: +{local['added_us']:.2f} µs of "
        f"{statistics.median(served['off_cpu_us']):.1f} µs = {100 * estimate:.1f} % "
        f"(target under {100 * TARGET_COST:.0f} %: {'met' if met else 'NOT met'})"
    )
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    result = {"in_process": local, "http": served, "settings": vars(args), "target": TARGET_COST}
    (RESULTS / f"{stamp}-rate-limits.json").write_text(json.dumps(result, indent=2))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
