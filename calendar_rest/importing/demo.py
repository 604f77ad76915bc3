"""A small, realistic demo data set, loaded through the same write path as the API.

Every event goes through ``schemas.validate`` → ``check_event_write`` → ``save_event``
as a ``POST /events`` from an administrator would, so venues, organizers, terms,
slugs, UTC times and term counts are exactly what the service itself produces.
Dates are relative to today so that the default listing (which starts today) shows
the data whenever it is loaded. The demo administrator doubles as the "already
loaded" marker, which makes loading idempotent.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import typing as t

import peewee

from ..clock import SYSTEM_CLOCK, Clock, utc_now
from ..db import write_transaction
from ..models import Term
from ..queries.lookups.terms import find_term
from ..queries.lookups.totals import record_counts
from ..queries.lookups.users import user_named
from ..repository.changes import collecting_changes
from ..repository.events import check_event_write, save_event
from ..repository.posts import WriteContext
from ..repository.schema import create_schema
from ..repository.terms import create_term
from ..repository.users import add_application_password, create_user
from ..schemas import EventCreateArgs, validate
from ..wordpress.taxonomies import CATEGORIES

DEMO_ADMIN = "demo-admin"
DEMO_ADMIN_EMAIL = "demo-admin@example.com"

HARBOR_HALL = {
    "venue": "Harbor Hall",
    "address": "12 Wharf Street",
    "city": "Boston",
    "state": "MA",
    "zip": "02110",
    "country": "United States",
    "phone": "+1 617 555 0142",
    "website": "https://harborhall.example.com",
    "geo_lat": 42.3601,
    "geo_lng": -71.0505,
}
GREENFIELD_PARK = {
    "venue": "Greenfield Community Park",
    "address": "400 Park Avenue",
    "city": "Austin",
    "state": "TX",
    "zip": "78701",
    "country": "United States",
    "phone": "+1 512 555 0199",
    "geo_lat": 30.2672,
    "geo_lng": -97.7431,
}
LINCOLN_CLUB = {
    "venue": "Lincoln Jazz Club",
    "address": "225 West 52nd Street",
    "city": "New York",
    "state": "NY",
    "zip": "10019",
    "country": "United States",
    "website": "https://lincolnjazz.example.com",
    "geo_lat": 40.7626,
    "geo_lng": -73.9845,
}

ARTS_COUNCIL = {
    "organizer": "City Arts Council",
    "email": "hello@cityarts.example.com",
    "phone": "+1 617 555 0100",
    "website": "https://cityarts.example.com",
}
RUNNING_CLUB = {
    "organizer": "Riverside Running Club",
    "email": "run@riverside.example.com",
}
BLUE_NOTE = {
    "organizer": "Blue Note Collective",
    "email": "bookings@bluenote.example.com",
    "website": "https://bluenote.example.com",
}

#: child categories created directly (the API names terms but cannot set a parent)
CHILD_CATEGORIES = {"Jazz": "Music"}


@dataclasses.dataclass(frozen=True)
class DemoEvent:
    """One event: days from today, local times, the POST payload, child categories."""

    days: int
    start: str
    end: str
    payload: dict[str, t.Any]
    child_categories: tuple[str, ...] = ()
    end_days: int | None = None


DEMO_EVENTS: tuple[DemoEvent, ...] = (
    DemoEvent(
        5,
        "08:00",
        "11:00",
        {
            "title": "Riverside 10K Fun Run",
            "description": "A flat, friendly 10K along the river. Walkers welcome.",
            "categories": ["Sports & Outdoors"],
            "tags": ["Outdoors", "Family Friendly", "Free"],
            "cost": "0",
            "venue": GREENFIELD_PARK,
            "organizer": [RUNNING_CLUB],
        },
    ),
    DemoEvent(
        8,
        "14:00",
        "17:00",
        {
            "title": "Intro to Watercolor Workshop",
            "description": "Brushes, paper and paints provided. No experience needed.",
            "categories": ["Workshops"],
            "cost": "$40",
            "venue": HARBOR_HALL,
            "organizer": [ARTS_COUNCIL],
        },
    ),
    DemoEvent(
        10,
        "09:00",
        "11:30",
        {
            "title": "Photography Walk",
            "description": "Golden-hour photography tips on a slow walk through the park.",
            "categories": ["Workshops"],
            "tags": ["Outdoors", "Free"],
            "cost": "Free",
            "venue": GREENFIELD_PARK,
            "organizer": [ARTS_COUNCIL],
        },
    ),
    DemoEvent(
        15,
        "19:30",
        "22:00",
        {
            "title": "City Symphony Gala",
            "description": "The season's opening gala: Dvořák's New World Symphony.",
            "categories": ["Music"],
            "tags": ["Live Music"],
            "cost": "$15 - $45",
            "featured": True,
            "venue": HARBOR_HALL,
            "organizer": [ARTS_COUNCIL],
        },
    ),
    DemoEvent(
        3,
        "19:00",
        "22:30",
        {
            "title": "Summer Jazz Night",
            "description": "Three quartets, one long night of standards and new work.",
            "timezone": "America/New_York",
            "categories": ["Music"],
            "tags": ["Live Music"],
            "cost": "$25",
            "venue": LINCOLN_CLUB,
            "organizer": [BLUE_NOTE],
        },
        child_categories=("Jazz",),
    ),
    DemoEvent(
        17,
        "10:00",
        "13:00",
        {
            "title": "Kids' Science Saturday",
            "description": "Hands-on experiments for ages 6 to 12.",
            "categories": ["Workshops"],
            "tags": ["Family Friendly"],
            "cost": "$5",
            "venue": HARBOR_HALL,
            "organizer": [ARTS_COUNCIL],
        },
    ),
    DemoEvent(
        20,
        "00:00",
        "23:59",
        {
            "title": "Harbor Folk Festival",
            "description": "Three days of folk music on two stages by the water.",
            "all_day": True,
            "categories": ["Music"],
            "tags": ["Live Music", "Outdoors", "Family Friendly"],
            "cost": "$60",
            "venue": HARBOR_HALL,
            "organizer": [ARTS_COUNCIL, BLUE_NOTE],
        },
        end_days=22,
    ),
    DemoEvent(
        24,
        "20:00",
        "23:00",
        {
            "title": "Open Mic Night",
            "description": "Sign up at the door; five minutes each.",
            "categories": ["Music"],
            "tags": ["Free"],
            "venue": LINCOLN_CLUB,
            "timezone": "America/New_York",
            "organizer": [BLUE_NOTE],
        },
    ),
    DemoEvent(
        30,
        "12:00",
        "18:00",
        {
            "title": "Pickup Basketball Tournament",
            "description": "3-on-3, double elimination. Register your team on the day.",
            "categories": ["Sports & Outdoors"],
            "tags": ["Outdoors"],
            "cost": "$10",
            "venue": GREENFIELD_PARK,
            "organizer": [RUNNING_CLUB],
        },
    ),
    DemoEvent(
        45,
        "18:00",
        "19:00",
        {
            "title": "Volunteer Crew Briefing",
            "description": "For festival volunteers only; not listed in the calendar.",
            "categories": ["Workshops"],
            "hide_from_listings": True,
            "venue": HARBOR_HALL,
            "organizer": [ARTS_COUNCIL],
        },
    ),
    DemoEvent(
        -20,  # past: an administrator's default window lists what visitors see
        "18:30",
        "21:00",
        {
            "title": "Autumn Lantern Parade",
            "description": "Route and times still being confirmed.",
            "status": "draft",
            "tags": ["Family Friendly"],
            "organizer": [ARTS_COUNCIL],
        },
    ),
    DemoEvent(
        58,
        "11:00",
        "14:00",
        {
            "title": "Sunday Jazz Brunch",
            "description": "Brunch with a trio. Reservations recommended.",
            "categories": ["Music"],
            "cost": "$35",
            "venue": LINCOLN_CLUB,
            "timezone": "America/New_York",
            "organizer": [BLUE_NOTE],
        },
        child_categories=("Jazz",),
    ),
)


@dataclasses.dataclass(frozen=True)
class DemoResult:
    """What a load did: ``created`` is False when the demo data was already there."""

    created: bool
    counts: dict[str, int]
    admin_password: str | None = None


def demo_payloads(today: dt.date) -> list[tuple[dict[str, t.Any], tuple[str, ...]]]:
    """The POST payloads with concrete dates, paired with their child categories."""
    payloads = []
    for item in DEMO_EVENTS:
        start_day = today + dt.timedelta(days=item.days)
        end_day = today + dt.timedelta(days=item.end_days or item.days)
        payload = {
            **item.payload,
            "start_date": f"{start_day.isoformat()} {item.start}:00",
            "end_date": f"{end_day.isoformat()} {item.end}:00",
        }
        payloads.append((payload, item.child_categories))
    return payloads


def load_demo(
    database: peewee.Database,
    *,
    site_timezone: str = "UTC",
    today: dt.date | None = None,
    clock: Clock = SYSTEM_CLOCK,
) -> DemoResult:
    """Create the schema if needed and load the demo data once, in one transaction;
    dates are relative to ``today`` (default: the clock's UTC date)."""
    create_schema(database)
    now = utc_now(clock)
    today = today or now.date()
    with (
        database.connection_context(),
        write_transaction(database),
        collecting_changes() as changes,
    ):
        if user_named(DEMO_ADMIN) is not None:
            return DemoResult(False, record_counts())
        admin = create_user(
            DEMO_ADMIN, "administrator", DEMO_ADMIN_EMAIL, now, display_name="Demo Administrator"
        )
        password = add_application_password(admin, now, name="demo")
        ctx = WriteContext(admin, site_timezone, clock)
        for payload, children in demo_payloads(today):
            if children:
                ids = [_child_category(name, now).id for name in children]
                payload = {**payload, "categories": [*payload.get("categories", []), *ids]}
            args = validate(EventCreateArgs(), payload)
            save_event(check_event_write(args, admin), ctx)
        changes.commit()  # a new generation: a running server drops its old cache
        return DemoResult(True, record_counts(), password)


def _child_category(name: str, now: dt.datetime) -> Term:
    """The child category, created under its parent, which an earlier event in
    ``DEMO_EVENTS`` must have created by name (keep that order when editing the data)."""
    existing = find_term(CATEGORIES, name)
    if existing is not None:
        return existing
    parent = find_term(CATEGORIES, CHILD_CATEGORIES[name])
    assert parent is not None, f"create {CHILD_CATEGORIES[name]!r} before {name!r}"
    description = f"{name}, a kind of {parent.name.lower()}."
    args = {"name": name, "description": description, "parent": parent.id}
    return create_term(CATEGORIES, args, parent.language, now)


__all__ = ["DEMO_ADMIN", "DEMO_EVENTS", "DemoResult", "load_demo", "record_counts"]
