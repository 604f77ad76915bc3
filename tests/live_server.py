"""The app under a real waitress server on a free loopback port, in a thread: as
``calendar-rest serve`` runs it (:func:`serving`), or as a site embedding it in plain
waitress would (:func:`running`)."""

from __future__ import annotations

import contextlib
import threading
import typing as t

import waitress
from waitress import wasyncore

from calendar_rest.serving.server import waitress_server


@contextlib.contextmanager
def running(app: t.Any, **adjustments: t.Any) -> t.Iterator[int]:
    """Serve ``app`` under plain waitress (``adjustments`` apart from host and port)
    while the block runs; yields the port. Stops by itself within seconds of the
    block's end."""
    settings = {"threads": 4, **adjustments, "host": "127.0.0.1", "port": 0}
    with in_thread(waitress.create_server(app, **settings)) as port:
        yield port


@contextlib.contextmanager
def serving(app: t.Any, threads: int = 4) -> t.Iterator[int]:
    """Serve ``app`` as ``calendar-rest serve`` does (``calendar_rest.server``: its
    body limit, its connections) while the block runs; yields the port."""
    limit = app.settings.max_body_bytes
    with in_thread(waitress_server(app, "127.0.0.1", 0, threads, limit)) as port:
        yield port


@contextlib.contextmanager
def in_thread(server: t.Any) -> t.Iterator[int]:
    """Run a bound waitress ``server`` while the block runs; yields its port."""
    stop = threading.Event()
    thread = threading.Thread(target=_serve_until, args=(server, stop), name="waitress")
    thread.start()
    try:
        yield int(server.effective_port)  # type: ignore[union-attr]
    finally:
        stop.set()
        thread.join(timeout=10)
        assert not thread.is_alive(), "waitress did not stop"


def _serve_until(server: t.Any, stop: threading.Event) -> None:
    """Serve in short slices until ``stop``, then tidy up on this same thread.

    ``server.close()`` from another thread races with the poll (EBADF in the loop) and
    leaves client sockets unclosed; shutting down where the loop runs does neither.
    """
    socket_map = server._map
    try:
        while not stop.is_set():
            wasyncore.loop(timeout=0.05, map=socket_map, count=1)
    finally:
        server.task_dispatcher.shutdown(timeout=5)  # in-flight requests finish first
        wasyncore.close_all(socket_map)
