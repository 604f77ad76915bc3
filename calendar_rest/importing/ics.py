"""``calendar-rest import FILE.ics``: iCalendar events into this site (``calendar.md`` §5).

Events are matched by UID and updated in place (ids kept); content identical to the
stored record is not written. A component with ``RRULE``/``RDATE``/``EXDATE`` becomes
a series, and the ``RECURRENCE-ID`` components of its UID exceptions of it
(``ics_series``), written with the series' own entry points (``series_edits``).
Venues, organizers and categories are matched as the spec's table says and created
only when missing (``ics_linked``). Every write goes through the API's validation
(``schemas``) and write functions (``repository``), so it is recorded in the change
log and indexed like an API write.
"""

from __future__ import annotations

import dataclasses
import typing as t

from marshmallow import ValidationError

from ..errors import RestError
from ..i18n.messages import N_
from ..models import Event
from ..queries.lookups import imports as match
from ..queries.lookups.series import series_rows
from ..repository.events import check_event_write
from ..repository.series_edits import (
    apply_exception,
    delete_event_write,
    reset_exceptions,
    save_event_write,
)
from ..repository.series_values import base_of, exceptions_of, lines_of
from ..rules.markup import EVENT_FIELDS, written_fields
from ..schemas import EventCreateArgs, EventWriteArgs, MissingParams, TooManyItems, validate
from ..wordpress.taxonomies import CATEGORIES
from .common import Batches, Importer, Tally, locked, operator, refused_params, write_context
from .ics_linked import LinkedRecords
from .ics_mapping import NO_TITLE, FileZones, IcsEvent, Skip, file_zones, map_event
from .ics_reader import CalendarFile, RawComponent
from .ics_series import (
    base_differs,
    cancelled_exdates,
    checked_lines,
    exception_values,
    holds,
    no_occurrence,
    no_series,
    original_start,
    series_master,
)

BATCH = 100
SKIP_LINE = N_('line %(line)d: skipped %(component)s "%(uid)s": %(reason)s')
AT_LINE = N_("%(text)s (line %(line)d)")
PROGRESS = N_("importing %(done)d/%(total)d components")


