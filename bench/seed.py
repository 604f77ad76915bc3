"""Seed a benchmark database with N realistic events, straight through the models.

Creates the schema, a few users, venues (≈ N/200), organizers (≈ N/300), 25
categories (5 of them children), 60 tags and N events whose start dates spread
uniformly from one year before today to two years after (site zone UTC). Titles and
descriptions come from weighted word lists, so :data:`COMMON_WORD` matches a few
percent of the events and each of :data:`RARE_WORDS` only a few dozen per 100k.

Everything is written in one transaction with ``insert_many``: the database holds
either no events or all N of them, and a database that already holds N events is
left alone (idempotent). Deterministic for a given ``seed`` and seeding day.

    python bench/seed.py --database sqlite:///bench/data/events-100000.db --events 100000
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import random
import sys
import time
import typing as t
import uuid

import orjson
import peewee as pw

from calendar_rest import models
from calendar_rest.db import backend_name, connect_database
from calendar_rest.queries.lookups.site_state import max_event_seconds
from calendar_rest.repository.schema import create_schema
from calendar_rest.repository.site_state import bump_generation, note_event_seconds
from calendar_rest.repository.terms import refresh_term_counts
from calendar_rest.rules.search import CONTENT, TITLE, words_of
from calendar_rest.wordpress.cost import infer_currency, normalise_cost_input
from calendar_rest.wordpress.taxonomies import CATEGORIES as CATEGORY_TAXONOMY
from calendar_rest.wordpress.taxonomies import TAGS as TAG_TAXONOMY
from calendar_rest.wordpress.text import slugify

#: a word of the event formats that about 5% of the titles contain (the search scenario)
COMMON_WORD = "workshop"
#: uncommon words, one of which ~1% of descriptions mention (≈ 20 events each per 100k)
RARE_WORDS = (
    "accordion", "bioluminescence", "calligraphy", "didgeridoo", "espadrilles", "falconry",
    "glassblowing", "harpsichord", "ikebana", "juggling", "kombucha", "letterpress",
    "marquetry", "netsuke", "origami", "papermaking", "quilting", "rosemaling",
    "sashiko", "taxidermy", "ukulele", "verjuice", "woodturning", "xylography", "yodeling",
    "zither", "bookbinding", "cyanotype", "dulcimer", "embroidery", "fermentation",
    "gamelan", "hurdy-gurdy", "indigo", "kintsugi", "lacemaking", "macrame", "nyckelharpa",
    "oud", "pysanky", "raku", "shibori", "theremin", "upcycling", "vermicomposting",
    "weaving", "zentangle", "bonsai", "chainmail", "decoupage",
)  # fmt: skip

BASE_CITIES = (
    # city, state, province, country, zip, lat, lng, phone prefix
    ("Boston", "MA", "", "United States", "02110", 42.3601, -71.0589, "+1 617 555"),
    ("Austin", "TX", "", "United States", "78701", 30.2672, -97.7431, "+1 512 555"),
    ("New York", "NY", "", "United States", "10019", 40.7128, -74.0060, "+1 212 555"),
    ("Chicago", "IL", "", "United States", "60601", 41.8781, -87.6298, "+1 312 555"),
    ("Seattle", "WA", "", "United States", "98101", 47.6062, -122.3321, "+1 206 555"),
    ("Toronto", "", "ON", "Canada", "M5V 2T6", 43.6532, -79.3832, "+1 416 555"),
    ("London", "", "Greater London", "United Kingdom", "EC1A 1BB", 51.5072, -0.1276, "+44 20 7946"),
    ("Paris", "", "Île-de-France", "France", "75004", 48.8566, 2.3522, "+33 1 99 00"),
    ("Berlin", "", "Berlin", "Germany", "10117", 52.5200, 13.4050, "+49 30 1234"),
    ("Melbourne", "", "VIC", "Australia", "3000", -37.8136, 144.9631, "+61 3 9555"),
)  # fmt: skip
VENUE_PREFIXES = (
    "Harbor", "Riverside", "Grand", "Old Town", "Union", "Maple", "Lakeside", "Central",
    "Liberty", "Granite", "Oak Street", "Northside", "Heritage", "Meridian", "Pioneer",
    "Copper", "Willow", "Station", "Elm Park", "Bayview", "Crescent", "Summit",
)  # fmt: skip
VENUE_KINDS = (
    "Hall", "Theatre", "Park", "Jazz Club", "Gallery", "Arena", "Library", "Community Center",
    "Brewery", "Pavilion", "Studio", "Market Hall", "Ballroom", "Book Shop", "Stadium",
)  # fmt: skip
STREETS = (
    "Wharf Street", "Park Avenue", "Main Street", "High Street", "Mill Road", "Church Lane",
    "Market Square", "King Street", "Queen Street", "Station Road", "Elm Street",
)  # fmt: skip
ORGANIZER_NAMES = (
    "City Arts", "Riverside", "Blue Note", "Northern Lights", "Harbor", "Maple Leaf",
    "Sunrise", "Golden Gate", "Evergreen", "Silver Lake", "Open Door", "Red Brick",
    "Lantern", "Bright Path", "Two Rivers", "Stonebridge", "Foxglove", "Kestrel",
)  # fmt: skip
ORGANIZER_KINDS = (
    "Council", "Collective", "Society", "Running Club", "Foundation", "Productions",
    "Association", "Guild", "Makers", "Events Co.", "Trust", "Orchestra",
)  # fmt: skip

#: (name, parent name or None), most popular first; popularity follows this order
CATEGORIES = (
    ("Music", None), ("Community", None), ("Workshops", None), ("Family", None),
    ("Sports & Outdoors", None), ("Food & Drink", None), ("Arts", None), ("Theatre", None),
    ("Festivals", None), ("Film", None), ("Education", None), ("Health & Wellness", None),
    ("Markets", None), ("Nightlife", None), ("Technology", None), ("Business", None),
    ("Dance", None), ("Literature", None), ("Comedy", None), ("Charity", None),
    ("Jazz", "Music"), ("Running", "Sports & Outdoors"), ("Wine Tasting", "Food & Drink"),
    ("Classical", "Music"), ("Stand-up", "Comedy"),
)  # fmt: skip
TAGS = (
    "Family Friendly", "Free", "Outdoors", "Live Music", "Kids", "Accessible", "Evening",
    "Weekend", "Beginners", "All Ages", "Pet Friendly", "Vegan", "Indoor", "Seniors",
    "Students", "Hands-on", "Networking", "Charity", "Local", "Summer", "Winter", "Spring",
    "Autumn", "Holiday", "Book Club", "Craft Beer", "Wine", "Street Food", "Yoga",
    "Meditation", "Cycling", "Hiking", "Running", "Photography", "Painting", "Pottery",
    "Poetry", "Open Mic", "DJ", "Choir", "Orchestra", "Rock", "Folk", "Blues", "Hip-Hop",
    "Electronic", "Science", "Coding", "Startups", "History", "Architecture", "Gardening",
    "Cooking", "Baking", "Languages", "Chess", "Board Games", "Volunteering", "Fundraiser",
    "Wheelchair Accessible",
)  # fmt: skip

TITLE_OPENERS = (
    "Summer", "Winter", "Spring", "Autumn", "Community", "Downtown", "Late Night", "Sunday",
    "Family", "Annual", "Riverside", "Midweek", "Harbor", "Neighborhood", "Grand", "Open",
    "Beginner's", "Advanced", "Outdoor", "Candlelight",
)  # fmt: skip
TITLE_TOPICS = (
    "Jazz", "Pottery", "Yoga", "Watercolor", "Photography", "Folk", "Salsa", "Cooking",
    "Poetry", "Chess", "Science", "Coding", "Gardening", "Wine", "Craft Beer", "Book",
    "Film", "Comedy", "Choir", "Running", "Cycling", "History", "Astronomy", "Theatre",
    "Farmers", "Vintage", "Street Food", "Orchestra", "Dance", "Meditation",
)  # fmt: skip
#: event formats with their weights; COMMON_WORD's weight sets how common it is
TITLE_FORMATS = (
    ("Night", 12), ("Festival", 8), ("Market", 8), ("Workshop", 5), ("Meetup", 10),
    ("Concert", 10), ("Walk", 6), ("Class", 10), ("Tasting", 5), ("Fair", 6),
    ("Showcase", 6), ("Tour", 6), ("Brunch", 4), ("Marathon", 2), ("Jam Session", 2),
)  # fmt: skip
SENTENCES = (
    "Everyone is welcome, whatever their experience.",
    "Doors open thirty minutes before the start.",
    "Refreshments are available throughout the evening.",
    "Bring a friend and make a day of it.",
    "Tickets are limited, so book early to avoid disappointment.",
    "The venue is step-free and has accessible restrooms.",
    "Children under twelve must be accompanied by an adult.",
    "Local artists and makers will be showing their latest work.",
    "Parking is available nearby and the bus stops right outside.",
    "All materials are provided; just bring your curiosity.",
    "Stay afterwards for drinks and conversation with the performers.",
    "This is a relaxed, friendly session for all levels.",
    "Proceeds support the community garden and youth programs.",
    "Expect live music, good food and great company.",
    "Please arrive on time, as latecomers may not be admitted.",
    "Dress for the weather: the event goes ahead rain or shine.",
    "Our instructors have years of teaching experience.",
    "A short talk opens the session, followed by questions.",
    "Vegetarian and vegan options are available on request.",
    "Photography is encouraged, so bring your camera.",
)
COSTS = (
    ("Free", 20), ("", 18), ("15", 10), ("10", 8), ("20", 8), ("25", 6), ("5", 6),
    ("40", 3), ("10-25", 6), ("15-45", 3), ("$20", 5), ("$35", 3), ("€12", 2),
    ("Donation", 2),
)  # fmt: skip
DRAFT_RATE, HIDDEN_RATE, FEATURED_RATE, PASSWORD_RATE = 0.05, 0.02, 0.05, 0.01
STICKY_RATE, RARE_RATE = 0.005, 0.01
#: SQLite's default limit on bound parameters per statement (3.32+), with room to spare
MAX_PARAMETERS = 32_000
DAY = dt.timedelta(days=1)


class Seeder:
    """One seeding run; ``run`` writes everything and returns the counts."""

    def __init__(self, database: pw.Database, events: int, seed: int) -> None:
        self.database = database
        self.events = events
        self.rng = random.Random(seed)
        #: the events' iCalendar UIDs, from a generator of their own (the data drawn
        #: from ``rng`` stays what it was before UIDs were seeded)
        self.uid_rng = random.Random(f"uid-{seed}")
        self.now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None, microsecond=0)
        self.origin = dt.datetime.combine(self.now.date() - 365 * DAY, dt.time())
        self.slugs: dict[type[models.PostModel], dict[str, int]] = {}
        self.slug_bases: dict[str, str] = {}
        self.word_cache: dict[str, set[str]] = {}
        self.longest = 0  # seconds
        self.statements: dict[tuple[str, int], tuple[str, list[t.Any]]] = {}
        #: SQLite gets datetimes as the text the driver would make of them
        self.text_datetimes = backend_name(database) == "sqlite"
        self.counts: dict[str, int] = {}

    # -- helpers --------------------------------------------------------------------------

    def slug(self, model: type[models.PostModel], title: str) -> str:
        """WordPress-style unique slug: ``name``, then ``name-2``, ``name-3``…"""
        seen = self.slugs.setdefault(model, {})
        base = self.slug_bases.get(title)
        if base is None:
            base = self.slug_bases[title] = slugify(title) or model.__name__.lower()
        number = seen.get(base, 0) + 1
        seen[base] = number
        return base if number == 1 else f"{base}-{number}"

    def insert(
        self,
        model: type[models.BaseModel],
        fields: list[t.Any],
        rows: t.Iterable[tuple[t.Any, ...]],
    ) -> int:
        """Multi-row inserts in batches sized to the backend's parameter limit.

        The statement is the model's own ``insert_many`` SQL (columns left out get their
        model defaults), generated once per batch size; the values skip Peewee's
        per-value conversion, which would otherwise take most of the seeding time.
        """
        size = max(1, min(5000, MAX_PARAMETERS // len(fields)))
        dates = [i for i, f in enumerate(fields) if isinstance(f, pw.DateTimeField)]
        text_dates = dates if self.text_datetimes else []
        total = 0
        iterator = iter(rows)
        while batch := list(itertools.islice(iterator, size)):
            sql, defaults = self.statement(model, fields, len(batch))
            params: list[t.Any] = []
            for row in batch:
                values = list(row)
                for i in text_dates:
                    if values[i] is not None:
                        values[i] = str(values[i])
                params += values
                params += defaults
            self.database.execute_sql(sql, params)
            total += len(batch)
        self.counts[model._meta.table_name] = total
        return total

    def statement(
        self, model: type[models.BaseModel], fields: list[t.Any], rows: int
    ) -> tuple[str, list[t.Any]]:
        """``model.insert_many`` SQL for ``rows`` rows of ``fields`` and the default
        values Peewee adds after them for the other columns (cached)."""
        key = (model._meta.table_name, rows)
        if key not in self.statements:
            placeholder = tuple(range(len(fields)))
            query = model.insert_many([placeholder] * rows, fields=fields).as_rowcount()
            sql, params = self.database.get_sql_context().sql(query).query()
            width, remainder = divmod(len(params), rows)
            assert not remainder and width >= len(fields), "every value must be a parameter"
            self.statements[key] = (sql, params[len(fields) : width])
        return self.statements[key]

    def words(self, text: str) -> set[str]:
        """``search.words_of`` one piece of plain text (cached: pieces repeat)."""
        found = self.word_cache.get(text)
        if found is None:
            found = self.word_cache[text] = set(words_of(text))
        return found

    def stamps(self, when: dt.datetime) -> tuple[dt.datetime, ...]:
        """date, date_utc, modified, modified_utc (site zone UTC: local == UTC)."""
        modified = min(self.now, when + dt.timedelta(seconds=self.rng.randrange(30 * 86400)))
        return when, when, modified, modified

    def past(self, max_days: int) -> dt.datetime:
        return self.now - dt.timedelta(seconds=self.rng.randrange(max_days * 86400))

    # -- records --------------------------------------------------------------------------

    def users(self) -> list[int]:
        fields = [
            models.User.id,
            models.User.login,
            models.User.email,
            models.User.display_name,
            models.User.role,
            models.User.registered,
        ]
        people = [
            ("bench-admin", "administrator"),
            ("bench-editor", "editor"),
            ("bench-author", "author"),
            ("bench-reader", "subscriber"),
        ]
        rows = [
            (
                i,
                login,
                f"{login}@example.com",
                login.replace("-", " ").title(),
                role,
                self.past(1500),
            )
            for i, (login, role) in enumerate(people, 1)
        ]
        self.insert(models.User, fields, rows)
        return [1, 2, 3]  # authors of content: administrator, editor, author

    def author(self) -> int:
        roll = self.rng.random()
        return 1 if roll < 0.85 else 2 if roll < 0.95 else 3

    def post_row(self, pk: int, title: str, model: type[models.PostModel]) -> tuple[t.Any, ...]:
        """The PostModel columns, in :data:`POST_FIELDS` order."""
        return (
            pk,
            self.author(),
            "publish",
            self.slug(model, title),
            title,
            "",
            "",
            *self.stamps(self.past(1200)),
        )

    def venues(self) -> int:
        count = max(20, self.events // 200)
        rng = self.rng
        fields = [
            *post_fields(models.Venue),
            models.Venue.address,
            models.Venue.city,
            models.Venue.country,
            models.Venue.province,
            models.Venue.state,
            models.Venue.zip,
            models.Venue.phone,
            models.Venue.website,
            models.Venue.stateprovince,
            models.Venue.geo_lat,
            models.Venue.geo_lng,
        ]

        def rows() -> t.Iterator[tuple[t.Any, ...]]:
            for pk in range(1, count + 1):
                city, state, province, country, zip_code, lat, lng, phone = rng.choice(BASE_CITIES)
                title = f"{rng.choice(VENUE_PREFIXES)} {rng.choice(VENUE_KINDS)}"
                geo = rng.random() < 0.7
                yield (
                    *self.post_row(pk, title, models.Venue),
                    f"{rng.randint(1, 480)} {rng.choice(STREETS)}",
                    city,
                    country,
                    province,
                    state,
                    zip_code,
                    f"{phone} {rng.randint(1000, 9999)}",
                    f"https://{slugify(title)}.example.com" if rng.random() < 0.5 else "",
                    state if country == "United States" else province,
                    round(lat + rng.gauss(0, 0.05), 6) if geo else None,
                    round(lng + rng.gauss(0, 0.05), 6) if geo else None,
                )

        return self.insert(models.Venue, fields, rows())

    def organizers(self) -> int:
        count = max(10, self.events // 300)
        rng = self.rng
        fields = [
            *post_fields(models.Organizer),
            models.Organizer.phone,
            models.Organizer.website,
            models.Organizer.email,
        ]

        def rows() -> t.Iterator[tuple[t.Any, ...]]:
            for pk in range(1, count + 1):
                title = f"{rng.choice(ORGANIZER_NAMES)} {rng.choice(ORGANIZER_KINDS)}"
                domain = f"{slugify(title)}.example.com"
                yield (
                    *self.post_row(pk, title, models.Organizer),
                    f"+1 555 01{rng.randint(10, 99)}",
                    f"https://{domain}",
                    f"hello@{domain}",
                )

        return self.insert(models.Organizer, fields, rows())

    def terms(self) -> tuple[list[int], list[int]]:
        """Categories then tags; returns their IDs, most popular first."""
        fields = [
            models.Term.id,
            models.Term.taxonomy,
            models.Term.name,
            models.Term.slug,
            models.Term.description,
            models.Term.parent,
        ]
        ids = {name: pk for pk, (name, _) in enumerate(CATEGORIES, 1)}
        rows = [
            (
                pk,
                CATEGORY_TAXONOMY.name,
                name,
                slugify(name),
                f"{name} events.",
                ids[parent] if parent else None,
            )
            for pk, (name, parent) in enumerate(CATEGORIES, 1)
        ]
        first_tag = len(rows) + 1
        rows += [
            (pk, TAG_TAXONOMY.name, name, slugify(name), "", None)
            for pk, name in enumerate(TAGS, first_tag)
        ]
        self.insert(models.Term, fields, rows)
        return list(range(1, first_tag)), list(range(first_tag, first_tag + len(TAGS)))

    # -- events ---------------------------------------------------------------------------

    def schedule(self) -> list[tuple[int, int]]:
        """(publication, start) as second offsets from the start of the 3-year span,
        sorted by publication so that IDs grow with creation time as in WordPress."""
        rng = self.rng
        span = 3 * 365 * 86400
        now = int((self.now - self.origin).total_seconds())
        pairs = []
        for _ in range(self.events):
            day = rng.randrange(span // 86400) * 86400
            start = day + rng.choice((8, 9, 10, 11, 12, 14, 17, 18, 19, 19, 20, 21)) * 3600
            start += rng.choice((0, 15, 30, 30, 45)) * 60
            published = start - rng.randrange(3 * 86400, 120 * 86400)
            if published > now:  # announced recently, well ahead of time
                published = now - rng.randrange(90 * 86400)
            pairs.append((published, start))
        pairs.sort()
        return pairs

    def event_rows(
        self,
        schedule: list[tuple[int, int]],
        first_id: int,
        links: dict[str, list[tuple[t.Any, ...]]],
    ) -> t.Iterator[tuple[t.Any, ...]]:
        """Event rows in the order of ``run``'s fields; their links go into ``links``."""
        rng = self.rng
        origin = self.origin
        formats, format_weights = zip(*TITLE_FORMATS, strict=True)
        format_weights = tuple(itertools.accumulate(format_weights))
        costs, cost_weights = zip(*COSTS, strict=True)
        cost_weights = tuple(itertools.accumulate(cost_weights))
        cost_columns = {raw: cost_columns_for(raw) for raw in costs}
        venue_ids, venue_weights = self.venue_ids, self.venue_weights
        for pk, (published, start) in enumerate(schedule, first_id):
            title = (
                f"{rng.choice(TITLE_OPENERS)} {rng.choice(TITLE_TOPICS)} "
                f"{rng.choices(formats, cum_weights=format_weights)[0]}"
            )
            sentences = rng.sample(SENTENCES, rng.randint(2, 4))
            if rng.random() < RARE_RATE:
                sentences.insert(1, f"This edition's theme is {rng.choice(RARE_WORDS)}.")
            description = f"{title}: {sentences[0]}\n\n" + " ".join(sentences[1:])
            excerpt = sentences[0] if rng.random() < 0.4 else ""
            # search.indexed_words(title, excerpt, description), from the words of its
            # pieces (joined by non-word characters, so no word spans two pieces)
            title_words = self.words(title)
            content = set().union(*map(self.words, sentences)) - title_words
            links["words"] += [("e", word, pk, TITLE) for word in sorted(title_words)]
            links["words"] += [("e", word, pk, CONTENT) for word in sorted(content)]
            all_day, start_at, end_at = self.duration(origin + dt.timedelta(seconds=start))
            self.longest = max(self.longest, int((end_at - start_at).total_seconds()))
            date = origin + dt.timedelta(seconds=published)
            status = "draft" if rng.random() < DRAFT_RATE else "publish"
            chosen = rng.choices(venue_ids, cum_weights=venue_weights)[0]
            venue = chosen if rng.random() < 0.92 else None
            cost, symbol, position = cost_columns[rng.choices(costs, cum_weights=cost_weights)[0]]
            slug = self.slug(models.Event, title)
            yield (
                pk,
                self.author(),
                status,
                slug,
                title,
                description,
                excerpt,
                "letmein" if rng.random() < PASSWORD_RATE else "",
                *self.stamps(date),
                start_at,
                end_at,
                start_at,
                end_at,
                "UTC",
                all_day,
                cost,
                symbol,
                position,
                f"https://tickets.example.com/{slug}" if rng.random() < 0.3 else None,
                venue is not None,
                venue is not None,
                rng.random() < HIDDEN_RATE,
                rng.random() < STICKY_RATE,
                rng.random() < FEATURED_RATE,
                venue,
                # as the API gives one; left empty, ``serve`` would give each at start-up,
                # one UPDATE an event (about 5 minutes at 1,000,000 events)
                str(uuid.UUID(int=self.uid_rng.getrandbits(128), version=4)),
            )
            self.links(pk, links)

    def duration(self, start: dt.datetime) -> tuple[bool, dt.datetime, dt.datetime]:
        """(all_day, start, end): mostly 1-8 hours; some all-day (a few over 2-3 days,
        from 00:00:00 to 23:59:59 as TEC stores them); some timed multi-day."""
        roll = self.rng.random()
        if roll < 0.08:
            days = 1 if roll < 0.05 else self.rng.randint(2, 3)
            start = start.replace(hour=0, minute=0, second=0)
            return True, start, start.replace(hour=23, minute=59, second=59) + (days - 1) * DAY
        if roll < 0.10:
            return False, start, start + dt.timedelta(hours=self.rng.choice((24, 48, 72)))
        hours = self.rng.choice((1, 1.5, 2, 2, 2, 3, 3, 4, 6, 8))
        return False, start, start + dt.timedelta(hours=hours)

    def links(self, pk: int, links: dict[str, list[tuple[t.Any, ...]]]) -> None:
        rng = self.rng
        organizers = rng.sample(range(1, self.organizer_count + 1), rng.choice((1, 1, 1, 2)))
        links["organizers"] += [(pk, o, i) for i, o in enumerate(organizers)]
        categories = set(rng.choices(self.category_ids, self.category_weights, k=rng.randint(1, 3)))
        tags = set(rng.choices(self.tag_ids, self.tag_weights, k=rng.randint(0, 3)))
        links["terms"] += [(pk, term, i) for i, term in enumerate(sorted(categories | tags))]

    def run(self) -> dict[str, int]:
        self.users()
        venues = self.venues()
        self.venue_ids = list(range(1, venues + 1))
        # a few busy venues, a long tail of quiet ones
        self.venue_weights = list(itertools.accumulate(1 / i**0.5 for i in self.venue_ids))
        self.organizer_count = self.organizers()
        self.category_ids, self.tag_ids = self.terms()
        self.category_weights = [1 / (i + 1) ** 0.9 for i in range(len(self.category_ids))]
        self.tag_weights = [1 / (i + 1) ** 0.8 for i in range(len(self.tag_ids))]
        schedule = self.schedule()
        fields = [
            *post_fields(models.Event, with_password=True),
            models.Event.start_local,
            models.Event.end_local,
            models.Event.start_utc,
            models.Event.end_utc,
            models.Event.timezone,
            models.Event.all_day,
            models.Event.cost,
            models.Event.currency_symbol,
            models.Event.currency_position,
            models.Event.website,
            models.Event.show_map,
            models.Event.show_map_link,
            models.Event.hide_from_listings,
            models.Event.sticky,
            models.Event.featured,
            models.Event.venue,
            models.Event.uid,
        ]
        link_fields = {
            "organizers": (
                models.EventOrganizer,
                [
                    models.EventOrganizer.event,
                    models.EventOrganizer.organizer,
                    models.EventOrganizer.position,
                ],
            ),
            "terms": (
                models.EventTerm,
                [models.EventTerm.event, models.EventTerm.term, models.EventTerm.position],
            ),
            "words": (
                models.SearchWord,
                [
                    models.SearchWord.kind,
                    models.SearchWord.word,
                    models.SearchWord.record_id,
                    models.SearchWord.part,
                ],
            ),
        }
        totals = {"event_organizer": 0, "event_term": 0, "search_word": 0}
        chunk = 20_000
        for offset in range(0, len(schedule), chunk):
            links: dict[str, list[tuple[t.Any, ...]]] = {"organizers": [], "terms": [], "words": []}
            rows = self.event_rows(schedule[offset : offset + chunk], offset + 1, links)
            self.insert(models.Event, fields, rows)
            for name, (model, model_fields) in link_fields.items():
                totals[model._meta.table_name] += self.insert(model, model_fields, links[name])
        self.counts.update(totals, event=len(schedule))
        refresh_term_counts(self.category_ids + self.tag_ids)
        # what every event write maintains: the longest-event bound, a new generation
        note_event_seconds(self.longest)
        bump_generation()
        return self.counts


