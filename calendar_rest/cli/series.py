"""``calendar-rest extend-series``: roll recurring series forward (calendar.md §4.6).

Occurrences exist as rows up to now + ``recurrence_horizon_days``; as days pass, this
adds the ones that came within the horizon. It is idempotent (meant for a daily cron
job), and ``serve`` runs the same step at start-up and every 24 hours.
"""

from __future__ import annotations

import argparse
import logging
import threading
import typing as t

import peewee

from ..clock import SYSTEM_CLOCK, Clock
from ..db import login_store, write_transaction
from ..i18n.catalogs import Translate
from ..models import Event, User, bind_models
from ..queries.lookups.series import live_masters
from ..repository.changes import collecting_changes
from ..repository.posts import WriteContext
from ..repository.record_locks import lock_ids
from ..repository.series import SeriesLimits, extend_series
from ..settings import Settings
from .database import display_url, open_database

LOG = logging.getLogger(__name__)
DAY_SECONDS = 24 * 60 * 60


def add_commands(commands: t.Any, _: Translate) -> None:
    extend = commands.add_parser(
        "extend-series",
        help=_("add the occurrences of recurring series that came within the horizon"),
    )
    extend.set_defaults(handler=cmd_extend_series)


def cmd_extend_series(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    with open_database(settings.database_url) as database:
        added = roll_forward(database, settings)
    print(
        _("Added %(count)d occurrences in %(where)s.")
        % {"count": added, "where": display_url(settings.database_url)}
    )
    return 0


def roll_forward(database: peewee.Database, settings: Settings, clock: Clock = SYSTEM_CLOCK) -> int:
    """One roll-forward in one transaction that bumps the write generation, so running
    servers drop their cached answers; returns how many occurrences were added."""
    # nobody writes as a user here: the context only supplies the clock and the zone
    ctx = WriteContext(User(login=""), settings.timezone, clock)
    # models are bound per thread, and ``serve`` runs this in a thread of its own
    bind_models(database, login_store(database))
    with (
        database.connection_context(),
        write_transaction(database),
        collecting_changes() as changes,
    ):
        # API writes of a series lock its master first: the roll-forward does too, and
        # then reads the masters as those writes left them
        lock_ids(Event, [master.id for master in live_masters()])
        added = extend_series(ctx, SeriesLimits.from_settings(settings), live_masters())
        changes.commit()
        return added


def start_daily_roll_forward(
    database: peewee.Database, settings: Settings, stop: threading.Event
) -> threading.Thread:
    """``serve``'s roll-forward: now, then every 24 hours until ``stop`` is set."""
    return run_daily(lambda: roll_forward(database, settings), stop)


def run_daily(step: t.Callable[[], object], stop: threading.Event) -> threading.Thread:
    """Run ``step`` now, then every 24 hours until ``stop`` is set, in a daemon thread;
    a database failure is logged and retried the next day."""

    def run() -> None:
        while True:
            try:
                step()
            except peewee.PeeweeException:
                LOG.exception("extend-series failed; retrying in 24 hours")
            if stop.wait(DAY_SECONDS):
                return

    thread = threading.Thread(target=run, name="extend-series", daemon=True)
    thread.start()
    return thread
