"""``calendar-rest import --from-tec URL``: copy a TEC site (``calendar.md`` §6).

Every list is read whole first (terms, venues, organizers, events), then copied in
dependency order through the API's validation and write functions. Records are matched
on re-runs by the source ``global_id`` recorded in ``global_id_lineage`` (terms by
slug) and only the fields that differ are written, so a second run writes nothing.
"""

from __future__ import annotations

import dataclasses
import functools
import typing as t

import orjson
import peewee
from marshmallow import ValidationError

from ..dates import parse_datetime, resolve_timezone
from ..errors import RestError
from ..i18n.catalogs import Translate
from ..i18n.messages import N_
from ..models import Event, Organizer, PostModel, Venue
from ..queries.lookups import imports as match
from ..repository.events import check_event_write
from ..repository.linked import check_linked_write, create_linked, update_linked
from ..repository.series_edits import apply_exception, reset_exceptions, save_event_write
from ..repository.series_values import base_of, exceptions_of, lines_of
from ..repository.terms import create_term, update_term
from ..rules.markup import Markup
from ..schemas import (
    EventCreateArgs,
    EventWriteArgs,
    MissingParams,
    OrganizerCreateArgs,
    OrganizerWriteArgs,
    VenueCreateArgs,
    VenueWriteArgs,
    validate,
)
from ..wordpress.cost import normalise_cost_input
from ..wordpress.taxonomies import CATEGORIES, TAGS, Taxonomy
from .common import (
    Batches,
    ImportOptions,
    Progress,
    Tally,
    filtered,
    locked,
    operator,
    write_context,
)
from .ics_series import holds, occurrence_values
from .tec_client import Namespace, SourceUnusable, TecClient

__all__ = ["SourceUnusable", "TecImport"]

BATCH = 50
EVENT_RANGE = {"start_date": "1970-01-01 00:00:00", "end_date": "2100-12-31 23:59:59"}
TERM_PARAMS = {"hide_empty": "false"}
READING = N_("%(list)s %(done)d/%(total)d")
FAILED = N_("failed: %(url)s: %(reason)s")
SLUG_TAKEN = N_("%(url)s: slug “%(slug)s” is taken here, copied as “%(copy)s”")
FORMAT = "%Y-%m-%d %H:%M:%S"
VENUE_TEXT = ("address", "city", "country", "province", "state", "zip", "phone", "website")
ORGANIZER_TEXT = ("email", "phone", "website")
EVENT_FLAGS = ("all_day", "show_map", "show_map_link", "hide_from_listings", "sticky", "featured")
NAME = {Venue: "venue", Organizer: "organizer"}
KIND = {Venue: "venues", Organizer: "organizers", Event: "events"}


class Failed(Exception):
    """One source record that could not be copied, and why."""