@dataclasses.dataclass
class Unit:
    """What one transaction writes: a stand-alone event or a series master with the
    file's RECURRENCE-ID components of its UID, or such a component alone (its series
    is in the database)."""

    master: tuple[RawComponent, IcsEvent] | None
    exceptions: list[tuple[RawComponent, IcsEvent]] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class IcsImport(Importer):
    """One run over one parsed file; ``tally`` is what the summary prints."""

    _done: int = 0
    _total: int = 0

    def run(self, calendar: CalendarFile) -> Tally:
        zones = file_zones(
            calendar.properties,
            self.options.site_timezone,
            [c for c in calendar.components if c.name == "VTIMEZONE"],
        )
        events = [c for c in calendar.components if c.name == "VEVENT"]
        self._total = len(events)
        units = self._units(events, zones)
        try:
            with self.batched(BATCH, dry_run=self.options.dry_run) as batches:
                for unit in units:
                    self._unit(unit, batches)
        finally:
            self.progress.end()
        return self.tally

    def _units(self, events: list[RawComponent], zones: FileZones) -> list[Unit]:
        """The mapped components grouped by series, in file order (a component that
        cannot be mapped is skipped here)."""
        units: list[Unit] = []
        masters: dict[str, Unit] = {}
        orphans: list[tuple[RawComponent, IcsEvent]] = []
        for raw in events:
            try:
                event = map_event(raw, zones)
            except Skip as skip:
                self._skip(raw.begin_line, _uid_of(raw), skip)
                self._step()
                continue
            if event.recurrence_id is not None:
                orphans.append((raw, event))
            elif event.uid not in masters:
                masters[event.uid] = Unit((raw, event))
                units.append(masters[event.uid])
            else:  # a second master with the same UID: updates the same record again
                units.append(Unit((raw, event)))
        for raw, event in orphans:
            unit = masters.get(event.uid)
            if unit is not None:
                unit.exceptions.append((raw, event))
            else:
                units.append(Unit(None, [(raw, event)]))
        return units

    def _unit(self, unit: Unit, batches: Batches) -> None:
        """One series (or event) in one unit of work; its master and each exception in
        a savepoint of their own, so that a skipped component leaves nothing behind."""
        outcomes: list[tuple[RawComponent, str]] = []
        with batches.unit():
            created = False
            if unit.master is not None:
                raw, event = unit.master
                try:
                    with batches.savepoint():
                        exceptions = [exception for _raw, exception in unit.exceptions]
                        outcome = self._write(event, exceptions, batches)
                except Skip as skip:
                    self._skip_component(raw, skip)
                    for raw_exception, exception in unit.exceptions:
                        self._skip_component(raw_exception, no_series(exception))
                    return
                outcomes.append((raw, outcome))
                created = outcome == "created"
            for raw, event in unit.exceptions:
                try:
                    with batches.savepoint():
                        outcomes.append((raw, self._exception(event, batches, created)))
                except Skip as skip:
                    self._skip_component(raw, skip)
            if unit.master is not None and self._reset_missing(unit, batches):
                if outcomes[0][1] == "unchanged":
                    outcomes[0] = (outcomes[0][0], "updated")
        for _raw, outcome in outcomes:
            self.tally.count("events" if outcome == "created" else outcome)
            self._step()

    def _skip_component(self, raw: RawComponent, skip: Skip) -> None:
        self._skip(raw.begin_line, _uid_of(raw), skip)
        self._step()

    def _step(self) -> None:
        self._done += 1
        self.progress.show(PROGRESS, self._done, self._total)

    def _skip(self, begin: int, uid: str, skip: Skip) -> None:
        self.tally.skipped += 1
        _ = self._
        reason = _(skip.reason) % {
            k: _(str(v)) if k == "kind" else v for k, v in skip.values.items()
        }
        if skip.line is not None and skip.line != begin:
            reason = _(AT_LINE) % {"text": reason, "line": skip.line}
        values = {"line": begin, "component": "VEVENT", "uid": uid, "reason": reason}
        self.progress.message(_(SKIP_LINE) % values)

    # -- one component -----------------------------------------------------------------

    def _write(self, event: IcsEvent, exceptions: list[IcsEvent], batches: Batches) -> str:
        """Create, update, trash or leave one event or series; returns what happened.

        :raises Skip: a bad or over-cap rule, or a value the API refuses.
        """
        existing = locked(match.event_by_uid(event.uid))
        ctx = write_context(self.options)
        limits = self.options.limits
        lines = checked_lines(event, ctx.now, limits)
        master = existing if existing is not None and existing.recurrence else None
        if master is not None:
            lines += cancelled_exdates(event, exceptions, lines_of(master))
        try:
            args = self._event_args(event, existing, batches)
            if existing is not None and not self._differs(existing, master, args, lines):
                return "unchanged"
            batches.writing()
            if existing is None:
                if lines:
                    args["recurrence"] = lines
                write = check_event_write(validate(EventCreateArgs(), args), operator())
                write.uid = event.uid
                save_event_write(write, ctx, None, limits)
                return "created"
            args.pop("author", None)
            if lines or master is not None:
                args["recurrence"] = lines
            if master is not None and exceptions_of(master) & {"start_date", "end_date"}:
                reset_exceptions(master, ctx)  # the anchor moves with the dates sent
            write = check_event_write(validate(EventWriteArgs(), args), operator(), "en", existing)
            save_event_write(write, ctx, existing, limits)
        except (RestError, MissingParams, TooManyItems, ValidationError) as exc:
            raise Skip(N_("invalid value: %(params)s"), params=refused_params(exc)) from None
        return "updated"

    def _differs(
        self, existing: Event, master: Event | None, args: dict[str, t.Any], lines: list[str]
    ) -> bool:
        if master is not None:
            return base_differs(master, args, lines)
        return bool(lines) or _differs(existing, args)

    def _exception(self, event: IcsEvent, batches: Batches, created: bool) -> str:
        """A RECURRENCE-ID component: the occurrence with that original start gets the
        differing properties as exception fields (the others reset to the series'), or
        is deleted as by DELETE with scope ``this`` when the component is cancelled.

        :raises Skip: no series with this UID, no occurrence at that date, a value
            the API refuses.
        """
        master = locked(series_master(event.uid))  # its occurrences are read after
        if master is None:
            raise no_series(event)
        base = base_of(master)
        zone = base.get("timezone") or master.timezone
        original = original_start(event, zone, bool(base.get("all_day", master.all_day)))
        row = match.occurrence_at(master.id, original)
        ctx = write_context(self.options)
        limits = self.options.limits
        if event.cancelled:
            if row is None or row.status == "trash":
                return "unchanged"
            batches.writing()
            delete_event_write(row, ctx, "this", limits)
            return "updated"
        if row is None or row.status == "trash":
            raise no_occurrence(event, original)
        try:
            args = self._event_args(event, row, batches)
            wanted = exception_values(master, args, original)
            if exceptions_of(row) == set(wanted) and holds(row, wanted):
                return "created" if created else "unchanged"
            batches.writing()
            reset_exceptions(row, ctx, keep=set(wanted))
            if wanted:
                write = check_event_write(
                    validate(EventWriteArgs(), {**wanted, "scope": "this"}),
                    operator(),
                    row.language,
                    row,
                )
                apply_exception(write, ctx, row, limits)
        except (RestError, MissingParams, TooManyItems, ValidationError) as exc:
            raise Skip(N_("invalid value: %(params)s"), params=refused_params(exc)) from None
        return "created" if created else "updated"

    def _reset_missing(self, unit: Unit, batches: Batches) -> bool:
        """Exceptions of the series that the file no longer has go back to the series
        values (§5); returns whether any did."""
        assert unit.master is not None
        master = series_master(unit.master[1].uid)
        if master is None:
            return False
        base = base_of(master)
        zone = base.get("timezone") or master.timezone
        all_day = bool(base.get("all_day", master.all_day))
        kept = {
            original_start(event, zone, all_day)
            for _raw, event in unit.exceptions
            if not event.cancelled
        }
        reset = False
        for row in series_rows(master.id):
            if row.status == "trash" or not exceptions_of(row):
                continue
            if (row.original_start or row.start_local) not in kept:
                batches.writing()
                reset_exceptions(row, write_context(self.options))
                reset = True
        return reset

    def _event_args(
        self, event: IcsEvent, existing: Event | None, batches: Batches
    ) -> dict[str, t.Any]:
        """The full write: mapped values, status, author, and the linked records'
        ids (matched, or created now)."""
        args = {**event.args}
        args["title"] = args["title"] or self._(NO_TITLE)
        args = written_fields(args, self.options.author, EVENT_FIELDS)
        if not args["description"]:
            del args["description"]  # the API refuses an empty one
        args["status"] = "private" if event.private else (self.options.status or "publish")
        if self.options.author is not None:
            args["author"] = self.options.author.id
        args.setdefault("website", "" if existing is not None and existing.website else None)
        if args["website"] is None:
            del args["website"]
        linked = LinkedRecords(self.options, self.tally, batches)
        venue = linked.venue(event)
        args["venue"] = venue.id if venue is not None else 0
        organizer = linked.organizer(event)
        args["organizer"] = [organizer.id] if organizer is not None else []
        args["categories"] = [linked.category(name) for name in event.categories]
        return args


def _differs(event: Event, args: dict[str, t.Any]) -> bool:
    """Whether writing ``args`` would change the stored event."""
    stored = {
        "title": event.title,
        "description": event.description,
        "status": event.status,
        "timezone": event.timezone,
        "all_day": bool(event.all_day),
        "start_date": event.start_local.strftime("%Y-%m-%d %H:%M:%S"),
        "end_date": event.end_local.strftime("%Y-%m-%d %H:%M:%S"),
        "website": event.website or "",
        "event_status": event.event_status,
        "attendance_mode": event.attendance_mode,
        "online_url": event.online_url,
        "venue": event.venue_id or 0,
        "organizer": match.organizer_ids(event.id),
        "categories": match.term_ids_in_order(event.id, CATEGORIES),
    }
    wanted = {**args, "website": args.get("website") or ""}
    return any(stored[key] != wanted[key] for key in stored if key in wanted)


def _uid_of(raw: t.Any) -> str:
    return (raw.value("UID") or "").strip()
