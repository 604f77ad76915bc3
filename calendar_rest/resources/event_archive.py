"""From ``GET /events`` arguments to resolved filters, with TEC's date semantics.

Runs in the validation phase: unknown terms, venues, organizers and parents are 400s
naming the parameter. Also builds the echo of the effective query for ``rest_url``
and the pagination links, keeping every filter (TEC drops some).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import typing as t

from ..dates import end_of_day, from_utc, parse_datetime, resolve_timezone, start_of_day, to_utc
from ..errors import InvalidParams, invalid_param
from ..models import TAXONOMY_CATEGORY, Event, Organizer, Term, User, Venue
from ..permissions import has_cap
from ..queries.archive import ArchiveFilters
from ..schemas.messages import ParamMessage
from ..search import query_words
from ..settings import Settings
from ..state import MAX_EVENT_SECONDS, read

ALL_STATUSES = ("publish", "future", "draft", "pending", "private", "trash")
RELATIVE = ("starts_before", "starts_after", "ends_before", "ends_after")
#: TEC's order of the echoed query, then what TEC forgets to echo
ECHO_ORDER = (
    "page", "per_page", "start_date", "end_date", "search", "status", "post_parent",
    "include", *RELATIVE, "strict_dates", "ticketed", "geoloc", "geoloc_lat", "geoloc_lng",
    "venue", "organizer", "featured", "categories", "tags", "i18n_language",
)
EARTH_KM = 6371.0
MILE_KM = 1.609344


@dataclasses.dataclass
class ArchiveRequest:
    filters: ArchiveFilters
    page: int
    per_page: int
    echo: dict[str, str]


def resolve_archive(
    args: dict[str, t.Any], user: User | None, language: str, settings: Settings,
    now_utc: dt.datetime | None = None,
) -> ArchiveRequest:
    """Turn validated args into filters; :raises InvalidParams: for bad references."""
    zone = resolve_timezone(settings.timezone)
    now_utc = now_utc or dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    filters = ArchiveFilters(language=language, max_event_seconds=read(MAX_EVENT_SECONDS))
    echo: dict[str, str] = {}
    errors: dict[str, ParamMessage] = {}
    for step in (_dates, _statuses, _terms, _linked, _flags, _geo):
        try:
            step(args, filters, echo, user=user, zone=zone, now=now_utc, settings=settings)
        except InvalidParams as exc:
            errors.update(exc.errors)
    if errors:
        raise InvalidParams(errors)
    per_page = min(args.get("per_page", settings.default_per_page), settings.max_per_page)
    echo.update(page=str(args["page"]), per_page=str(per_page))
    if "search" in args:
        filters.search_words = query_words(args["search"])
        echo["search"] = args["search"]
    if "i18n_language" in args:
        echo["i18n_language"] = args["i18n_language"]
    ordered = {key: echo[key] for key in ECHO_ORDER if key in echo}
    return ArchiveRequest(filters, args["page"], per_page, ordered)


def _fmt(value: dt.datetime) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S")


def _dates(args: dict[str, t.Any], filters: ArchiveFilters, echo: dict[str, str], *,
           zone: dt.tzinfo, now: dt.datetime, **_: t.Any) -> None:
    """TEC's window: whole days unless ``strict_dates``; defaults only without
    relative bounds; nothing at all with ``include``."""
    if "include" in args:
        return
    strict = args.get("strict_dates", False)
    now_local = from_utc(now, zone)

    def bound(name: str, at_end: bool) -> dt.datetime:
        local = parse_datetime(args[name], zone, now=now_local)
        if not strict:
            local = end_of_day(local) if at_end else start_of_day(local)
        echo[name] = _fmt(local)
        return to_utc(local, zone)

    relative = any(name in args for name in RELATIVE)
    if "start_date" in args:
        filters.start_min = bound("start_date", at_end=False)
    elif not relative:
        filters.start_min = to_utc(start_of_day(now_local), zone)
        echo["start_date"] = _fmt(start_of_day(now_local))
    if "end_date" in args:
        filters.end_max = bound("end_date", at_end=True)
    elif not relative:
        later = _years_later(now_local, 2)
        filters.end_max = to_utc(end_of_day(later), zone)
        echo["end_date"] = _fmt(end_of_day(later))
    for name in RELATIVE:
        if name in args:
            setattr(filters, name, bound(name, at_end=True))
    if strict:
        echo["strict_dates"] = "true"


def _years_later(value: dt.datetime, years: int) -> dt.datetime:
    try:
        return value.replace(year=value.year + years)
    except ValueError:  # 29 February
        return value.replace(year=value.year + years, day=28)


def _statuses(args: dict[str, t.Any], filters: ArchiveFilters, echo: dict[str, str], *,
              user: User | None, **_: t.Any) -> None:
    """Readers may only ask for ``publish``; writers for any registered status."""
    wanted = args.get("status")
    may_edit = has_cap(user, "edit_posts")
    if not wanted:
        echo["status"] = "any" if may_edit else "publish"
        return
    allowed = ALL_STATUSES if may_edit else ("publish",)
    if any(status not in allowed for status in wanted):
        raise invalid_param("status", "bad_status")
    filters.statuses = list(dict.fromkeys(wanted))
    echo["status"] = ",".join(filters.statuses)


def _terms(args: dict[str, t.Any], filters: ArchiveFilters, echo: dict[str, str],
           **_: t.Any) -> None:
    errors: dict[str, ParamMessage] = {}
    for param, taxonomy in (("categories", TAXONOMY_CATEGORY), ("tags", "post_tag")):
        if not args.get(param):
            continue
        try:
            ids = _term_ids(param, taxonomy, args[param])
        except InvalidParams as exc:
            errors.update(exc.errors)
            continue
        filters.term_groups.append(ids)
        echo[param] = ",".join(str(item) for item in args[param])
    if errors:
        raise InvalidParams(errors)


def _term_ids(param: str, taxonomy: str, wanted: list[int | str]) -> list[int]:
    """IDs for IDs or slugs (names too), plus every descendant for categories."""
    terms = list(Term.select(Term.id, Term.slug, Term.name, Term.parent).where(
        Term.taxonomy == taxonomy))
    by_id = {term.id: term for term in terms}
    by_key = {term.slug: term.id for term in terms}
    by_key.update({term.name.lower(): term.id for term in terms})
    chosen: list[int] = []
    for item in wanted:
        term_id = item if isinstance(item, int) and item in by_id else (
            by_key.get(item.lower()) if isinstance(item, str) else None)
        if term_id is None:
            raise InvalidParams({param: ParamMessage("unknown_term", param=param, value=item)})
        chosen.append(term_id)
    children: dict[int, list[int]] = {}
    for term in terms:
        if term.parent_id:
            children.setdefault(term.parent_id, []).append(term.id)
    result, stack = set(chosen), list(chosen)
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in result:
                result.add(child)
                stack.append(child)
    return sorted(result)


def _linked(args: dict[str, t.Any], filters: ArchiveFilters, echo: dict[str, str],
            **_: t.Any) -> None:
    errors: dict[str, ParamMessage] = {}
    checks = (("venue", Venue, "venues"), ("organizer", Organizer, "organizers"),
              ("include", Event, "include"))
    for param, model, attribute in checks:
        if param not in args:
            continue
        ids = list(dict.fromkeys(args[param]))
        if param != "include":
            known = {row.id for row in model.select(model.id).where(model.id.in_(ids or [0]))}
            unknown = [i for i in ids if i not in known]
            if unknown:
                errors[param] = ParamMessage("unknown_linked", param=param, value=unknown[0])
                continue
        setattr(filters, attribute, ids)
        echo[param] = ",".join(str(i) for i in ids)
    if "post_parent" in args:
        parent = args["post_parent"]
        if Event.get_or_none(Event.id == parent) is None:
            errors["post_parent"] = ParamMessage("unknown_event", param="post_parent")
        else:
            filters.post_parent = parent
            echo["post_parent"] = str(parent)
    if errors:
        raise InvalidParams(errors)


def _flags(args: dict[str, t.Any], filters: ArchiveFilters, echo: dict[str, str],
           **_: t.Any) -> None:
    for name in ("featured", "ticketed"):
        if name in args:
            setattr(filters, name, args[name])
            echo[name] = "1" if args[name] else "0"


def _geo(args: dict[str, t.Any], filters: ArchiveFilters, echo: dict[str, str], *,
         settings: Settings, **_: t.Any) -> None:
    """Built-in geolocation: ``geoloc`` wants coordinates; lat+lng want a radius."""
    names = [name for name in ("geoloc", "geoloc_lat", "geoloc_lng") if name in args]
    if not names:
        return
    if not settings.geolocation:
        raise InvalidParams({name: ParamMessage("geoloc_disabled", param=name) for name in names})
    if ("geoloc_lat" in args) != ("geoloc_lng" in args):
        missing, other = ("geoloc_lng", "geoloc_lat") if "geoloc_lat" in args else (
            "geoloc_lat", "geoloc_lng")
        raise InvalidParams({missing: ParamMessage("geoloc_pair", param=missing, other=other)})
    if "geoloc_lat" in args:
        lat, lng = args["geoloc_lat"], args["geoloc_lng"]
        errors = {}
        if not -90 <= lat <= 90:
            errors["geoloc_lat"] = ParamMessage("bad_latitude", param="geoloc_lat")
        if not -180 <= lng <= 180:
            errors["geoloc_lng"] = ParamMessage("bad_longitude", param="geoloc_lng")
        if errors:
            raise InvalidParams(errors)
        filters.geo_venues = venues_near(lat, lng, settings)
        echo.update(geoloc_lat=repr(lat), geoloc_lng=repr(lng))
    elif args.get("geoloc"):
        filters.geo_venues = True
    if "geoloc" in args:
        echo["geoloc"] = "1" if args["geoloc"] else "0"


def venues_near(lat: float, lng: float, settings: Settings) -> list[int]:
    """Published venues within the geofence radius: a bounding box on the
    ``(geo_lat, geo_lng)`` index first, then the exact great-circle distance."""
    radius_km = settings.geofence_radius * (MILE_KM if settings.geofence_unit == "miles" else 1)
    delta_lat = math.degrees(radius_km / EARTH_KM)
    cos_lat = max(math.cos(math.radians(lat)), 1e-6)
    delta_lng = min(180.0, math.degrees(radius_km / EARTH_KM / cos_lat))
    box = Venue.select(Venue.id, Venue.geo_lat, Venue.geo_lng).where(
        Venue.geo_lat.between(lat - delta_lat, lat + delta_lat)
        & Venue.geo_lng.between(lng - delta_lng, lng + delta_lng)
        & (Venue.status == "publish")
    )
    return [
        venue.id for venue in box
        # never None here (BETWEEN excludes NULL): the checks only narrow the types
        if venue.geo_lat is not None and venue.geo_lng is not None
        and haversine_km(lat, lng, venue.geo_lat, venue.geo_lng) <= radius_km
    ]


def haversine_km(lat1: float, lng1: float, lat2: float, lng2: float) -> float:
    phi1, phi2 = math.radians(lat1), math.radians(lat2)
    dphi, dlmb = phi2 - phi1, math.radians(lng2 - lng1)
    a = math.sin(dphi / 2) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlmb / 2) ** 2
    return 2 * EARTH_KM * math.asin(min(1.0, math.sqrt(a)))
