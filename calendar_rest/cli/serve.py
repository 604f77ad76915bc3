"""``calendar-rest serve``: the service under waitress."""

from __future__ import annotations

import argparse
import typing as t

from ..i18n import Translate
from ..repository.schema import create_schema
from ..settings import NAMESPACE, Settings
from .database import open_database
from .parsing import bounded_int


def add_commands(commands: t.Any, _: Translate) -> None:
    serve = commands.add_parser("serve", help=_("run the service under waitress"))
    serve.add_argument(
        "--host", default="127.0.0.1", help=_("address to bind (default %(default)s)")
    )
    serve.add_argument(
        "--port",
        type=bounded_int(0, 65535, _("must be an integer between 0 and 65535")),
        default=8080,
        help=_("port (default %(default)s)"),
    )
    serve.add_argument(
        "--threads",
        type=bounded_int(1, None, _("must be a positive integer")),
        default=8,
        help=_("worker threads (default %(default)s)"),
    )
    serve.add_argument(
        "--cache-entries",
        type=int,
        default=Settings.cache_entries,
        help=_("responses kept by the read cache; 0 disables it (default %(default)s)"),
    )
    serve.set_defaults(handler=cmd_serve)


def cmd_serve(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    from ..app import create_app
    from ..server import serve

    with open_database(settings.database_url) as database:
        create_schema(database)
    app = create_app(settings.database_url, cache_entries=max(0, args.cache_entries))
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{host}:{args.port}/{NAMESPACE}/events"
    print(_("Serving %(url)s (Ctrl+C to stop)") % {"url": url}, flush=True)
    serve(
        app,
        host=args.host,
        port=args.port,
        threads=args.threads,
        max_body_bytes=app.settings.max_body_bytes,
    )
    return 0
