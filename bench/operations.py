"""What the metrics and the access log cost a cached read (issue 34: under 3 % of its
throughput).

Observability off (settings ``metrics`` and ``access_log`` false:
``CALENDAR_REST_METRICS=0``, ``CALENDAR_REST_ACCESS_LOG=0``) against the defaults,
where every request is recorded in the Prometheus metrics and writes its JSON access
line, by ``overhead.py``'s method:

1. over HTTP, the verdict (exit 1 at 3 % or more): two ``calendar-rest serve
   --log-format json`` processes whose standard error goes to a file, as production
   sends it to journald or a collector. At the end the access lines in the files and
   the scrape of ``/-/metrics`` are counted: every measured request of the server
   with observability on wrote its line and was counted, and the other server wrote
   no line and has no ``/-/metrics``;
2. in-process: CPU µs per cached hit of the WSGI callable, with the JSON handler of
   ``serve`` (``telemetry.logs.configure``) writing to a file. The process's CPU, not
   this thread's: the metrics are folded in by a thread of their own.

``--control`` starts both servers with observability off; ``--metrics-only`` compares
the metrics alone (the access log off on both sides, ``operations.md`` §2's target).

    python bench/operations.py
    python bench/operations.py --rounds 9 --duration 3
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
import typing as t
from pathlib import Path

from overhead import Check, Feature, Variant, arguments, compare, get_path
from run import Server

from calendar_rest.telemetry import logs
from calendar_rest.telemetry.log_writer import FLUSH_SECONDS

SETTINGS = ("CALENDAR_REST_METRICS", "CALENDAR_REST_ACCESS_LOG")
JSON_LOGS = ("--log-format", "json")
OFF = Variant("observability off", dict.fromkeys(SETTINGS, "0"), JSON_LOGS)
ON = Variant("observability on", dict.fromkeys(SETTINGS), JSON_LOGS)
#: ``--metrics-only``: the metrics on, the access log still off
METRICS_ON = Variant("metrics on", {SETTINGS[0]: None, SETTINGS[1]: "0"}, JSON_LOGS)
#: what only an access line holds (the JSON of any other record has no ``route``)
ACCESS_MARK = b'"route":'
METRIC = "calendar_rest_http_requests_total"


def access_lines(server: Server, at_least: int = 0) -> int:
    """The access lines ``server`` has written to its log file, once there are
    ``at_least`` or the lines written in batches are all out (``log_writer``)."""
    deadline = time.monotonic() + 10 * FLUSH_SECONDS
    while True:
        # opened again: a file position of its own, not the one the server writes at
        with open(f"/proc/self/fd/{server.log.fileno()}", "rb") as log:
            count = sum(ACCESS_MARK in line for line in log)
        if count >= at_least or time.monotonic() > deadline:
            return count
        time.sleep(FLUSH_SECONDS)


def counted_requests(server: Server) -> float:
    """The requests ``server``'s ``/-/metrics`` counts, all routes summed."""
    status, _, body = get_path(server.base, "/-/metrics")
    assert status == 200, status
    samples = (line.split() for line in body.decode().splitlines() if line.startswith(METRIC))
    return sum(float(sample[-1]) for sample in samples)


def checked(logged: bool) -> Check:
    """The check of the servers: the one with observability on counted every measured
    request and, when ``logged``, wrote its access line; the one off did neither (with
    ``--control``, neither did)."""

    def check(off: Server, on: Server, sent: dict[str, int]) -> None:
        assert access_lines(off) == 0, f"{off.name} wrote access lines"
        assert get_path(off.base, "/-/metrics")[0] == 404
        if off.name == on.name:
            return
        expected = sent["on"] if logged else 0
        lines, counted = access_lines(on, expected), counted_requests(on)
        assert lines >= expected and (logged or not lines), f"{lines} access lines"
        assert counted >= sent["on"], f"{counted} requests counted for {sent['on']}"
        print(f"{on.name}: {lines} access lines written and {counted:.0f} requests counted")

    return check


def json_log(logged: bool) -> t.Callable[[Path, argparse.Namespace], t.ContextManager[None]]:
    """What runs around the in-process rounds: every log line in JSON to a file
    (``serve``'s handler), and afterwards an access line per request of the app with
    observability on when ``logged``, else none."""

    @contextlib.contextmanager
    def logging_to_a_file(directory: Path, args: argparse.Namespace) -> t.Iterator[None]:
        path = directory / "access.log"
        with path.open("w") as log:
            logs.configure("json", log)
            try:
                yield
            finally:
                logs.unconfigure()  # its last lines written
        with path.open("rb") as log:
            written = sum(ACCESS_MARK in line for line in log)
        expected = args.rounds * args.requests if logged else 0
        assert written >= expected and (logged or not written), f"{written} access lines"

    return logging_to_a_file


def main(argv: list[str] | None = None) -> int:
    control = "both servers with observability off: the noise of the method, as a cost"
    parser = arguments(__doc__.split("\n\n")[0], control)
    parser.add_argument(
        "--metrics-only",
        action="store_true",
        help="the metrics alone (operations.md §2's target): the access log off on both",
    )
    args = parser.parse_args(argv)
    logged = not args.metrics_only
    feature = Feature(
        "operations" if logged else "metrics",
        off_settings={"metrics": False, "access_log": False},
        on_settings={} if logged else {"access_log": False},
        off=OFF,
        on=ON if logged else METRICS_ON,
        check=checked(logged),
        around=json_log(logged),
        clock=time.process_time,
    )
    return compare(feature, args)


if __name__ == "__main__":
    sys.exit(main())
