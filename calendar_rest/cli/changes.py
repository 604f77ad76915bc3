"""``calendar-rest changes prune``: compact the change log on demand (the webhook
worker also does it hourly)."""

from __future__ import annotations

import argparse
import datetime as dt
import typing as t

from ..clock import SYSTEM_CLOCK, utc_now
from ..i18n.catalogs import Translate
from ..repository.changes import prune_changes
from ..settings import Settings
from .database import display_url, open_database
from .parsing import bounded_int


def add_commands(commands: t.Any, _: Translate) -> None:
    changes = commands.add_parser("changes", help=_("maintain the change log of GET /changes"))
    actions = changes.add_subparsers(dest="action", metavar="ACTION", required=True)
    prune = actions.add_parser(
        "prune",
        help=_(
            "drop deleted and superseded entries older than the retention period;"
            " a record's latest entry is always kept"
        ),
    )
    prune.add_argument(
        "--days",
        type=bounded_int(1, None, _("a whole number of days, at least 1")),
        default=None,
        help=_("retention in days (default: the setting sync_retention_days)"),
    )
    prune.set_defaults(handler=cmd_prune)


def cmd_prune(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    days = args.days or settings.sync_retention_days
    before = utc_now(SYSTEM_CLOCK) - dt.timedelta(days=days)
    with open_database(settings.database_url) as database:
        with database.connection_context(), database.atomic():
            dropped = prune_changes(before)
    print(
        _("Pruned %(count)d change entries older than %(days)d days in %(where)s.")
        % {"count": dropped, "days": days, "where": display_url(settings.database_url)}
    )
    return 0