@dataclasses.dataclass
class TecImport:
    """One copy of one source into the database."""

    database: peewee.Database
    options: ImportOptions
    progress: Progress
    _: Translate
    client: TecClient
    tally: Tally = dataclasses.field(default_factory=Tally)
    #: per kind, source id → target id
    ids: dict[str, dict[int, int]] = dataclasses.field(default_factory=dict)
    #: masters of series created by this run (their occurrences count as created)
    series_created: set[int] = dataclasses.field(default_factory=set)

    def run(self) -> Tally:
        namespace = self.client.discover()
        categories = self._read("categories", TERM_PARAMS)
        tags = self._read("tags", TERM_PARAMS)
        venues = self._read("venues", {})
        organizers = self._read("organizers", {})
        events = self._read("events", EVENT_RANGE)
        _add_embedded(events, "venue", venues)
        _add_embedded(events, "organizer", organizers)
        batches = Batches(self.database, BATCH, dry_run=False)
        try:
            self._terms(CATEGORIES, _parents_first(categories), batches)
            self._terms(TAGS, tags, batches)
            for model, records in ((Venue, venues), (Organizer, organizers)):
                for record in records:
                    copy = functools.partial(
                        self._linked, model, namespace=namespace, batches=batches
                    )
                    self._each(batches, record, copy)
            occurrences = [record for record in events if record.get("recurring_event_id")]
            for record in events:
                if not record.get("recurring_event_id"):
                    self._each(batches, record, lambda r: self._event(r, namespace, batches))
            copy_occurrence = functools.partial(
                self._occurrence, events=events, namespace=namespace, batches=batches
            )
            for record in occurrences:  # after every master: matched in the copied series
                self._each(batches, record, copy_occurrence)
            batches.flush()
        except BaseException:
            batches.abort()
            raise
        return self.tally

    # -- reading ----------------------------------------------------------------------

    def _read(self, collection: str, params: dict[str, str]) -> list[dict[str, t.Any]]:
        records: list[dict[str, t.Any]] = []
        for items, total in self.client.pages(collection, params):
            records.extend(items)
            self.progress.show(READING, len(records), total, list=collection)
        self.progress.end()
        return records

    # -- writing ----------------------------------------------------------------------

    def _each(
        self, batches: Batches, record: dict[str, t.Any], copy: t.Callable[[dict[str, t.Any]], str]
    ) -> None:
        """Copy one record in its own savepoint; a refusal fails it alone."""
        try:
            with batches.unit():
                outcome = copy(record)
        except (Failed, RestError, MissingParams, ValidationError, ValueError, TypeError) as exc:
            self.tally.failed += 1
            reason = self._(str(exc)) if isinstance(exc, Failed) else _reason(exc)
            url = record.get("rest_url") or record.get("url") or record.get("id")
            self.progress.message(self._(FAILED) % {"url": url, "reason": reason})
            return
        if outcome in self.tally.created:
            self.tally.created[outcome] += 1
        elif outcome == "updated":
            self.tally.updated += 1
        else:
            self.tally.unchanged += 1

    def _terms(self, taxonomy: Taxonomy, records: list[dict[str, t.Any]], batches: Batches) -> None:
        known = self.ids.setdefault(taxonomy.collection, {})
        for record in records:
            self._each(batches, record, lambda r: self._term(taxonomy, r, known, batches))

    def _term(
        self, taxonomy: Taxonomy, record: dict[str, t.Any], known: dict[int, int], batches: Batches
    ) -> str:
        args: dict[str, t.Any] = {
            "name": filtered(self.options, str(record.get("name") or ""), Markup.INLINE),
            "description": filtered(
                self.options, str(record.get("description") or ""), Markup.POST
            ),
        }
        if not args["name"]:
            raise Failed(N_("no name"))
        if taxonomy is CATEGORIES:
            parent = _int(record.get("parent"))
            args["parent"] = known.get(parent) if parent else None
        slug = str(record.get("slug") or "")
        term = match.term_by_slug(taxonomy, slug) if slug else None
        now = write_context(self.options).now
        if term is None:
            batches.writing()
            term = create_term(taxonomy, {**args, "slug": slug}, "en", now)
            known[int(record["id"])] = term.id
            return taxonomy.collection
        known[int(record["id"])] = term.id
        stored = {"name": term.name, "description": term.description, "parent": term.parent_id}
        changed = {key: value for key, value in args.items() if stored[key] != value}
        if not changed:
            return "unchanged"
        batches.writing()
        update_term(term, changed, now)
        return "updated"

    def _linked(
        self,
        model: type[Venue] | type[Organizer],
        record: dict[str, t.Any],
        *,
        namespace: Namespace,
        batches: Batches,
    ) -> str:
        name_field = NAME[model]
        args: dict[str, t.Any] = {
            name_field: filtered(self.options, str(record.get(name_field) or ""), Markup.INLINE),
        }
        description = filtered(self.options, str(record.get("description") or ""), Markup.POST)
        if description:
            args["description"] = description
        for field in VENUE_TEXT if model is Venue else ORGANIZER_TEXT:
            if isinstance(record.get(field), str) and record[field]:
                args[field] = record[field]
        if model is Venue:
            for field in ("geo_lat", "geo_lng"):
                if isinstance(record.get(field), (int, float)) and not isinstance(
                    record[field], bool
                ):
                    args[field] = record[field]
            for field in ("show_map", "show_map_link"):
                if isinstance(record.get(field), bool):
                    args[field] = record[field]
        self._common(args, record)
        kind = KIND[model]
        outcome = self._write_linked(model, args, record, namespace, batches)
        return kind if outcome == "created" else outcome

    def _common(self, args: dict[str, t.Any], record: dict[str, t.Any]) -> None:
        """Status (``--status`` wins), image URL, and ``--author`` on creation."""
        status = self.options.status or record.get("status")
        if isinstance(status, str) and status in (
            "publish",
            "draft",
            "pending",
            "private",
            "future",
        ):
            args["status"] = status
        image = record.get("image")
        if isinstance(image, dict) and isinstance(image.get("url"), str):
            args["image"] = image["url"]

    def _write_linked(
        self,
        model: type[Venue] | type[Organizer],
        args: dict[str, t.Any],
        record: dict[str, t.Any],
        namespace: Namespace,
        batches: Batches,
    ) -> str:
        source_id, lineage = _identity(record, namespace)
        slug = str(record.get("slug") or "")
        existing = locked(match.by_source_id(model, source_id))
        ctx = write_context(self.options)
        known = self.ids.setdefault(KIND[model], {})
        if existing is None:
            if self.options.author is not None:
                args["author"] = self.options.author.id
            schema = VenueCreateArgs() if model is Venue else OrganizerCreateArgs()
            write = check_linked_write(model, validate(schema, args), operator())
            write.args["slug"] = slug
            write.lineage = lineage
            batches.writing()
            created = create_linked(model, write, ctx)
            known[int(record["id"])] = created.id
            self._report_slug(record, slug, created.slug)
            return "created"
        known[int(record["id"])] = existing.id
        changed = _changed(existing, {**args, "slug": slug}, lineage)
        if not changed:
            return "unchanged"
        schema = VenueWriteArgs() if model is Venue else OrganizerWriteArgs()
        validated = validate(schema, {k: v for k, v in changed.items() if k != "slug"})
        write = check_linked_write(model, validated, operator(), existing.language, existing)
        if "slug" in changed:
            write.args["slug"] = slug
        write.lineage = lineage
        batches.writing()
        update_linked(existing, write, ctx)
        self._report_slug(record, slug, existing.slug)
        return "updated"

    def _event(self, record: dict[str, t.Any], namespace: Namespace, batches: Batches) -> str:
        """A stand-alone event, or the master of a series (a calendar_rest source's
        non-empty ``recurrence``): copied as a series, its occurrences created here."""
        args = self._event_args(record)
        lines = _lines(record)
        limits = self.options.limits
        source_id, lineage = _identity(record, namespace)
        slug = str(record.get("slug") or "")
        existing = locked(match.by_source_id(Event, source_id))
        ctx = write_context(self.options)
        if existing is None:
            if self.options.author is not None:
                args["author"] = self.options.author.id
            if lines:
                args["recurrence"] = lines
            write = check_event_write(
                validate(EventCreateArgs(), {**args, "slug": slug}), operator()
            )
            write.lineage = lineage
            batches.writing()
            created = save_event_write(write, ctx, None, limits)
            self.series_created.add(created.id)
            self._report_slug(record, slug, created.slug)
            return "events"
        changed = _changed(existing, {**args, "slug": slug}, lineage)
        if lines != lines_of(existing):
            changed["recurrence"] = lines
        if not changed:
            return "unchanged"
        write = check_event_write(
            validate(EventWriteArgs(), changed), operator(), existing.language, existing
        )
        write.lineage = lineage
        batches.writing()
        save_event_write(write, ctx, existing, limits)
        self._report_slug(record, slug, existing.slug)
        return "updated"

    def _occurrence(
        self,
        record: dict[str, t.Any],
        *,
        events: list[dict[str, t.Any]],
        namespace: Namespace,
        batches: Batches,
    ) -> str:
        """A listed occurrence of a source series: matched by original start to the
        copy's occurrence, whose exception fields become the fields that differ from
        the series (§6); the others go back to the series values."""
        master_id = _int(record.get("recurring_event_id"))
        source_master = next((e for e in events if _int(e.get("id")) == master_id), None)
        if source_master is None:
            raise Failed(N_("its series is not listed"))
        master = match.by_source_id(Event, _identity(source_master, namespace)[0])
        if master is None or not master.recurrence:
            raise Failed(N_("its series was not copied"))
        base = base_of(master)
        zone = resolve_timezone(base.get("timezone") or master.timezone)
        original = parse_datetime(str(record.get("original_start_date") or ""), zone)
        row = match.occurrence_at(master.id, original)
        if row is None or row.status == "trash":
            raise Failed(N_("the copied series has no occurrence at its original start"))
        wanted = occurrence_values(master, self._event_args(record), original)
        created = master.id in self.series_created
        if exceptions_of(row) == set(wanted) and holds(row, wanted):
            return "events" if created else "unchanged"
        ctx = write_context(self.options)
        batches.writing()
        reset_exceptions(row, ctx, keep=set(wanted))
        if wanted:
            args = {**wanted, "scope": "this"}
            write = check_event_write(validate(EventWriteArgs(), args), operator(), "en", row)
            apply_exception(write, ctx, row, self.options.limits)
        return "events" if created else "updated"

    def _event_args(self, record: dict[str, t.Any]) -> dict[str, t.Any]:
        """§6's copied event fields, linked records by their copies' ids."""
        args: dict[str, t.Any] = {
            "title": filtered(self.options, str(record.get("title") or ""), Markup.INLINE),
            "start_date": record.get("start_date"),
            "end_date": record.get("end_date"),
        }
        for field in ("description", "excerpt"):
            text = filtered(self.options, str(record.get(field) or ""), Markup.POST)
            if text:
                args[field] = text
        if isinstance(record.get("timezone"), str) and record["timezone"]:
            args["timezone"] = record["timezone"]
        for flag in EVENT_FLAGS:
            if isinstance(record.get(flag), bool):
                args[flag] = record[flag]
        website = record.get("website")
        if isinstance(website, str) and website and website != record.get("url"):
            args["website"] = website  # TEC falls back to the permalink: not a website
        if isinstance(record.get("date_utc"), str) and record["date_utc"]:
            args["date_utc"] = record["date_utc"]
        cost = _cost(record)
        if cost:
            args["cost"] = cost
        self._common(args, record)
        venue = record.get("venue")
        venue_id = _int(venue.get("id")) if isinstance(venue, dict) else None
        args["venue"] = self.ids.get("venues", {}).get(venue_id or 0, 0)
        organizers = record.get("organizer") or []
        args["organizer"] = [
            self.ids.get("organizers", {})[_int(o.get("id")) or 0]
            for o in organizers
            if isinstance(o, dict) and (_int(o.get("id")) or 0) in self.ids.get("organizers", {})
        ]
        for taxonomy in (CATEGORIES, TAGS):
            known = self.ids.get(taxonomy.collection, {})
            terms = record.get(taxonomy.collection) or []
            args[taxonomy.collection] = [
                known[_int(term.get("id")) or 0]
                for term in terms
                if isinstance(term, dict) and (_int(term.get("id")) or 0) in known
            ]
        return args

    def _report_slug(self, record: dict[str, t.Any], wanted: str, got: str) -> None:
        if wanted and got != wanted:
            url = record.get("rest_url") or record.get("url") or record.get("id")
            self.progress.message(self._(SLUG_TAKEN) % {"url": url, "slug": wanted, "copy": got})


