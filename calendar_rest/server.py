"""Run a WSGI app under waitress, the production server the CLI's ``serve`` uses.

waitress is imported on call, not at module import, so that importing the CLI (or the
package) for other commands never pays for, or depends on, the server.
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
