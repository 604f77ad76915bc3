"""The app under a real waitress server on a free loopback port, in a thread."""

from __future__ import annotations

import contextlib
import threading
import typing as t

import waitress
from waitress import wasyncore


@contextlib.contextmanager
def running(app: t.Any, **adjustments: t.Any) -> t.Iterator[int]:
    """Serve ``app`` (waitress ``adjustments`` apart from host and port) while the block
    runs; yields the port. Stops by itself within seconds of the block's end."""
    settings = {"threads": 4, **adjustments, "host": "127.0.0.1", "port": 0}
    server = waitress.create_server(app, **settings)
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