# -- helpers -------------------------------------------------------------------------


def _lines(record: dict[str, t.Any]) -> list[str]:
    """A calendar_rest source's series lines (TEC Pro exposes none)."""
    lines = record.get("recurrence")
    if not isinstance(lines, list) or record.get("recurring_event_id"):
        return []
    return [line for line in lines if isinstance(line, str)]


def _identity(record: dict[str, t.Any], namespace: Namespace) -> tuple[str, str]:
    """The source ``global_id`` (TEC's form when missing) and the lineage to store."""
    source_id = record.get("global_id")
    if not isinstance(source_id, str) or not source_id:
        source_id = f"{namespace.site_id}?id={record.get('id')}"
    lineage = [item for item in record.get("global_id_lineage") or [] if isinstance(item, str)]
    if source_id not in lineage:
        lineage.append(source_id)
    return source_id, " ".join(lineage)


def _changed(record: PostModel, args: dict[str, t.Any], lineage: str) -> dict[str, t.Any]:
    """The subset of ``args`` that differs from the stored record (a slug stored with a
    ``-N`` suffix because the wanted one was taken counts as the same)."""
    changed = {key: value for key, value in args.items() if not _same(record, key, value)}
    if record.global_id_lineage != lineage and not changed:
        changed = {"status": record.status}  # records the lineage with a no-op write
    return changed


