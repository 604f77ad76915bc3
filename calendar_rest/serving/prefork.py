"""Serve from several processes: gunicorn's pre-fork arbiter (the optional ``workers``
extra) forks the workers and replaces one that dies, and each worker runs the same
waitress server as a single process (``server.py``).

Why not gunicorn's own threaded worker (``gthread``): it costs far more per request.
Measured at 100,000 events on 2 cores with wrk, one gthread worker with 8 threads
served the cached default list at 1,960-2,260 req/s where one waitress process served
3,300-3,980, so two gthread workers barely passed one waitress process. The arbiter is
what is worth having: forking, replacing, signals, ``SO_REUSEPORT`` sockets.
"""

from __future__ import annotations

import logging
import os
import time
import typing as t

from ..settings import Settings
from .open_files import open_files_for
from .server import waitress_server

if t.TYPE_CHECKING:  # pragma: no cover
    from _typeshed.wsgi import WSGIApplication

#: how long a stopping worker lets its in-flight requests run before it is killed
GRACEFUL_SECONDS = 30
#: how often a worker tells the arbiter it is alive (and sees that it was told to stop)
BEAT_SECONDS = 1.0
#: how long one turn of a stopping worker's loop waits for its connections
DRAIN_TURN_SECONDS = 0.1


class WorkersUnavailable(RuntimeError):
    """Several workers were asked for and gunicorn (the ``workers`` extra) is missing."""


def workers_available() -> bool:
    """Whether gunicorn, which ``serve_workers`` runs, can be imported."""
    try:
        import gunicorn  # noqa: F401
    except ImportError:
        return False
    return True


def serve_workers(
    app_factory: t.Callable[[], WSGIApplication],
    host: str = "127.0.0.1",
    port: int = 8080,
    workers: int = 2,
    threads: int = 8,
    max_body_bytes: int | None = None,
    reuse_port: bool = False,
    max_connections: int = Settings.max_connections,
    header_timeout: float = Settings.header_timeout,
    worker_exited: t.Callable[[int], None] | None = None,
) -> None:
    """Serve from ``workers`` processes on one listening address, until SIGTERM or SIGINT.

    gunicorn's arbiter binds the address, forks the workers and replaces one that dies;
    SIGTERM lets in-flight requests finish (up to :data:`GRACEFUL_SECONDS`) and ends
    the process with status 0 (``SystemExit``). Each worker calls ``app_factory`` after
    the fork, so a worker opens its own database connections and never uses one of the
    arbiter's. Each worker serves with waitress (:func:`waitress_worker`): ``threads``
    threads, the app's body limit, keep-alive connections in its main loop, up to
    ``max_connections`` of them with ``header_timeout`` per request head (the open
    files they need are checked here, once: the workers inherit the limit).

    By default the arbiter binds one socket that every worker accepts from, and a new
    connection goes to whichever worker takes it first: a burst of keep-alive
    connections (a proxy's pool) can all end up in one worker, which then does all the
    work for as long as they live. With ``reuse_port`` each worker binds a socket of its
    own (``SO_REUSEPORT``) and the kernel spreads the connections over them by address
    hash. Its costs: connections still waiting in a worker's queue when it dies are
    reset, and a second server started on the same port by the same user shares the
    port instead of failing.

    gunicorn's own lines (workers booted, exited, killed) go to the root logger, in
    the format the caller configured; ``worker_exited`` is told each worker's pid
    once it has exited (the metrics drop its live-only values).
    """
    try:
        from gunicorn.app.base import BaseApplication
    except ImportError as exc:
        raise WorkersUnavailable(str(exc)) from exc

    bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    held = open_files_for(max_connections, threads)
    options: dict[str, t.Any] = {
        "bind": [bind],
        "workers": workers,
        "worker_class": waitress_worker(threads, max_body_bytes, held, header_timeout),
        "reuse_port": reuse_port,
        "graceful_timeout": GRACEFUL_SECONDS,
        "preload_app": False,  # the app is built in each worker, after the fork
        "proc_name": "calendar-rest",
        # recent gunicorn also opens a control socket at one path per user, shared by
        # every server of that user: not wanted (the signals are the interface)
        "control_socket_disable": True,
        "logger_class": propagating_logger(),
    }
    if worker_exited is not None:
        options["child_exit"] = lambda _arbiter, worker: worker_exited(worker.pid)

    class PreFork(BaseApplication):
        def load_config(self) -> None:
            for name, value in options.items():
                if name in self.cfg.settings or name != "control_socket_disable":
                    self.cfg.set(name, value)

        def load(self) -> t.Any:  # gunicorn's stubs spell the WSGI types their own way
            return app_factory()

    PreFork().run()


