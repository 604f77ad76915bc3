"""``calendar-rest init`` and ``calendar-rest demo``: a database ready to serve."""

from __future__ import annotations

import argparse
import typing as t

import peewee

from ..db import connected, login_store
from ..i18n.catalogs import Translate
from ..i18n.messages import N_
from ..importing import demo
from ..repository.schema import create_schema
from ..settings import Settings
from .database import display_url, open_database

#: the demo's record kinds (``record_counts`` keys), as printed
RECORD_KINDS = {
    "events": N_("events"),
    "venues": N_("venues"),
    "organizers": N_("organizers"),
    "categories": N_("categories"),
    "tags": N_("tags"),
    "users": N_("users"),
}


def add_init_command(commands: t.Any, _: Translate) -> None:
    init = commands.add_parser("init", help=_("create the database tables (safe to repeat)"))
    init.set_defaults(handler=cmd_init)


def add_demo_command(commands: t.Any, _: Translate) -> None:
    load = commands.add_parser("demo", help=_("load demo venues, organizers and events (once)"))
    load.set_defaults(handler=cmd_demo)


def cmd_init(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    with open_database(settings.database_url) as database:
        before = _tables(database)
        create_schema(database)
        created = sorted(_tables(database) - before)
    where = display_url(settings.database_url)
    if created:
        print(
            _("Created %(count)d table(s) in %(where)s: %(tables)s")
            % {"count": len(created), "where": where, "tables": ", ".join(created)}
        )
    else:
        print(_("Schema already up to date in %(where)s; nothing to do.") % {"where": where})
    return 0


def _tables(database: peewee.Database) -> set[str]:
    """The tables of the database and of its failed-login store."""
    store = login_store(database)
    with connected(database, store):
        names = {*database.get_tables(), *store.get_tables()}
    return {name for name in names if not name.startswith("sqlite_")}  # SQLite's own


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
    print(rate_limit_hint(settings, _))
    print(
        _("Demo administrator “%(name)s”, application password (shown once):")
        % {"name": demo.DEMO_ADMIN}
    )
    print(result.admin_password)
    return 0


#: what ``docs/rate-limits.md`` recommends for a public site, per minute
RECOMMENDED_RATE_LIMITS = {"ANONYMOUS": 600, "AUTHENTICATED": 1200, "WRITES": 120}


def rate_limit_hint(settings: Settings, _: Translate) -> str:
    """How to switch the rate limits on (off by default), or that they are on."""
    if settings.rate_limited:
        return _("Rate limits are on (docs/rate-limits.md).")
    variables = " ".join(
        f"CALENDAR_REST_RATE_LIMIT_{name}={value}"
        for name, value in RECOMMENDED_RATE_LIMITS.items()
    )
    return _(
        "Rate limits are off; for a public site, serve with %(variables)s (docs/rate-limits.md)."
    ) % {"variables": variables}
