"""What gzip saves on the wire, and what it costs a cached answer, on the demo data.

Loads ``calendar-rest demo`` into a fresh SQLite database, builds the app in-process
(no server, no socket) and, for a few reads, compares the body a request without
``Accept-Encoding`` gets with the one a request with ``Accept-Encoding: gzip`` gets:
bytes and ratio (``site.md`` §5 asks at least 4x for the default events list; the
script exits 1 below it). Then it times the anonymous cache hit of ``GET /events``,
identity and gzip in alternating rounds of the same run, and gives their ratio.
``--levels`` also prints the size and compression time of the default list at each
zlib level (what ``edge/encoding.py`` chose its level from).

    python bench/transfer.py
    python bench/transfer.py --rounds 9 --requests 4000 --levels
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import io
import json
import statistics
import sys
import tempfile
import time
import typing as t
from pathlib import Path

from calendar_rest import create_app
from calendar_rest.app import Application
from calendar_rest.importing.demo import load_demo

RESULTS = Path(__file__).resolve().parent / "results"
NS = "/calendar/events/v1"
DEFAULT_LIST = f"{NS}/events"
#: ``site.md`` §5: gzip cuts a default events list's transfer at least this much
TARGET_RATIO = 4.0
GZIP = "gzip, deflate, br"


def environ(path: str, accept_encoding: str | None) -> dict[str, t.Any]:
    """A bare GET's WSGI environ (copied per call: the app may write to it)."""
    route, _, query = path.partition("?")
    built: dict[str, t.Any] = {
        "REQUEST_METHOD": "GET",
        "SCRIPT_NAME": "",
        "PATH_INFO": route,
        "QUERY_STRING": query,
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "localhost",
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": sys.stderr,
        "wsgi.version": (1, 0),
        "wsgi.multithread": False,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    if accept_encoding:
        built["HTTP_ACCEPT_ENCODING"] = accept_encoding
    return built


def get(app: Application, base: dict[str, t.Any]) -> tuple[dict[str, str], bytes]:
    """One request: its headers (lower-cased names) and its body as sent."""
    started: list[list[tuple[str, str]]] = []

    def start_response(
        status: str, headers: list[tuple[str, str]], exc_info: t.Any = None
    ) -> t.Any:
        started.append(headers)

    body = b"".join(app(dict(base), start_response))
    return {name.lower(): value for name, value in started[0]}, body


def transfer(app: Application, path: str) -> dict[str, t.Any]:
    """The bytes of ``path`` sent plain and gzipped, checked to decode to the same."""
    _, plain = get(app, environ(path, None))
    headers, zipped = get(app, environ(path, GZIP))
    encoded = headers.get("content-encoding") == "gzip"
    if encoded and gzip.decompress(zipped) != plain:
        raise SystemExit(f"{path}: the gzip body does not decode to the identity body")
    return {
        "path": path,
        "identity_bytes": len(plain),
        "gzip_bytes": len(zipped),
        "gzipped": encoded,
        "ratio": round(len(plain) / len(zipped), 2),
    }


def hit_cost(app: Application, rounds: int, requests: int) -> dict[str, float]:
    """µs per anonymous cache hit of the default list, identity and gzip, each the
    median of ``rounds`` alternating rounds of ``requests`` calls."""
    kinds = {"identity": environ(DEFAULT_LIST, None), "gzip": environ(DEFAULT_LIST, GZIP)}
    for base in kinds.values():  # stored, and its gzip variant made
        headers, _ = get(app, base)
        get(app, base)
    costs: dict[str, list[float]] = {kind: [] for kind in kinds}
    for _ in range(rounds):
        for kind, base in kinds.items():
            started = time.perf_counter()
            for _ in range(requests):
                get(app, base)
            costs[kind].append((time.perf_counter() - started) / requests * 1e6)
    identity = statistics.median(costs["identity"])
    zipped = statistics.median(costs["gzip"])
    return {
        "identity_us": round(identity, 2),
        "gzip_us": round(zipped, 2),
        "gzip_over_identity": round(zipped / identity, 3),
    }


def levels(app: Application) -> list[dict[str, t.Any]]:
    """The default list compressed at each zlib level: bytes and µs (best of 20)."""
    _, plain = get(app, environ(DEFAULT_LIST, None))
    rows = []
    for level in range(1, 10):
        best = float("inf")
        for _ in range(20):
            started = time.perf_counter()
            size = len(gzip.compress(plain, compresslevel=level, mtime=0))
            best = min(best, time.perf_counter() - started)
        rows.append({"level": level, "bytes": size, "us": round(best * 1e6, 1)})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="timed rounds per encoding")
    parser.add_argument("--requests", type=int, default=2000, help="cache hits per round")
    parser.add_argument("--levels", action="store_true", help="also compare zlib levels")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="calendar-rest-transfer-") as directory:
        app = create_app(f"sqlite:///{directory}/demo.db")
        load_demo(app.database)
        event = json.loads(get(app, environ(DEFAULT_LIST, None))[1])["events"][0]["id"]
        paths = [DEFAULT_LIST, f"{NS}/events/{event}", f"{NS}/events.ics", f"{NS}/venues"]
        rows = [transfer(app, path) for path in paths]
        cost = hit_cost(app, args.rounds, args.requests)
        compared = levels(app) if args.levels else []
        app.database.close()
    print(f"{'path':<40} {'identity':>9} {'gzip':>7} {'ratio':>6}")
    for row in rows:
        print(
            f"{row['path']:<40} {row['identity_bytes']:>9,} {row['gzip_bytes']:>7,} "
            f"{row['ratio']:>5.2f}x"
        )
    print(
        f"anonymous cache hit of {DEFAULT_LIST}: identity {cost['identity_us']:.1f} µs, "
        f"gzip {cost['gzip_us']:.1f} µs ({cost['gzip_over_identity']:.3f}x)"
    )
    for row in compared:
        print(f"level {row['level']}: {row['bytes']:,} bytes in {row['us']:.0f} µs")
    ratio = rows[0]["ratio"]
    met = ratio >= TARGET_RATIO
    print(f"default list: {ratio:.2f}x (target {TARGET_RATIO:g}x: {'met' if met else 'NOT met'})")
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    result = {"rows": rows, "hit_cost": cost, "levels": compared, "target": TARGET_RATIO}
    (RESULTS / f"{stamp}-transfer.json").write_text(json.dumps(result, indent=2))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