def _same(record: PostModel, key: str, value: t.Any) -> bool:
    """Whether the stored record already holds ``value`` for the write field ``key``."""
    if isinstance(record, Event) and key in EVENT_COMPARED:
        return EVENT_COMPARED[key](record, value)
    if key == "slug":
        stored = record.slug
        return (
            not value
            or stored == value
            or stored.startswith(f"{value}-")
            and stored[len(value) + 1 :].isdigit()
        )
    if (
        key in ("venue", "organizer")
        and isinstance(record, (Venue, Organizer))
        and key == NAME[type(record)]
    ):
        return bool(record.title == value)
    if key == "title":
        return bool(record.title == value)
    if key == "date_utc":
        return bool(record.date_utc.strftime(FORMAT) == value)
    if key == "image":
        return bool(match.image_url(record) == value)
    if key == "status" and value == "future":
        return record.status in ("future", "publish")
    stored_value = getattr(record, key, None)
    if isinstance(stored_value, float) or isinstance(value, float):
        return stored_value is not None and abs(float(stored_value) - float(value)) < 1e-9
    return bool((stored_value if stored_value is not None else "") == value)


#: event write fields compared with something other than the same-named column
EVENT_COMPARED: dict[str, t.Callable[[Event, t.Any], bool]] = {
    "start_date": lambda event, value: event.start_local.strftime(FORMAT) == value,
    "end_date": lambda event, value: event.end_local.strftime(FORMAT) == value,
    "cost": lambda event, value: bool(
        orjson.loads(event.cost or "[]") == list(normalise_cost_input(value))
    ),
    "venue": lambda event, value: (event.venue_id or 0) == value,
    "organizer": lambda event, value: match.organizer_ids(event.id) == value,
    "categories": lambda event, value: match.term_ids_in_order(event.id, CATEGORIES) == value,
    "tags": lambda event, value: match.term_ids_in_order(event.id, TAGS) == value,
}


