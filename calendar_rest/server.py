"""Run a WSGI app under waitress, the production server the CLI's ``serve`` uses.

waitress is imported on call, not at module import, so that importing the CLI (or the
package) for other commands never pays for, or depends on, the server.
"""

from __future__ import annotations

import typing as t

if t.TYPE_CHECKING:  # pragma: no cover
    from _typeshed.wsgi import WSGIApplication


def serve(
    app: WSGIApplication, host: str = "127.0.0.1", port: int = 8080, threads: int = 8
) -> None:
    """Serve ``app`` until interrupted; ``threads`` worker threads share its database."""
    import waitress

    waitress.serve(app, host=host, port=port, threads=threads)