def post_fields(model: type[models.PostModel], *, with_password: bool = False) -> list[t.Any]:
    """The PostModel columns :meth:`Seeder.post_row` fills, in order."""
    fields = [
        model.id,
        model.author,
        model.status,
        model.slug,
        model.title,
        model.description,
        model.excerpt,
    ]
    if with_password:
        fields.append(model.password)
    return [*fields, model.date, model.date_utc, model.modified, model.modified_utc]


def cost_columns_for(raw: str) -> tuple[str, str, str]:
    """cost (JSON list), currency_symbol, currency_position, as the API stores them."""
    values = normalise_cost_input(raw) if raw else ()
    symbol, position = infer_currency(values) if values else ("", "")
    return orjson.dumps(list(values)).decode(), symbol, position


#: the tables a seeding fills (``SiteState`` rows exist from schema creation on)
SEEDED = tuple(model for model in models.MODELS if model is not models.SiteState)


def _complete(database_url: str) -> bool:
    """Whether the derived data the write path maintains is there too.

    :raises RuntimeError: when it is not (a database from an older seeder).
    """
    if max_event_seconds() > 0 and models.SearchWord.select().exists():
        return True
    raise RuntimeError(
        f"{database_url} holds events but no search words or longest-event bound "
        "(seeded by an older seeder); delete it to re-seed"
    )


