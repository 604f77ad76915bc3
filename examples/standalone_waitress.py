"""Serve calendar_rest with waitress on 127.0.0.1, the way ``calendar-rest serve`` does.

    python examples/standalone_waitress.py --port 8080 [--database URL]

``--once`` starts the server on a background thread, makes one request to it with
urllib and stops: a self-check (``--port 0`` picks a free port). Without
``--database``, ``--once`` uses a throwaway SQLite file rather than the default one.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import typing as t
import urllib.request
from pathlib import Path

import waitress
from waitress import wasyncore

from calendar_rest import create_app, create_schema

EVENTS = "/calendar/events/v1/events"


def poll_until(server: t.Any, stop: threading.Event) -> None:
    """Serve in short slices until ``stop``, then shut down on this same thread
    (closing the sockets from another thread would race with the poll)."""
    socket_map = server._map
    try:
        while not stop.is_set():
            wasyncore.loop(timeout=0.05, map=socket_map, count=1)
    finally:
        server.task_dispatcher.shutdown(timeout=5)
        wasyncore.close_all(socket_map)


def run_once(database_url: str, port: int) -> int:
    """Start, make one request, stop; 0 when the listing answered 200 with JSON."""
    app = create_app(database_url)
    create_schema(app.database)
    server = waitress.create_server(app, host="127.0.0.1", port=port, threads=2)
    stop = threading.Event()
    thread = threading.Thread(target=poll_until, args=(server, stop))
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.effective_port}{EVENTS}"  # type: ignore[union-attr]
        with urllib.request.urlopen(url, timeout=10) as response:
            body = json.loads(response.read())
            print(f"GET {url} -> {response.status}, {body['total']} event(s)")
            ok = response.status == 200 and "events" in body
    finally:
        stop.set()
        thread.join(timeout=10)
        app.database.close()
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--database", default=None, help="database URL (default: as create_app)")
    parser.add_argument("--once", action="store_true", help="serve one request, then stop")
    args = parser.parse_args(argv)
    if args.once:
        if args.database:
            return run_once(args.database, args.port)
        with tempfile.TemporaryDirectory() as tmp:
            return run_once(f"sqlite:///{Path(tmp) / 'calendar.db'}", args.port)
    app = create_app(args.database)
    create_schema(app.database)
    print(f"Serving http://127.0.0.1:{args.port}{EVENTS}", flush=True)
    waitress.serve(app, host="127.0.0.1", port=args.port, threads=8)
    return 0


if __name__ == "__main__":
    sys.exit(main())
