"""From ``GET /events`` arguments to resolved filters, with TEC's date semantics.

Runs in the validation phase: unknown terms, venues, organizers and parents are 400s
naming the parameter, all reported together. Also builds the echo of the effective
query for ``rest_url`` and the pagination links, keeping every filter (TEC drops
some); the pager puts ``page`` and ``per_page`` in front of it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import typing as t

from ...dates import end_of_day, format_datetime, from_utc, parse_datetime, start_of_day, to_utc
from ...errors import ParamErrors, bad_param
from ...models import Event, Organizer, User, Venue
from ...rules.geo import bounding_box, coordinate_errors, haversine_km, radius_km
from ...rules.search import query_words
from ...schemas.event_status import EVENT_STATUSES
from ...settings import Settings
from ...wordpress.taxonomies import CATEGORIES, TAGS, Taxonomy
from ..lists.archive import ArchiveFilters
from ..lookups.events import readable_event, readable_ids
from ..lookups.site_state import max_event_seconds
from ..lookups.terms import descendants, taxonomy_index
from ..sql.modified import resolve_modified
from ..sql.visibility import requested_statuses

RELATIVE = ("starts_before", "starts_after", "ends_before", "ends_after")
#: TEC's order of the echoed query (after ``page`` and ``per_page``), then what TEC
#: forgets to echo
ECHO_ORDER = (
    "start_date",
    "end_date",
    "search",
    "status",
    "post_parent",
    "include",
    *RELATIVE,
    "strict_dates",
    "ticketed",
    "geoloc",
    "geoloc_lat",
    "geoloc_lng",
    "venue",
    "organizer",
    "featured",
    "categories",
    "tags",
    "modified_after",
    "modified_before",
    "orderby",
    "order",
    "hide_subsequent_recurrences",
    "event_status",
    "i18n_language",
)


@dataclasses.dataclass
class ArchiveRequest:
    filters: ArchiveFilters
    #: the effective query, in TEC's order
    echo: dict[str, str]


def resolve_archive(
    args: dict[str, t.Any],
    user: User | None,
    language: str,
    settings: Settings,
    now_utc: dt.datetime,
    generation: int | None = None,
) -> ArchiveRequest:
    """Turn validated args into filters, at the request's write ``generation`` (None:
    unknown); :raises InvalidParams: for bad references."""
    resolver = _Resolver(args, user, settings, now_utc)
    longest = max_event_seconds(generation)
    resolver.filters = ArchiveFilters(language=language, max_event_seconds=longest)
    resolver.dates()
    with resolver.errors.collecting():
        statuses, resolver.echo["status"] = requested_statuses(args.get("status"), user)
        resolver.filters.statuses = statuses
    resolver.terms()
    resolver.linked()
    resolver.flags()
    resolver.geo()
    resolver.errors.raise_if_any()
    if "search" in args:
        resolver.filters.search_words = query_words(args["search"])
        resolver.echo["search"] = args["search"]
    resolver.filters.modified, modified_echo = resolve_modified(args, settings.site_zone)
    resolver.echo.update(modified_echo)
    if args.get("hide_subsequent_recurrences"):
        resolver.filters.first_of_series = True
        resolver.echo["hide_subsequent_recurrences"] = "true"
    resolver.event_statuses()
    if "i18n_language" in args:
        resolver.echo["i18n_language"] = args["i18n_language"]
    echo = {key: resolver.echo[key] for key in ECHO_ORDER if key in resolver.echo}
    return ArchiveRequest(resolver.filters, echo)


class _Resolver:
    """One archive request being resolved: each step fills ``filters`` and ``echo``,
    and records its bad parameters in ``errors``."""

    filters: ArchiveFilters

    def __init__(
        self, args: dict[str, t.Any], user: User | None, settings: Settings, now_utc: dt.datetime
    ) -> None:
        self.args = args
        self.user = user
        self.settings = settings
        self.now_utc = now_utc
        self.echo: dict[str, str] = {}
        self.errors = ParamErrors()

    def dates(self) -> None:
        """TEC's window: whole days unless ``strict_dates``; defaults only without
        relative bounds; nothing at all with ``include``."""
        args, filters = self.args, self.filters
        if "include" in args:
            return
        zone = self.settings.site_zone
        strict = args.get("strict_dates", False)
        now_local = from_utc(self.now_utc, zone)

        def bound(name: str, at_end: bool) -> dt.datetime:
            local = parse_datetime(args[name], zone, now=now_local)
            if not strict:
                local = end_of_day(local) if at_end else start_of_day(local)
            self.echo[name] = format_datetime(local)
            return to_utc(local, zone)

        relative = any(name in args for name in RELATIVE)
        window = None if relative else _default_window(now_local.date(), zone)
        if "start_date" in args:
            filters.start_min = bound("start_date", at_end=False)
        elif window is not None:
            filters.start_min, self.echo["start_date"] = window[0]
        if "end_date" in args:
            filters.end_max = bound("end_date", at_end=True)
        elif window is not None:
            filters.end_max, self.echo["end_date"] = window[1]
        for name in RELATIVE:
            if name in args:
                setattr(filters, name, bound(name, at_end=True))
        if strict:
            self.echo["strict_dates"] = "true"

    def terms(self) -> None:
        for taxonomy in (CATEGORIES, TAGS):
            wanted = self.args.get(taxonomy.collection)
            if not wanted:
                continue
            with self.errors.collecting():
                self.filters.term_groups.append(_term_ids(taxonomy, wanted))
                self.echo[taxonomy.collection] = ",".join(str(item) for item in wanted)

    def linked(self) -> None:
        args, filters = self.args, self.filters
        for param, model, attribute in (
            ("venue", Venue, "venues"),
            ("organizer", Organizer, "organizers"),
            ("include", Event, "include"),
        ):
            if param not in args:
                continue
            ids = list(dict.fromkeys(args[param]))
            if param != "include":  # a venue or organizer the caller may not read is unknown
                known = readable_ids(model, ids, self.user)
                unknown = [i for i in ids if i not in known]
                if unknown:
                    self.errors.add(param, "unknown_linked", value=unknown[0])
                    continue
            setattr(filters, attribute, ids)
            self.echo[param] = ",".join(str(i) for i in ids)
        if "post_parent" in args:
            parent = args["post_parent"]
            if readable_event(parent, self.user) is None:
                self.errors.add("post_parent", "unknown_event")
            else:
                filters.post_parent = parent
                self.echo["post_parent"] = str(parent)

    def flags(self) -> None:
        for name in ("featured", "ticketed"):
            if name in self.args:
                setattr(self.filters, name, self.args[name])
                self.echo[name] = "1" if self.args[name] else "0"

    def event_statuses(self) -> None:
        """``event_status``: the statuses asked for, in their documented order; all of
        them (or none) is no filter, as without the parameter."""
        wanted = set(self.args.get("event_status") or ())
        chosen = [status for status in EVENT_STATUSES if status in wanted]
        if not chosen:
            return
        if len(chosen) < len(EVENT_STATUSES):
            self.filters.event_statuses = chosen
        self.echo["event_status"] = ",".join(chosen)

    def geo(self) -> None:
        """Built-in geolocation: ``geoloc`` wants coordinates; lat+lng want a radius."""
        args, settings = self.args, self.settings
        names = [name for name in ("geoloc", "geoloc_lat", "geoloc_lng") if name in args]
        if not names:
            return
        if not settings.geolocation:
            for name in names:
                self.errors.add(name, "geoloc_disabled")
            return
        problems = coordinate_errors(args, "geoloc")
        if problems:
            self.errors.update(problems)
            return
        if "geoloc_lat" in args:
            lat, lng = args["geoloc_lat"], args["geoloc_lng"]
            self.filters.geo_venues = venues_near(lat, lng, settings)
            self.echo.update(geoloc_lat=repr(lat), geoloc_lng=repr(lng))
        elif args.get("geoloc"):
            self.filters.geo_venues = True
        if "geoloc" in args:
            self.echo["geoloc"] = "1" if args["geoloc"] else "0"


@functools.lru_cache(maxsize=16)
def _default_window(
    today: dt.date, zone: dt.tzinfo
) -> tuple[tuple[dt.datetime, str], tuple[dt.datetime, str]]:
    """TEC's default window, from the start of ``today`` in ``zone`` to the end of the
    same day two years later: each bound in UTC and as echoed. Every list without
    dates asks for it, and it changes once a day, so it is kept."""
    start = dt.datetime.combine(today, dt.time())
    end = end_of_day(_years_later(start, 2))
    return (to_utc(start, zone), format_datetime(start)), (to_utc(end, zone), format_datetime(end))


def _years_later(value: dt.datetime, years: int) -> dt.datetime:
    try:
        return value.replace(year=value.year + years)
    except ValueError:  # 29 February
        return value.replace(year=value.year + years, day=28)


def _term_ids(taxonomy: Taxonomy, wanted: list[int | str]) -> list[int]:
    """IDs for IDs or slugs (names too), plus every descendant for categories.

    :raises InvalidParams: naming the first unknown term.
    """
    terms = taxonomy_index(taxonomy)
    known_ids = {term_id for term_id, _, _, _ in terms}
    by_key = {slug: term_id for term_id, slug, _, _ in terms}
    by_key.update({name.lower(): term_id for term_id, _, name, _ in terms})
    chosen: list[int] = []
    for item in wanted:
        if isinstance(item, int):
            term_id = item if item in known_ids else None
        else:
            term_id = by_key.get(item.lower())
        if term_id is None:
            raise bad_param(taxonomy.collection, "unknown_term", value=item)
        chosen.append(term_id)
    parents = {term_id: parent for term_id, _, _, parent in terms}
    return sorted(set(chosen) | descendants(parents, chosen))


def venues_near(lat: float, lng: float, settings: Settings) -> list[int]:
    """Published venues within the geofence radius: a bounding box on the
    ``(geo_lat, geo_lng)`` index first, then the exact great-circle distance."""
    km = radius_km(settings.geofence_radius, settings.geofence_unit)
    min_lat, max_lat, min_lng, max_lng = bounding_box(lat, lng, km)
    box = Venue.select(Venue.id, Venue.geo_lat, Venue.geo_lng).where(
        Venue.geo_lat.between(min_lat, max_lat)
        & Venue.geo_lng.between(min_lng, max_lng)
        & (Venue.status == "publish")
    )
    return [
        venue.id
        for venue in box
        # never None here (BETWEEN excludes NULL): the checks only narrow the types
        if venue.geo_lat is not None
        and venue.geo_lng is not None
        and haversine_km(lat, lng, venue.geo_lat, venue.geo_lng) <= km
    ]