def _cost(record: dict[str, t.Any]) -> list[str]:
    """The cost values with their symbol where it goes (``cost_details``)."""
    details = record.get("cost_details")
    values = details.get("values") if isinstance(details, dict) else None
    if not isinstance(values, list) or not values:
        cost = record.get("cost")
        return [cost] if isinstance(cost, str) and cost else []
    symbol = str(details.get("currency_symbol") or "") if isinstance(details, dict) else ""
    postfix = isinstance(details, dict) and details.get("currency_position") == "postfix"
    return [f"{value}{symbol}" if postfix else f"{symbol}{value}" for value in map(str, values)]


def _add_embedded(
    events: list[dict[str, t.Any]], field: str, records: list[dict[str, t.Any]]
) -> None:
    """Linked records that appear only inside events (TEC writes ``[]`` for none)."""
    seen = {_int(record.get("id")) for record in records}
    for event in events:
        value = event.get(field)
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, dict) and _int(item.get("id")) not in seen:
                records.append(item)
                seen.add(_int(item.get("id")))


def _parents_first(terms: list[dict[str, t.Any]]) -> list[dict[str, t.Any]]:
    """Categories ordered so that every parent comes before its children."""
    by_id = {_int(term.get("id")): term for term in terms}
    ordered: list[dict[str, t.Any]] = []
    placed: set[int | None] = set()

    def place(term: dict[str, t.Any], depth: int = 0) -> None:
        term_id = _int(term.get("id"))
        if term_id in placed or depth > len(terms):
            return
        parent = _int(term.get("parent"))
        if parent and parent in by_id:
            place(by_id[parent], depth + 1)
        placed.add(term_id)
        ordered.append(term)

    for term in terms:
        place(term)
    return ordered


def _int(value: t.Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _reason(exc: Exception) -> str:
    if isinstance(exc, MissingParams):
        return ", ".join(exc.names)
    if isinstance(exc, ValidationError) and isinstance(exc.messages, dict):
        return ", ".join(str(key) for key in exc.messages)
    from ..errors import InvalidParams

    if isinstance(exc, InvalidParams):
        return ", ".join(exc.errors.messages)
    return str(exc)
