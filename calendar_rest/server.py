"""Run a WSGI app under the production servers the CLI's ``serve`` uses: waitress for one
process, gunicorn's pre-fork arbiter (the optional ``workers`` extra) for several.

Both are imported on call, not at module import, so that importing the CLI (or the
package) for other commands never pays for, or depends on, a server.
"""

from __future__ import annotations

import typing as t

if t.TYPE_CHECKING:  # pragma: no cover
    from _typeshed.wsgi import WSGIApplication

#: waitress's own default limit, used when the app states none
WAITRESS_BODY_LIMIT = 1024**3


def serve(
    app: WSGIApplication,
    host: str = "127.0.0.1",
    port: int = 8080,
    threads: int = 8,
    max_body_bytes: int | None = None,
) -> None:
    """Serve ``app`` until interrupted; ``threads`` worker threads share its database.

    waitress reads a whole body before calling the app; told the app's limit
    (``max_body_bytes``), it answers a larger declared ``Content-Length`` with 413 at
    once, without receiving the body.
    """
    import waitress

    limit = WAITRESS_BODY_LIMIT if max_body_bytes is None else max_body_bytes + 1
    waitress.serve(app, host=host, port=port, threads=threads, max_request_body_size=limit)


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
) -> None:
    """Serve from ``workers`` processes on one listening socket, until SIGTERM or SIGINT.

    gunicorn's arbiter binds the address, forks the workers and replaces one that dies;
    SIGTERM lets in-flight requests finish (up to :data:`GRACEFUL_SECONDS`) and ends
    the process with status 0 (``SystemExit``). Each worker calls ``app_factory`` after
    the fork, so a worker opens its own database connections and never uses one of the
    arbiter's. Workers are gthread workers: ``threads`` threads each, keep-alive
    connections waiting in a poller, not in a thread.

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