def propagating_logger() -> type:
    """gunicorn's logger, its handlers dropped: its records reach the root logger's
    handlers (``serve --log-format``), with every other line of the process."""
    from gunicorn.glogging import Logger

    class Propagating(Logger):
        def setup(self, cfg: t.Any) -> None:
            super().setup(cfg)
            for log in (self.error_log, self.access_log):
                for handler in list(log.handlers):
                    if getattr(handler, "_gunicorn", False):
                        log.removeHandler(handler)
                log.propagate = True

    return Propagating


def waitress_worker(
    threads: int,
    max_body_bytes: int | None,
    max_connections: int = Settings.max_connections,
    header_timeout: float = Settings.header_timeout,
) -> type:
    """A gunicorn worker class that serves its listening sockets with waitress.

    Its loop is waitress's, one ``poll`` at a time, so that between two it can tell
    the arbiter it is alive (at most once per :data:`BEAT_SECONDS`) and see SIGTERM,
    which gunicorn's handler turns into ``alive = False``. Then it stops accepting,
    closes its idle keep-alive connections, lets each connection with a request under
    way (being received, run or sent) finish it, and returns: the worker exits 0 (a
    head past its deadline is not waited for).
    """
    from gunicorn.workers.base import Worker
    from waitress import wasyncore

    class WaitressWorker(Worker):
        def run(self) -> None:
            logging.basicConfig()  # as ``server.serve``: waitress's warnings reach stderr
            socket_map: dict[int, t.Any] = {}
            server = waitress_server(
                t.cast("WSGIApplication", self.wsgi),
                threads=threads,
                max_body_bytes=max_body_bytes,
                # gunicorn's listeners wrap the socket (``sock``)
                sockets=[getattr(listener, "sock", listener) for listener in self.sockets],
                socket_map=socket_map,
                max_connections=max_connections,
                header_timeout=header_timeout,
            )
            use_poll = server.adj.asyncore_use_poll
            beat = 0.0
            while self.alive:
                wasyncore.loop(BEAT_SECONDS, use_poll, socket_map, count=1)
                if time.monotonic() >= beat:
                    beat = self.beat()
                    if self.ppid != os.getppid():
                        self.log.info("Parent changed, shutting down: %s", self)
                        break
            self.drain(socket_map, use_poll)
            server.task_dispatcher.shutdown(cancel_pending=False, timeout=BEAT_SECONDS)

        def beat(self) -> float:
            """Tell the arbiter this worker lives; when to tell it next."""
            self.notify()
            return time.monotonic() + BEAT_SECONDS

        def drain(self, socket_map: dict[int, t.Any], use_poll: bool) -> None:
            stop_accepting(socket_map)
            deadline = time.monotonic() + self.cfg.graceful_timeout
            beat = 0.0
            while close_idle(socket_map) and time.monotonic() < deadline:
                if time.monotonic() >= beat:
                    beat = self.beat()
                wasyncore.loop(DRAIN_TURN_SECONDS, use_poll, socket_map, count=1)

    return WaitressWorker


def stop_accepting(socket_map: dict[int, t.Any]) -> None:
    """Close this worker's listening sockets (its copies: the other workers still
    accept on a shared one)."""
    from waitress.server import BaseWSGIServer

    for dispatcher in list(socket_map.values()):
        if isinstance(dispatcher, BaseWSGIServer):
            dispatcher.close()


def close_idle(socket_map: dict[int, t.Any]) -> bool:
    """Close the connections with no request under way; whether some remain."""
    from waitress.channel import HTTPChannel

    busy = False
    now = time.time()  # waitress's clock
    for dispatcher in list(socket_map.values()):
        if isinstance(dispatcher, HTTPChannel):
            if under_way(dispatcher) and not head_late(dispatcher, now):
                busy = True
            else:
                dispatcher.handle_close()
    return busy


def under_way(channel: t.Any) -> bool:
    """Whether a waitress connection has a request under way: partly received, queued
    or running (``requests``), or an answer not sent in full."""
    return bool(channel.request is not None or channel.requests or channel.total_outbufs_len)


def head_late(channel: t.Any, now: float) -> bool:
    """Whether a connection is past the deadline of the request head it owes (the
    listening sockets closed, waitress's maintenance no longer runs)."""
    deadline = channel.head_deadline() if hasattr(channel, "head_deadline") else None
    return deadline is not None and now >= deadline


__all__ = ["GRACEFUL_SECONDS", "WorkersUnavailable", "serve_workers", "workers_available"]
