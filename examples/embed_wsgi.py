"""Mount calendar_rest under ``/api`` of a bigger WSGI site with ``DispatcherMiddleware``.

The app builds every ``url``/``rest_url`` from the request's mount point
(``SCRIPT_NAME``), so links stay correct under ``/api`` and under ``/api/fr``
without any configuration; the French root's namespace index and ``/doc`` are in
French. Run it as a script to try both roots in-process::

    python examples/embed_wsgi.py
"""

from __future__ import annotations

import sys
import tempfile
import typing as t
from pathlib import Path

from werkzeug.middleware.dispatcher import DispatcherMiddleware
from werkzeug.test import Client

from calendar_rest import create_app, create_schema

if t.TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment


def home(environ: WSGIEnvironment, start_response: StartResponse) -> t.Iterable[bytes]:
    """The parent site's own plain WSGI app, answering everything not under ``/api``."""
    start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8")])
    return [b"The parent site. The calendar API lives under /api/.\n"]


def build_stack(database_url: str) -> WSGIApplication:
    """The parent site with the calendar API mounted at ``/api``."""
    return DispatcherMiddleware(home, {"/api": create_app(database_url)})


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'calendar.db'}"
        stack = build_stack(url)
        api = stack.mounts["/api"]  # type: ignore[attr-defined]
        create_schema(api.database)
        client = Client(stack)
        print("GET / ->", client.get("/").status_code)
        for path in ("/api/calendar/events/v1/events", "/api/fr/calendar/events/v1/events"):
            response = client.get(path)
            body = response.json or {}
            rest_url = body.get("rest_url", "")
            print(f"GET {path} -> {response.status_code}, rest_url {rest_url}")
            if response.status_code != 200 or "/api/" not in rest_url:
                return 1
        if not describes_itself_in_french(client):
            return 1
        api.database.close()
    return 0


def describes_itself_in_french(client: Client) -> bool:
    """The French root's index and ``/doc`` speak French and point under ``/api/fr``."""
    index = client.get("/api/fr/calendar/events/v1/").json or {}
    page = index["routes"]["/calendar/events/v1/events"]["endpoints"][0]["args"]["page"]
    print("French description of page:", page["description"])
    document = client.get("/api/fr/calendar/events/v1/doc").json or {}
    server = document["servers"][0]["url"]
    print("/doc server under the French root:", server)
    return server == "http://localhost/api/fr/calendar/events/v1" and page["description"] != (
        "The archive page to return"
    )


if __name__ == "__main__":
    sys.exit(main())
