"""The ``calendar-rest`` command: set up a database, manage users and their application
passwords, load demo data, import, serve, run the webhook worker.

The entry layer, under ``__main__`` alone: a command may import any layer below it
(``app``, ``serving``, ``importing``, ``delivery``, ``repository``, ``queries``...),
and nothing but ``__main__`` imports the CLI. Every command takes the global
``--database URL`` (before the subcommand), resolved like ``create_app`` does: the
option, then ``$CALENDAR_REST_DATABASE_URL``, then ``sqlite:///calendar.db``. ``main``
returns an exit status instead of exiting, so tests and embedding programs can call it
in-process; texts are English literals passed to ``_()`` or marked with ``N_``, so that
Babel extracts them into the gettext catalogs (DEVELOPERS.md, "Translations").

- ``parsing`` — the command line's own machinery: a translated argparse, ``CliError``
  and the one-line error.
- ``database`` — reaching the database a command works on, and naming it safely.
- ``setup`` — ``init`` and ``demo``: a database ready to serve.
- ``users`` — ``users create|list|passwords|add-password|revoke``.
- ``serve`` — ``serve``: waitress, or gunicorn's pre-fork arbiter with ``--workers N``.
- ``changes`` — ``changes prune``: compacting the change log on demand.
- ``webhooks`` — ``webhooks run|list|disable|enable|retry`` (``run`` is the delivery
  worker).
- ``imports`` — ``import``: an ``.ics`` file or a TEC site (the importers load on call).
- ``series`` — ``extend-series``: rolling recurring series forward.
"""

from __future__ import annotations

import argparse
import sys

import peewee

from .. import __version__
from ..i18n.catalogs import Translate, environment_language, translator
from ..settings import DATABASE_URL_ENV, DEFAULT_DATABASE_URL
from . import changes, imports, series, serve, setup, users, webhooks
from .database import command_settings
from .parsing import PROG, CliError, Parser, error_line


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the process exit status."""
    _ = translator(environment_language())
    parser = build_parser(_)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error argparse already reported
        return exc.code if isinstance(exc.code, int) else 2
    try:
        return int(args.handler(args, command_settings(args.database), _))
    except CliError as exc:
        print(error_line(_, PROG, exc.render(_)), end="", file=sys.stderr)
        return 1
    except (peewee.OperationalError, peewee.ImproperlyConfigured) as exc:
        line = _("%(prog)s: database error: %(message)s") % {"prog": PROG, "message": exc}
        print(line, file=sys.stderr)
        return 1


def build_parser(translate: Translate | None = None) -> argparse.ArgumentParser:
    """The command line, its texts in ``translate``'s language (default: the
    environment's)."""
    _ = translate or translator(environment_language())
    parser = Parser(
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
    setup.add_init_command(commands, _)
    users.add_commands(commands, _)
    serve.add_commands(commands, _)
    setup.add_demo_command(commands, _)
    changes.add_commands(commands, _)
    webhooks.add_commands(commands, _)
    imports.add_commands(commands, _)
    series.add_commands(commands, _)
    return parser
