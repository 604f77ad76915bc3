"""``calendar-rest users create|list|passwords|add-password|revoke|set|unlock``."""

from __future__ import annotations

import argparse
import sys
import typing as t

import peewee

from ..clock import SYSTEM_CLOCK, utc_now
from ..db import login_store
from ..edge.auth import address_key, login_key
from ..i18n.catalogs import Translate
from ..i18n.messages import N_
from ..models import ROLES, User
from ..queries.lookups.users import all_users, application_passwords, user_named
from ..repository.login_throttle import clear
from ..repository.schema import create_schema
from ..repository.users import (
    DEFAULT_LABEL,
    add_application_password,
    create_user,
    revoke_application_passwords,
    set_rate_limit_exempt,
)
from ..settings import Settings
from .database import open_database
from .parsing import CliError, bounded_int

LABEL_LENGTH = 100  # ApplicationPassword.name
Handler = t.Callable[[argparse.Namespace, Settings, Translate], int]


def add_commands(commands: t.Any, _: Translate) -> None:
    users = commands.add_parser("users", help=_("manage users and their application passwords"))
    actions = users.add_subparsers(dest="users_command", metavar="ACTION", required=True)

    def action(name: str, handler: Handler, help: str, description: str | None = None) -> t.Any:
        """A ``users`` action about one user, named by its login."""
        parser = actions.add_parser(name, help=help, description=description)
        parser.add_argument("name", metavar="NAME", help=_("login name"))
        parser.set_defaults(handler=handler)
        return parser

    create = action("create", cmd_create, _("create a user and print a new application password"))
    create.add_argument("--role", required=True, choices=ROLES, help=_("WordPress role"))
    create.add_argument("--email", default="", help=_("e-mail address (also accepted as login)"))

    listing = actions.add_parser("list", help=_("list users: id, login, role, email"))
    listing.set_defaults(handler=cmd_list)

    action(
        "passwords",
        cmd_passwords,
        _("list a user's application passwords: id, label, creation time (UTC)"),
        _(
            "List a user's application passwords, one per line: id, label and creation "
            "time (UTC), tab-separated. The passwords themselves are never shown."
        ),
    )
    add = action(
        "add-password", cmd_add_password, _("give a user another application password and print it")
    )
    add.add_argument(
        "--label",
        default=DEFAULT_LABEL,
        help=_("label telling this password apart, e.g. where it is used (default: calendar-rest)"),
    )
    revoke = action(
        "revoke",
        cmd_revoke,
        _("revoke one or all of a user's application passwords"),
        _(
            "Revoke one (--id) or all (--all) of a user's application passwords. It takes "
            "effect at once, for running servers too: they check the stored passwords on "
            "every request."
        ),
    )
    which = revoke.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--id",
        type=bounded_int(1, None, _("must be a positive integer")),
        help=_("revoke the one with this id, as `users passwords` lists it"),
    )
    which.add_argument("--all", action="store_true", help=_("revoke all of them"))

    setting = action(
        "set",
        cmd_set,
        _("change a user's settings"),
        _(
            "Change a user's settings. --rate-limit-exempt takes the user out of the rate "
            "limits (a trusted importer), --no-rate-limit-exempt counts it again; running "
            "servers follow on the user's next request."
        ),
    )
    setting.add_argument(
        "--rate-limit-exempt",
        action=argparse.BooleanOptionalAction,
        default=None,
        help=_("exempt the user from the rate limits (or not)"),
    )

    unlock = actions.add_parser(
        "unlock",
        help=_("clear the failed logins and the lock of a login or a client address"),
        description=_(
            "Clear the failed-login counters and the lock of a login (NAME) or of a "
            "client address (--address), at once for every running server."
        ),
    )
    unlocked = unlock.add_mutually_exclusive_group(required=True)
    unlocked.add_argument("name", metavar="NAME", nargs="?", help=_("login name"))
    unlocked.add_argument("--address", help=_("client address, as the server sees it"))
    unlock.set_defaults(handler=cmd_unlock)


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


def _existing_user(name: str) -> User:
    """The user whose login is ``name``.

    :raises CliError: no such user (or no schema yet).
    """
    user = user_named(name)
    if user is None:
        raise CliError(N_("unknown user “%(name)s”"), name=name)
    return user


def _print_new_password(_: Translate, password: str) -> None:
    print(_("Application password (shown once; use it with HTTP Basic authentication):"))
    print(password)


def cmd_create(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    _check_login(args.name)
    with open_database(settings.database_url) as database:
        create_schema(database)
        with database.connection_context(), database.atomic():
            if user_named(args.name) is not None:
                raise CliError(N_("user “%(name)s” already exists"), name=args.name)
            now = utc_now(SYSTEM_CLOCK)
            try:
                user = create_user(args.name, args.role, args.email, now)
            except peewee.IntegrityError:  # created concurrently since the check
                raise CliError(N_("user “%(name)s” already exists"), name=args.name) from None
            password = add_application_password(user, now)
    print(
        _("Created %(role)s “%(name)s” (id %(id)d).")
        % {"role": args.role, "name": args.name, "id": user.id}
    )
    _print_new_password(_, password)
    return 0


def cmd_list(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    with open_database(settings.database_url) as database, database.connection_context():
        if not User.table_exists():
            print(_("No schema yet: run `calendar-rest init`."), file=sys.stderr)
            return 0
        for user in all_users():
            print(f"{user.id}\t{user.login}\t{user.role}\t{user.email}")
    return 0


def cmd_passwords(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    """One line per application password: id, label, creation time; never a secret."""
    with open_database(settings.database_url) as database:
        with database.connection_context(), database.atomic():
            passwords = application_passwords(_existing_user(args.name))
    for password in passwords:
        created = password.created.replace(microsecond=0).isoformat()
        print(f"{password.id}\t{password.name}\t{created}Z")
    if not passwords:
        note = _("User “%(name)s” has no application password.") % {"name": args.name}
        print(note, file=sys.stderr)
    return 0


def cmd_add_password(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    _check_label(args.label)
    with open_database(settings.database_url) as database:
        with database.connection_context(), database.atomic():
            user = _existing_user(args.name)
            password = add_application_password(user, utc_now(SYSTEM_CLOCK), args.label)
    print(_("Added an application password for “%(name)s”.") % {"name": args.name})
    _print_new_password(_, password)
    return 0


def cmd_revoke(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
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


def cmd_set(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    """Change what the options given say about a user (nothing else)."""
    if args.rate_limit_exempt is None:
        raise CliError(N_("nothing to set: give --rate-limit-exempt or --no-rate-limit-exempt"))
    with open_database(settings.database_url) as database:
        create_schema(database)  # the column, on a database of an earlier version
        with database.connection_context(), database.atomic():
            user = _existing_user(args.name)
            set_rate_limit_exempt(user, args.rate_limit_exempt)
    if args.rate_limit_exempt:
        print(_("“%(name)s” is exempt from the rate limits.") % {"name": args.name})
    else:
        print(_("“%(name)s” is counted by the rate limits.") % {"name": args.name})
    return 0


def cmd_unlock(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    """Forget a login's or an address's failed logins and lock."""
    key = login_key(args.name) if args.name is not None else address_key(args.address)
    with open_database(settings.database_url) as database:
        create_schema(database)
        store = login_store(database)
        with store.connection_context(), store.atomic():
            count = clear([key])
    subject = args.name if args.name is not None else args.address
    if count:
        print(_("Unlocked “%(subject)s”.") % {"subject": subject})
    else:
        print(_("“%(subject)s” had no failed login to clear.") % {"subject": subject})
    return 0
