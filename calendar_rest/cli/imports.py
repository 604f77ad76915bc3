"""``calendar-rest import``: an ``.ics`` file or a TEC site into this database
(``calendar.md`` §5, §6).

The importers (``calendar_rest.importing``) and their libraries (icalendar, httpx)
are imported when the command runs, not with the CLI, so other commands start fast.
Exit status: 0 done (nothing changed included), 1 some components skipped or records
failed, 2 nothing could be imported (unreadable input, unusable source, database
failure, usage error).
"""

from __future__ import annotations

import argparse
import sys
import typing as t

import peewee

from ..clock import SYSTEM_CLOCK
from ..i18n.catalogs import Translate
from ..i18n.messages import N_
from ..models import User
from ..queries.lookups.users import user_named
from ..repository.schema import create_schema
from ..settings import Settings
from .database import open_database
from .parsing import PROG, error_line

STATUSES = ("publish", "draft", "pending", "private")
ICS_SUMMARY = N_(
    "created %(created)s; updated %(updated)d; unchanged %(unchanged)d; skipped %(skipped)d"
)
TEC_SUMMARY = N_(
    "created %(created)s; updated %(updated)d; unchanged %(unchanged)d; failed %(failed)d"
)


def add_commands(commands: t.Any, _: Translate) -> None:
    command = commands.add_parser(
        "import", help=_("import events from an .ics file or from a TEC site")
    )
    command.add_argument("file", nargs="?", metavar="FILE.ics", help=_("the iCalendar file"))
    command.add_argument(
        "--from-tec", metavar="URL", help=_("copy a site speaking TEC's REST API instead")
    )
    command.add_argument("--user", metavar="LOGIN", help=_("the source site's user (--from-tec)"))
    command.add_argument(
        "--password", metavar="APP_PASSWORD", help=_("that user's application password")
    )
    command.add_argument(
        "--status",
        choices=STATUSES,
        help=_("status of the records created (default: publish)"),
    )
    command.add_argument("--author", metavar="LOGIN", help=_("author of the records created"))
    command.add_argument(
        "--dry-run", action="store_true", help=_("report what would happen, write nothing")
    )
    command.add_argument("--quiet", action="store_true", help=_("no progress on stderr"))
    command.set_defaults(handler=cmd_import, import_parser=command)


def cmd_import(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    if bool(args.file) == bool(args.from_tec):
        return _usage(args, _, _("give either FILE.ics or --from-tec URL, not both"))
    if args.from_tec is None and (args.user or args.password):
        return _usage(args, _, _("--user and --password go with --from-tec"))
    if bool(args.user) != bool(args.password):
        return _usage(args, _, _("--user and --password go together"))
    try:
        with open_database(settings.database_url) as database:
            create_schema(database)
            with database.connection_context():
                author = _author(args.author)
                if args.author and author is None:
                    return _fail(_, _("unknown user “%(name)s”") % {"name": args.author})
                if args.from_tec:
                    return _from_tec(args, settings, author, database, _)
                return _from_file(args, settings, author, database, _)
    except peewee.PeeweeException as exc:
        return _fail(_, _("database error: %(message)s") % {"message": exc})


def _author(login: str | None) -> User | None:
    return user_named(login) if login else None


def _options(args: argparse.Namespace, settings: Settings, author: User | None) -> t.Any:
    from ..importing.common import ImportOptions
    from ..repository.series import SeriesLimits

    return ImportOptions(
        site_timezone=settings.timezone,
        clock=SYSTEM_CLOCK,
        limits=SeriesLimits.from_settings(settings),
        status=args.status,
        author=author,
        dry_run=bool(args.dry_run),
        quiet=bool(args.quiet),
    )


def _from_file(
    args: argparse.Namespace,
    settings: Settings,
    author: User | None,
    database: peewee.Database,
    _: Translate,
) -> int:
    from ..importing.common import Progress
    from ..importing.ics import IcsImport
    from ..importing.ics_reader import NotICalendar, read_calendar

    try:
        with open(args.file, encoding="utf-8-sig", newline="") as stream:
            text = stream.read()
    except (OSError, UnicodeDecodeError) as exc:
        return _fail(_, _("cannot read %(file)s: %(reason)s") % {"file": args.file, "reason": exc})
    try:
        calendar = read_calendar(text)
    except NotICalendar:
        return _fail(_, _("%(file)s is not an iCalendar file") % {"file": args.file})
    options = _options(args, settings, author)
    progress = Progress(_, options.quiet)
    tally = IcsImport(database, options, progress, _).run(calendar)
    created = tally.created_text(_, ("events", "venues", "organizers", "categories"))
    print(
        _(ICS_SUMMARY)
        % {
            "created": created,
            "updated": tally.updated,
            "unchanged": tally.unchanged,
            "skipped": tally.skipped,
        }
    )
    return 1 if tally.skipped else 0


def _from_tec(
    args: argparse.Namespace,
    settings: Settings,
    author: User | None,
    database: peewee.Database,
    _: Translate,
) -> int:
    from ..importing.common import Progress
    from ..importing.tec import SourceUnusable, TecImport
    from ..importing.tec_client import TecClient

    if args.dry_run:
        return _usage(args, _, _("--dry-run applies to FILE.ics only"))
    options = _options(args, settings, author)
    progress = Progress(_, options.quiet)
    credentials = (args.user, args.password) if args.user else None
    try:
        with TecClient(args.from_tec, credentials) as client:
            tally = TecImport(database, options, progress, _, client).run()
    except SourceUnusable as exc:
        return _fail(_, exc.render(_))
    created = tally.created_text(_, ("events", "venues", "organizers", "categories", "tags"))
    print(
        _(TEC_SUMMARY)
        % {
            "created": created,
            "updated": tally.updated,
            "unchanged": tally.unchanged,
            "failed": tally.failed,
        }
    )
    return 1 if tally.failed else 0


def _usage(args: argparse.Namespace, _: Translate, message: str) -> int:
    args.import_parser.print_usage(sys.stderr)
    print(error_line(_, args.import_parser.prog, message), end="", file=sys.stderr)
    return 2


def _fail(_: Translate, message: str) -> int:
    print(error_line(_, PROG, message), end="", file=sys.stderr)
    return 2
