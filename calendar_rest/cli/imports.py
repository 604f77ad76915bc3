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
ICS_KINDS = ("events", "venues", "organizers", "categories")
TEC_KINDS = (*ICS_KINDS, "tags")


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
                run = _from_tec if args.from_tec else _from_file
                return run(args, database, _options(args, settings, author), _)
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
    args: argparse.Namespace, database: peewee.Database, options: t.Any, _: Translate
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
    tally = IcsImport(database, options, Progress(_, options.quiet), _).run(calendar)
    return _summary(_, ICS_SUMMARY, tally, ICS_KINDS, skipped=tally.skipped)


def _from_tec(
    args: argparse.Namespace, database: peewee.Database, options: t.Any, _: Translate
) -> int:
    from ..importing.common import Progress
    from ..importing.tec import SourceUnusable, TecImport
    from ..importing.tec_client import TecClient

    if args.dry_run:
        return _usage(args, _, _("--dry-run applies to FILE.ics only"))
    credentials = (args.user, args.password) if args.user else None
    try:
        with TecClient(args.from_tec, credentials) as client:
            tally = TecImport(database, options, Progress(_, options.quiet), _, client).run()
    except SourceUnusable as exc:
        return _fail(_, exc.render(_))
    return _summary(_, TEC_SUMMARY, tally, TEC_KINDS, failed=tally.failed)


def _summary(
    _: Translate, summary: str, tally: t.Any, kinds: t.Sequence[str], **trouble: int
) -> int:
    """Print the summary line; the exit status is 1 when ``trouble`` counts any record
    (the ``.ics`` components skipped, the TEC records failed)."""
    counts = {"updated": tally.updated, "unchanged": tally.unchanged, **trouble}
    print(_(summary) % {"created": tally.created_text(_, kinds), **counts})
    return 1 if any(trouble.values()) else 0


def _usage(args: argparse.Namespace, _: Translate, message: str) -> int:
    args.import_parser.print_usage(sys.stderr)
    print(error_line(_, args.import_parser.prog, message), end="", file=sys.stderr)
    return 2


def _fail(_: Translate, message: str) -> int:
    print(error_line(_, PROG, message), end="", file=sys.stderr)
    return 2
