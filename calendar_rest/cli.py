"""The ``calendar-rest`` command: set up a database, manage users and their application
passwords, load demo data, serve.

Every command takes the global ``--database URL`` (before the subcommand), resolved
like ``create_app`` does: the option, then ``$CALENDAR_REST_DATABASE_URL``, then
``sqlite:///calendar.db``. ``main`` returns an exit status instead of exiting, so
tests and embedding programs can call it in-process.

The command speaks the operator's language (English or French, chosen from the
environment by ``i18n.environment_language``): its texts are English literals passed
to ``_()``, or marked with ``N_`` where they are translated later, so that Babel
extracts them into the gettext catalogs (DEVELOPERS.md, "Translations"). Command
names, option names and metavars stay English.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import functools
import sys
import typing as t
from urllib.parse import urlsplit, urlunsplit

import peewee

from . import __version__, demo, models
from .auth import (
    add_application_password,
    list_application_passwords,
    revoke_application_passwords,
)
from .db import connect_database
from .i18n import Translate, environment_language, translator
from .messages import N_
from .settings import DATABASE_URL_ENV, DEFAULT_DATABASE_URL, NAMESPACE, Settings

PROG = "calendar-rest"
#: the demo's record kinds (``demo.record_counts`` keys), as printed
RECORD_KINDS = {
    "events": N_("events"),
    "venues": N_("venues"),
    "organizers": N_("organizers"),
    "categories": N_("categories"),
    "tags": N_("tags"),
    "users": N_("users"),
}
LABEL_LENGTH = 100  # ApplicationPassword.name


class CliError(Exception):
    """A failure worth one line on stderr and exit status 1, not a traceback.

    ``message`` is English, marked with ``N_`` when it is the code's own text, and is
    translated when printed; its named placeholders are filled from ``values``.
    """

    def __init__(self, message: str, **values: object) -> None:
        super().__init__(message)
        self.message = message
        self.values = values

    def render(self, _: Translate) -> str:
        text = _(self.message)
        return text % self.values if self.values else text


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the process exit status."""
    _ = translator(environment_language())
    parser = build_parser(_)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error argparse already reported
        return exc.code if isinstance(exc.code, int) else 2
    try:
        return int(args.handler(args, _settings(args.database), _))
    except CliError as exc:
        print(error_line(_, PROG, exc.render(_)), end="", file=sys.stderr)
        return 1
    except (peewee.OperationalError, peewee.ImproperlyConfigured) as exc:
        line = _("%(prog)s: database error: %(message)s") % {"prog": PROG, "message": exc}
        print(line, file=sys.stderr)
        return 1


def error_line(_: Translate, prog: str, message: str) -> str:
    """The one line reporting an error, newline included."""
    return _("%(prog)s: error: %(message)s") % {"prog": prog, "message": message} + "\n"


class _Formatter(argparse.HelpFormatter):
    """argparse's help layout, with the ``usage:`` prefix in the operator's language."""

    def __init__(self, prog: str, *, usage_prefix: str, **kwargs: t.Any) -> None:
        super().__init__(prog, **kwargs)
        self._usage_prefix = usage_prefix

    def add_usage(
        self,
        usage: str | None,
        actions: t.Iterable[argparse.Action],
        groups: t.Iterable[t.Any],
        prefix: str | None = None,
    ) -> None:
        super().add_usage(usage, actions, groups, self._usage_prefix if prefix is None else prefix)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose own texts (usage prefix, section titles, ``--help``, the
    error line) are translated too; its subcommand parsers inherit the translation.
    argparse's diagnostics of bad command lines stay English."""

    def __init__(self, *, translate: Translate, **kwargs: t.Any) -> None:
        _ = translate
        formatter = functools.partial(_Formatter, usage_prefix=_("usage: "))
        super().__init__(formatter_class=formatter, add_help=False, **kwargs)
        self.translate = translate
        self._positionals.title = _("positional arguments")
        self._optionals.title = _("options")
        self.add_argument(
            "-h",
            "--help",
            action="help",
            default=argparse.SUPPRESS,
            help=_("show this help message and exit"),
        )

    def add_subparsers(self, **kwargs: t.Any) -> t.Any:
        kwargs.setdefault("parser_class", functools.partial(_Parser, translate=self.translate))
        return super().add_subparsers(**kwargs)

    def error(self, message: str) -> t.NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, error_line(self.translate, self.prog, message))


