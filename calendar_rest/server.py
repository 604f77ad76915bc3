"""Run a WSGI app under the production servers the CLI's ``serve`` uses: waitress for one
process, gunicorn's pre-fork arbiter (the optional ``workers`` extra) for several.

Both are imported on call, not at module import, so that importing the CLI (or the
package) for other commands never pays for, or depends on, a server.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
import typing as t

if t.TYPE_CHECKING:  # pragma: no cover
    from _typeshed.wsgi import WSGIApplication

#: waitress's own default limit, used when the app states none
WAITRESS_BODY_LIMIT = 1024**3
#: waitress warns "Task queue depth is N" each time a request waits for a thread: on a
#: saturated server, once per request. It is passed on at most once per this many
#: seconds, with the count of those held back.
QUEUE_WARNING_SECONDS = 60.0


def waitress_adjustments(threads: int, max_body_bytes: int | None) -> dict[str, t.Any]:
    """What ``serve`` tells waitress besides the address.

    waitress reads a whole body before calling the app; told the app's limit
    (``max_body_bytes``), it answers a larger declared ``Content-Length`` with 413 at
    once, without receiving the body.
    """
    limit = WAITRESS_BODY_LIMIT if max_body_bytes is None else max_body_bytes + 1
    return {"threads": threads, "max_request_body_size": limit}


def waitress_server(
    app: WSGIApplication,
    host: str = "127.0.0.1",
    port: int = 8080,
    threads: int = 8,
    max_body_bytes: int | None = None,
) -> t.Any:
    """A waitress server for ``app``, bound but not running, whose connections are
    :func:`sending_channel` ones."""
    from waitress.server import BaseWSGIServer, create_server

    server = create_server(
        app, host=host, port=port, **waitress_adjustments(threads, max_body_bytes)
    )
    channel = sending_channel()
    listening = getattr(server, "map", {}).values()  # several addresses: one server each
    for dispatcher in (server, *listening):
        if isinstance(dispatcher, BaseWSGIServer):
            dispatcher.channel_class = channel
    return server


def serve(
    app: WSGIApplication,
    host: str = "127.0.0.1",
    port: int = 8080,
    threads: int = 8,
    max_body_bytes: int | None = None,
) -> None:
    """Serve ``app`` under waitress until interrupted; ``threads`` worker threads share
    its database (see :func:`waitress_server` and :func:`waitress_adjustments`)."""
    logging.basicConfig()  # as ``waitress.serve`` does (idempotent): warnings reach stderr
    throttle_queue_warnings()
    server = waitress_server(app, host, port, threads, max_body_bytes)
    server.print_listen("Serving on http://{}:{}")
    server.run()


@functools.cache
def sending_channel() -> type:
    """waitress's connection class, without its busy loop.

    While a request runs, the thread serving it sends what it writes itself (waitress's
    ``send_bytes`` is 1). waitress's main loop still asks the socket whether it can
    write whenever output is pending, and a socket with room says yes at once, though
    there is nothing for the loop to do: the serving thread holds the buffer's lock
    (mid-``send``, or waiting for the interpreter lock right after it). So the loop
    spins, taking the interpreter lock on every turn from the very threads it waits
    for: measured under load, 50 to 170 ``select`` calls per request and a third of
    the throughput of a cold read. Here the loop waits for a running request's socket
    only once a send could not take everything (the socket is full: ``select`` then
    sleeps until it drains), and for a finished request's output or a closing
    connection as before.
    """
    from waitress.channel import HTTPChannel

    class SendingChannel(HTTPChannel):
        #: the last send left output behind: the socket was full
        backed_up = False

        def _flush_some(self, do_close: bool = True) -> bool:
            sent = bool(t.cast(t.Any, super())._flush_some(do_close=do_close))
            self.backed_up = self.total_outbufs_len > 0
            return sent

        def writable(self) -> bool:
            if self.will_close or self.close_when_flushed:
                return True
            if not self.total_outbufs_len:
                return False
            if not self.requests:  # what a finished request left: the loop sends it
                return True
            return self.backed_up and self.total_outbufs_len >= self.adj.send_bytes

    return SendingChannel


def throttle_queue_warnings(interval: float = QUEUE_WARNING_SECONDS) -> None:
    """Pass waitress's "Task queue depth" warning on at most once per ``interval``
    seconds (see :data:`QUEUE_WARNING_SECONDS`); idempotent."""
    queue_log = logging.getLogger("waitress.queue")
    if not any(isinstance(f, OncePerInterval) for f in queue_log.filters):
        queue_log.addFilter(OncePerInterval(interval))


class OncePerInterval(logging.Filter):
    """Lets one record through per ``interval`` seconds; the next one passed on says
    how many were held back since the previous."""

    def __init__(self, interval: float, clock: t.Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.interval = interval
        self.clock = clock
        self.next_pass = float("-inf")
        self.held_back = 0
        self.lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        now = self.clock()
        with self.lock:
            if now < self.next_pass:
                self.held_back += 1
                return False
            held_back, self.held_back = self.held_back, 0
            self.next_pass = now + self.interval
        if held_back and isinstance(record.args, tuple):
            record.msg = f"{record.msg} (%d more held back since the last one)"
            record.args = (*record.args, held_back)
        return True


# -- several processes: gunicorn's pre-fork arbiter (the ``workers`` extra) -----------

#: how long an idle keep-alive connection is kept open, above the 60 s that reverse
#: proxies (nginx's ``keepalive_timeout``) keep theirs, so the proxy always closes first
KEEPALIVE_SECONDS = 75
#: how long a stopping worker lets its in-flight requests run before it is killed
GRACEFUL_SECONDS = 30


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
) -> None:
    """Serve from ``workers`` processes on one listening address, until SIGTERM or SIGINT.

    gunicorn's arbiter binds the address, forks the workers and replaces one that dies;
    SIGTERM lets in-flight requests finish (up to :data:`GRACEFUL_SECONDS`) and ends
    the process with status 0 (``SystemExit``). Each worker calls ``app_factory`` after
    the fork, so a worker opens its own database connections and never uses one of the
    arbiter's. Workers are gthread workers: ``threads`` threads each, keep-alive
    connections waiting in a poller, not in a thread.

    By default the arbiter binds one socket that every worker accepts from, and a new
    connection goes to whichever worker takes it first: a burst of keep-alive
    connections (a proxy's pool) can all end up in one worker, which then does all the
    work for as long as they live. With ``reuse_port`` each worker binds a socket of its
    own (``SO_REUSEPORT``) and the kernel spreads the connections over them by address
    hash. Its costs: connections still waiting in a worker's queue when it dies are
    reset, and a second server started on the same port by the same user shares the
    port instead of failing.

    gunicorn reads a body only when the app does. The app refuses a declared
    ``Content-Length`` over ``max_body_bytes`` with 413 before reading the body (as
    under waitress); :func:`close_after_unread_body` makes gunicorn close that
    connection instead of draining the body to reach the next request.
    """
    try:
        from gunicorn.app.base import BaseApplication
    except ImportError as exc:
        raise WorkersUnavailable(str(exc)) from exc

    bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    options: dict[str, t.Any] = {
        "bind": [bind],
        "workers": workers,
        "worker_class": "gthread",
        "reuse_port": reuse_port,
        "threads": threads,
        "keepalive": KEEPALIVE_SECONDS,
        "graceful_timeout": GRACEFUL_SECONDS,
        "preload_app": False,  # the app is built in each worker, after the fork
        "proc_name": "calendar-rest",
        "pre_request": close_after_unread_body(max_body_bytes),
        # recent gunicorn also opens a control socket at one path per user, shared by
        # every server of that user: not wanted (the signals are the interface)
        "control_socket_disable": True,
    }

    class PreFork(BaseApplication):
        def load_config(self) -> None:
            for name, value in options.items():
                if name in self.cfg.settings or name != "control_socket_disable":
                    self.cfg.set(name, value)

        def load(self) -> t.Any:  # gunicorn's stubs spell the WSGI types their own way
            return app_factory()

    PreFork().run()


def close_after_unread_body(max_body_bytes: int | None) -> t.Callable[[t.Any, t.Any], None]:
    """gunicorn's ``pre_request`` hook: the connection of a request whose body may be
    left unread is closed after the answer, not drained to reach the next request.

    That is a declared ``Content-Length`` over ``max_body_bytes`` (the app answers 413
    without reading a byte; no ``100 Continue`` invites the client to send it) and a
    chunked body, whose size is only known while reading it (the app stops at the limit).
    """

    def hook(_worker: t.Any, request: t.Any) -> None:
        headers = dict(request.headers)  # gunicorn upper-cases the names
        declared = headers.get("CONTENT-LENGTH", "").strip()
        limit = -1 if max_body_bytes is None else max_body_bytes
        if declared.isdigit() and limit >= 0 and int(declared) > limit:
            request.force_close()
            if hasattr(request, "_expected_100_continue"):  # gunicorn >= 23
                request._expected_100_continue = False
        elif "TRANSFER-ENCODING" in headers:
            request.force_close()

    return hook
