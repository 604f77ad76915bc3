"""``calendar-rest import --from-tec URL``: copy a TEC site (``calendar.md`` §6).

Every list is read whole first (terms, venues, organizers, events), then copied in
dependency order through the API's validation and write functions. Records are matched
on re-runs by the source ``global_id`` recorded in ``global_id_lineage`` (terms by
slug) and only the fields that differ are written, so a second run writes nothing.
Reading the source is ``tec_client``'s, turning its records into write arguments
``tec_mapping``'s, and comparing them with the stored copies ``tec_differences``'s.
"""

from __future__ import annotations

import dataclasses
import functools
import typing as t

from marshmallow import ValidationError

from ..dates import parse_datetime, resolve_timezone
from ..errors import RestError
from ..i18n.messages import N_
from ..models import Event, Organizer, Venue
from ..queries.lookups import imports as match
from ..repository.events import check_event_write
from ..repository.linked import check_linked_write, create_linked, update_linked
from ..repository.series_edits import apply_exception, reset_exceptions, save_event_write
from ..repository.series_values import base_of, exceptions_of, lines_of
from ..repository.terms import create_term, update_term
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
from ..wordpress.taxonomies import CATEGORIES, TAGS, Taxonomy
from .common import Batches, Importer, Tally, locked, operator, refused_params, write_context
from .ics_series import holds, occurrence_values
from .tec_client import Namespace, SourceUnusable, TecClient, as_int
from .tec_differences import changed_fields
from .tec_mapping import (
    Failed,
    Ids,
    add_embedded,
    event_args,
    linked_args,
    parents_first,
    series_lines,
    source_identity,
    term_args,
)

__all__ = ["SourceUnusable", "TecImport"]

BATCH = 50
EVENT_RANGE = {"start_date": "1970-01-01 00:00:00", "end_date": "2100-12-31 23:59:59"}
TERM_PARAMS = {"hide_empty": "false"}
READING = N_("%(list)s %(done)d/%(total)d")
FAILED = N_("failed: %(url)s: %(reason)s")
SLUG_TAKEN = N_("%(url)s: slug “%(slug)s” is taken here, copied as “%(copy)s”")
#: the collection each copied kind is counted and known by
KIND = {Venue: "venues", Organizer: "organizers", Event: "events"}


@dataclasses.dataclass
class TecImport(Importer):
    """One copy of one source into the database."""

    client: TecClient
    #: per kind, source id → target id
    ids: Ids = dataclasses.field(default_factory=dict)
    #: masters of series created by this run (their occurrences count as created)
    series_created: set[int] = dataclasses.field(default_factory=set)

    def run(self) -> Tally:
        namespace = self.client.discover()
        categories = self._read("categories", TERM_PARAMS)
        tags = self._read("tags", TERM_PARAMS)
        venues = self._read("venues", {})
        organizers = self._read("organizers", {})
        events = self._read("events", EVENT_RANGE)
        add_embedded(events, "venue", venues)
        add_embedded(events, "organizer", organizers)
        with self.batched(BATCH, dry_run=False) as batches:
            self._terms(CATEGORIES, parents_first(categories), batches)
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
            reason = self._(str(exc)) if isinstance(exc, Failed) else refused_params(exc)
            self.progress.message(self._(FAILED) % {"url": _where(record), "reason": reason})
            return
        self.tally.count(outcome)

    def _terms(self, taxonomy: Taxonomy, records: list[dict[str, t.Any]], batches: Batches) -> None:
        known = self.ids.setdefault(taxonomy.collection, {})
        for record in records:
            self._each(batches, record, lambda r: self._term(taxonomy, r, known, batches))

    def _term(
        self, taxonomy: Taxonomy, record: dict[str, t.Any], known: dict[int, int], batches: Batches
    ) -> str:
        args = term_args(self.options, taxonomy, record, known)
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
        outcome = self._write_linked(
            model, linked_args(self.options, model, record), record, namespace, batches
        )
        return KIND[model] if outcome == "created" else outcome

    def _write_linked(
        self,
        model: type[Venue] | type[Organizer],
        args: dict[str, t.Any],
        record: dict[str, t.Any],
        namespace: Namespace,
        batches: Batches,
    ) -> str:
        source_id, lineage = source_identity(record, namespace)
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
        changed = changed_fields(existing, {**args, "slug": slug}, lineage)
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
        args = event_args(self.options, self.ids, record)
        lines = series_lines(record)
        limits = self.options.limits
        source_id, lineage = source_identity(record, namespace)
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
        changed = changed_fields(existing, {**args, "slug": slug}, lineage)
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
        master_id = as_int(record.get("recurring_event_id"))
        source_master = next((e for e in events if as_int(e.get("id")) == master_id), None)
        if source_master is None:
            raise Failed(N_("its series is not listed"))
        master = match.by_source_id(Event, source_identity(source_master, namespace)[0])
        if master is None or not master.recurrence:
            raise Failed(N_("its series was not copied"))
        base = base_of(master)
        zone = resolve_timezone(base.get("timezone") or master.timezone)
        original = parse_datetime(str(record.get("original_start_date") or ""), zone)
        row = match.occurrence_at(master.id, original)
        if row is None or row.status == "trash":
            raise Failed(N_("the copied series has no occurrence at its original start"))
        wanted = occurrence_values(master, event_args(self.options, self.ids, record), original)
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

    def _report_slug(self, record: dict[str, t.Any], wanted: str, got: str) -> None:
        if wanted and got != wanted:
            values = {"url": _where(record), "slug": wanted, "copy": got}
            self.progress.message(self._(SLUG_TAKEN) % values)


def _where(record: dict[str, t.Any]) -> t.Any:
    """How a report names a source record: its API URL, else its page, else its id."""
    return record.get("rest_url") or record.get("url") or record.get("id")