def build_parser(translate: Translate | None = None) -> argparse.ArgumentParser:
    """The command line, its texts in ``translate``'s language (default: the
    environment's)."""
    _ = translate or translator(environment_language())
    parser = _Parser(
        translate=_,
        prog=PROG,
        description=_("Calendar events REST service (The Events Calendar REST v1 format)."),
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"%(prog)s {__version__}",
        help=_("show the version number and exit"),
    )
    parser.add_argument(
        "--database",
        metavar="URL",
        default=None,
        help=_("database URL (default: $%(variable)s, else %(url)s)")
        % {"variable": DATABASE_URL_ENV, "url": DEFAULT_DATABASE_URL},
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    init = commands.add_parser("init", help=_("create the database tables (safe to repeat)"))
    init.set_defaults(handler=cmd_init)

    users = commands.add_parser("users", help=_("manage users and their application passwords"))
    user_commands = users.add_subparsers(dest="users_command", metavar="ACTION", required=True)
    _add_user_commands(user_commands, _)

    serve = commands.add_parser("serve", help=_("run the service under waitress"))
    serve.add_argument(
        "--host", default="127.0.0.1", help=_("address to bind (default %(default)s)")
    )
    serve.add_argument(
        "--port",
        type=_bounded_int(0, 65535, _("must be an integer between 0 and 65535")),
        default=8080,
        help=_("port (default %(default)s)"),
    )
    serve.add_argument(
        "--threads",
        type=_bounded_int(1, None, _("must be a positive integer")),
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

    load = commands.add_parser("demo", help=_("load demo venues, organizers and events (once)"))
    load.set_defaults(handler=cmd_demo)
    return parser


def _add_user_commands(user_commands: t.Any, _: Translate) -> None:
    """``users create|list|passwords|add-password|revoke``."""
    create = user_commands.add_parser(
        "create", help=_("create a user and print a new application password")
    )
    create.add_argument("name", metavar="NAME", help=_("login name"))
    create.add_argument("--role", required=True, choices=models.ROLES, help=_("WordPress role"))
    create.add_argument("--email", default="", help=_("e-mail address (also accepted as login)"))
    create.set_defaults(handler=cmd_users_create)

    listing = user_commands.add_parser("list", help=_("list users: id, login, role, email"))
    listing.set_defaults(handler=cmd_users_list)

    passwords = user_commands.add_parser(
        "passwords",
        help=_("list a user's application passwords: id, label, creation time (UTC)"),
        description=_(
            "List a user's application passwords, one per line: id, label and creation "
            "time (UTC), tab-separated. The passwords themselves are never shown."
        ),
    )
    passwords.add_argument("name", metavar="NAME", help=_("login name"))
    passwords.set_defaults(handler=cmd_users_passwords)

    add = user_commands.add_parser(
        "add-password", help=_("give a user another application password and print it")
    )
    add.add_argument("name", metavar="NAME", help=_("login name"))
    add.add_argument(
        "--label",
        default=None,
        help=_("label telling this password apart, e.g. where it is used (default: calendar-rest)"),
    )
    add.set_defaults(handler=cmd_users_add_password)

    revoke = user_commands.add_parser(
        "revoke",
        help=_("revoke one or all of a user's application passwords"),
        description=_(
            "Revoke one (--id) or all (--all) of a user's application passwords. It takes "
            "effect at once, for running servers too: they check the stored passwords on "
            "every request."
        ),
    )
    revoke.add_argument("name", metavar="NAME", help=_("login name"))
    which = revoke.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--id",
        type=_bounded_int(1, None, _("must be a positive integer")),
        help=_("revoke the one with this id, as `users passwords` lists it"),
    )
    which.add_argument("--all", action="store_true", help=_("revoke all of them"))
    revoke.set_defaults(handler=cmd_users_revoke)


def _settings(database_url: str | None) -> Settings:
    try:
        return Settings.build(database_url)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def _bounded_int(low: int, high: int | None, message: str) -> t.Callable[[str], int]:
    """An argparse ``type``: an integer from ``low`` to ``high``, else ``message``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(message) from None
        if value < low or high is not None and value > high:
            raise argparse.ArgumentTypeError(message)
        return value

    return parse


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


def cmd_init(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    with open_database(settings.database_url) as database:
        with database.connection_context():
            before = set(database.get_tables())
        models.create_schema(database)
        with database.connection_context():
            created = sorted(set(database.get_tables()) - before)
    where = display_url(settings.database_url)
    if created:
        print(
            _("Created %(count)d table(s) in %(where)s: %(tables)s")
            % {"count": len(created), "where": where, "tables": ", ".join(created)}
        )
    else:
        print(_("Schema already up to date in %(where)s; nothing to do.") % {"where": where})
    return 0


def _check_login(name: str) -> None:
    """Logins travel in HTTP Basic credentials: no colon, no spaces, fits the column."""
    if not name or len(name) > 60 or ":" in name or name != name.strip() or " " in name:
        raise CliError(
            N_("invalid user name %(name)r: 1-60 characters, no spaces or colons"), name=name
        )


def _check_label(label: str) -> None:
    """Labels are printed one per line, tab-separated: printable and fit the column."""
    if not label or len(label) > LABEL_LENGTH or not label.isprintable():
        raise CliError(
            N_("invalid label %(label)r: 1-%(max)d printable characters"),
            label=label,
            max=LABEL_LENGTH,
        )


def _existing_user(name: str) -> models.User:
    """The user whose login is ``name``.

    :raises CliError: no such user (or no schema yet).
    """
    user = None
    if models.User.table_exists():
        user = models.User.get_or_none(models.User.login == name)
    if user is None:
        raise CliError(N_("unknown user “%(name)s”"), name=name)
    return user


def _print_new_password(_: Translate, password: str) -> None:
    print(_("Application password (shown once; use it with HTTP Basic authentication):"))
    print(password)


def cmd_users_create(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    _check_login(args.name)
    with open_database(settings.database_url) as database:
        models.create_schema(database)
        with database.connection_context(), database.atomic():
            if models.User.select().where(models.User.login == args.name).exists():
                raise CliError(N_("user “%(name)s” already exists"), name=args.name)
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
                raise CliError(N_("user “%(name)s” already exists"), name=args.name) from None
            password = add_application_password(user)
    print(
        _("Created %(role)s “%(name)s” (id %(id)d).")
        % {"role": args.role, "name": args.name, "id": user.id}
    )
    _print_new_password(_, password)
    return 0


def cmd_users_list(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    with open_database(settings.database_url) as database, database.connection_context():
        if not models.User.table_exists():
            print(_("No schema yet: run `calendar-rest init`."), file=sys.stderr)
            return 0
        for user in models.User.select().order_by(models.User.id):
            print(f"{user.id}\t{user.login}\t{user.role}\t{user.email}")
    return 0


def cmd_users_passwords(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    """One line per application password: id, label, creation time; never a secret."""
    with open_database(settings.database_url) as database:
        with database.connection_context(), database.atomic():
            passwords = list_application_passwords(_existing_user(args.name))
    for password in passwords:
        created = password.created.replace(microsecond=0).isoformat()
        print(f"{password.id}\t{password.name}\t{created}Z")
    if not passwords:
        note = _("User “%(name)s” has no application password.") % {"name": args.name}
        print(note, file=sys.stderr)
    return 0


def cmd_users_add_password(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    if args.label is not None:
        _check_label(args.label)
    with open_database(settings.database_url) as database:
        with database.connection_context(), database.atomic():
            user = _existing_user(args.name)
            if args.label is None:
                password = add_application_password(user)
            else:
                password = add_application_password(user, args.label)
    print(_("Added an application password for “%(name)s”.") % {"name": args.name})
    _print_new_password(_, password)
    return 0


def cmd_users_revoke(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    """Delete one or all of a user's application passwords.

    Servers already running refuse a revoked password on its next request: they read
    the stored passwords on every request, nothing caches them.
    """
    with open_database(settings.database_url) as database:
        with database.connection_context(), database.atomic():
            user = _existing_user(args.name)
            count = revoke_application_passwords(user, None if args.all else args.id)
            if args.id is not None and not count:
                raise CliError(
                    N_("user “%(name)s” has no application password with id %(id)d"),
                    name=args.name,
                    id=args.id,
                )
    print(
        _("Revoked %(count)d application password(s) of “%(name)s”.")
        % {"count": count, "name": args.name}
    )
    return 0


def cmd_demo(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    with open_database(settings.database_url) as database:
        result = demo.load_demo(database, site_timezone=settings.timezone)
    counts = ", ".join(
        _("%(kind)s: %(count)d") % {"kind": _(RECORD_KINDS.get(name, name)), "count": count}
        for name, count in result.counts.items()
    )
    if not result.created:
        print(_("Demo data already loaded (%(counts)s); nothing to do.") % {"counts": counts})
        return 0
    print(
        _("Loaded demo data into %(where)s: %(counts)s.")
        % {"where": display_url(settings.database_url), "counts": counts}
    )
    print(
        _("Demo administrator “%(name)s”, application password (shown once):")
        % {"name": demo.DEMO_ADMIN}
    )
    print(result.admin_password)
    return 0


def cmd_serve(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    from .app import create_app
    from .server import serve

    with open_database(settings.database_url) as database:
        models.create_schema(database)
    app = create_app(settings.database_url, cache_entries=max(0, args.cache_entries))
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{host}:{args.port}/{NAMESPACE}/events"
    print(_("Serving %(url)s (Ctrl+C to stop)") % {"url": url}, flush=True)
    serve(app, host=args.host, port=args.port, threads=args.threads)
    return 0
