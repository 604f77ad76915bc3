"""The ``calendar-rest`` command: set up a database, manage users, load demo data, serve.

Every command takes the global ``--database URL`` (before the subcommand), resolved
like ``create_app`` does: the option, then ``$CALENDAR_REST_DATABASE_URL``, then
``sqlite:///calendar.db``. ``main`` returns an exit status instead of exiting, so
tests and embedding programs can call it in-process.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import sys
import typing as t
from urllib.parse import urlsplit, urlunsplit

import peewee

from . import __version__, demo, models
from .auth import add_application_password
from .db import connect_database
from .settings import DATABASE_URL_ENV, DEFAULT_DATABASE_URL, NAMESPACE, Settings


class CliError(Exception):
    """A failure worth one line on stderr and exit status 1, not a traceback."""


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the process exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error argparse already reported
        return exc.code if isinstance(exc.code, int) else 2
    try:
        return int(args.handler(args, _settings(args.database)))
    except CliError as exc:
        print(f"calendar-rest: error: {exc}", file=sys.stderr)
        return 1
    except (peewee.OperationalError, peewee.ImproperlyConfigured) as exc:
        print(f"calendar-rest: database error: {exc}", file=sys.stderr)
        return 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="calendar-rest",
        description="Calendar events REST service (The Events Calendar REST v1 format).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "--database",
        metavar="URL",
        default=None,
        help=f"database URL (default: ${DATABASE_URL_ENV}, else {DEFAULT_DATABASE_URL})",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    init = commands.add_parser("init", help="create the database tables (safe to repeat)")
    init.set_defaults(handler=cmd_init)

    users = commands.add_parser("users", help="manage users")
    user_commands = users.add_subparsers(dest="users_command", metavar="ACTION", required=True)
    create = user_commands.add_parser(
        "create", help="create a user and print a new application password"
    )
    create.add_argument("name", metavar="NAME", help="login name")
    create.add_argument("--role", required=True, choices=models.ROLES, help="WordPress role")
    create.add_argument("--email", default="", help="e-mail address (also accepted as login)")
    create.set_defaults(handler=cmd_users_create)
    listing = user_commands.add_parser("list", help="list users: id, login, role, email")
    listing.set_defaults(handler=cmd_users_list)

    serve = commands.add_parser("serve", help="run the service under waitress")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8080, help="port (default 8080)")
    serve.add_argument(
        "--threads", type=_positive, default=8, help="worker threads (default 8)"
    )
    serve.add_argument(
        "--cache-entries",
        type=int,
        default=Settings.cache_entries,
        help=f"responses kept by the read cache; 0 disables it (default {Settings.cache_entries})",
    )
    serve.set_defaults(handler=cmd_serve)

    load = commands.add_parser("demo", help="load demo venues, organizers and events (once)")
    load.set_defaults(handler=cmd_demo)
    return parser


def _settings(database_url: str | None) -> Settings:
    try:
        return Settings.build(database_url)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be a positive integer")
    return value


def _port(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError("must be between 0 and 65535")
    return value


@contextlib.contextmanager
def open_database(url: str) -> t.Iterator[peewee.Database]:
    """The models bound to ``url``'s database, closed again on the way out."""
    try:
        database = connect_database(url)
    except ValueError as exc:  # unsupported scheme or malformed URL
        raise CliError(str(exc)) from None
    models.bind_models(database)
    try:
        yield database
    finally:
        database.close()


def display_url(url: str) -> str:
    """``url`` without its password, fit for printing."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def cmd_init(args: argparse.Namespace, settings: Settings) -> int:
    with open_database(settings.database_url) as database:
        with database.connection_context():
            before = set(database.get_tables())
        models.create_schema(database)
        with database.connection_context():
            created = sorted(set(database.get_tables()) - before)
    where = display_url(settings.database_url)
    if created:
        print(f"Created {len(created)} table(s) in {where}: {', '.join(created)}")
    else:
        print(f"Schema already up to date in {where}; nothing to do.")
    return 0


def _check_login(name: str) -> None:
    """Logins travel in HTTP Basic credentials: no colon, no spaces, fits the column."""
    if not name or len(name) > 60 or ":" in name or name != name.strip() or " " in name:
        raise CliError(f"invalid user name {name!r}: 1-60 characters, no spaces or colons")


def cmd_users_create(args: argparse.Namespace, settings: Settings) -> int:
    _check_login(args.name)
    with open_database(settings.database_url) as database:
        models.create_schema(database)
        with database.connection_context(), database.atomic():
            if models.User.select().where(models.User.login == args.name).exists():
                raise CliError(f"user {args.name!r} already exists")
            try:
                user = models.User.create(
                    login=args.name,
                    email=args.email,
                    display_name=args.name,
                    role=args.role,
                    registered=dt.datetime.now(dt.timezone.utc).replace(
                        tzinfo=None, microsecond=0
                    ),
                )
            except peewee.IntegrityError:  # created concurrently since the check
                raise CliError(f"user {args.name!r} already exists") from None
            password = add_application_password(user)
    print(f"Created {args.role} {args.name!r} (id {user.id}).")
    print("Application password (shown once; use it with HTTP Basic authentication):")
    print(password)
    return 0


def cmd_users_list(args: argparse.Namespace, settings: Settings) -> int:
    with open_database(settings.database_url) as database, database.connection_context():
        if not models.User.table_exists():
            print("No schema yet: run `calendar-rest init`.", file=sys.stderr)
            return 0
        for user in models.User.select().order_by(models.User.id):
            print(f"{user.id}\t{user.login}\t{user.role}\t{user.email}")
    return 0


def cmd_demo(args: argparse.Namespace, settings: Settings) -> int:
    with open_database(settings.database_url) as database:
        result = demo.load_demo(database, site_timezone=settings.timezone)
    counts = ", ".join(f"{name}: {count}" for name, count in result.counts.items())
    if not result.created:
        print(f"Demo data already loaded ({counts}); nothing to do.")
        return 0
    print(f"Loaded demo data into {display_url(settings.database_url)}: {counts}.")
    print(f"Demo administrator {demo.DEMO_ADMIN!r}, application password (shown once):")
    print(result.admin_password)
    return 0


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    from .app import create_app
    from .server import serve

    with open_database(settings.database_url) as database:
        models.create_schema(database)
    app = create_app(settings.database_url, cache_entries=max(0, args.cache_entries))
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"Serving http://{host}:{args.port}/{NAMESPACE}/events (Ctrl+C to stop)", flush=True)
    serve(app, host=args.host, port=args.port, threads=args.threads)
    return 0