def _fix_sequences(database: pw.Database) -> None:
    """PostgreSQL: move ID sequences past the explicit IDs the seeder wrote."""
    if backend_name(database) != "postgresql":
        return
    for model in models.MODELS:
        if isinstance(model._meta.primary_key, pw.AutoField):
            table = model._meta.table_name
            database.execute_sql(
                f"SELECT setval(pg_get_serial_sequence('\"{table}\"', 'id'), "
                f'COALESCE((SELECT MAX(id) FROM "{table}"), 1))'
            )


def seed(database_url: str, events: int, *, seed: int = 42) -> dict[str, t.Any]:
    """Seed ``events`` events into ``database_url`` unless it already holds exactly that
    many; returns the record counts, ``seconds`` and ``skipped``.

    :raises RuntimeError: when the database holds other data (a different N, say).
    """
    if events < 1:
        raise ValueError("events must be positive")
    database = connect_database(database_url)
    create_schema(database)
    started = time.perf_counter()
    sqlite = backend_name(database) == "sqlite"
    try:
        with database.connection_context():
            existing = models.Event.select().count()
            if existing == events and _complete(database_url):
                return {"events": events, "skipped": True, "seconds": 0.0}
            if existing or any(m.select().exists() for m in models.MODELS if m in SEEDED):
                raise RuntimeError(
                    f"{database_url} holds other data ({existing} events); "
                    "use an empty database (delete the file) to seed "
                    f"{events} events"
                )
            if sqlite:  # a fresh file: no WAL to grow by every page written, then fold
                database.execute_sql("PRAGMA journal_mode=MEMORY")
                database.execute_sql("PRAGMA synchronous=OFF")
                database.execute_sql("PRAGMA cache_size=-262144")  # 256 MiB
            with database.atomic():
                counts: dict[str, t.Any] = Seeder(database, events, seed).run()
                _fix_sequences(database)
            if sqlite:
                database.execute_sql("PRAGMA journal_mode=WAL")
                database.execute_sql("PRAGMA synchronous=NORMAL")
    finally:
        database.close()
    counts.update(skipped=False, seconds=round(time.perf_counter() - started, 1))
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", required=True, metavar="URL", help="database URL")
    parser.add_argument("--events", type=int, required=True, help="number of events (N)")
    parser.add_argument("--seed", type=int, default=42, help="random seed (default 42)")
    args = parser.parse_args(argv)
    try:
        result = seed(args.database, args.events, seed=args.seed)
    except RuntimeError as exc:
        print(f"seed: {exc}", file=sys.stderr)
        return 1
    if result["skipped"]:
        print(f"{args.database}: already holds {args.events} events; nothing to do.")
    else:
        counts = ", ".join(f"{k}: {v}" for k, v in result.items() if k not in ("skipped",))
        print(f"Seeded {args.database}: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
