"""Event routes: TEC's ``Archive_Event``, ``Single_Event`` and ``Single_Event_Slug``."""

from __future__ import annotations

import functools
import typing as t

from ..errors import ParamErrors, RestError, bad_param
from ..media_types import CALENDAR
from ..models import Event, User, Venue
from ..queries.filters.event_filters import ArchiveRequest, resolve_archive
from ..queries.lists.archive import archive_page, archive_total, walks
from ..queries.lookups.events import (
    ShownEvent,
    event_by_id,
    event_by_slug,
    shown_event,
    shown_events,
)
from ..queries.lookups.related import load_related
from ..queries.sql.linked_json import Linked
from ..repository.events import PreparedEvent, check_event_write, prepare_event_write
from ..repository.posts import WriteContext
from ..repository.series import SeriesLimits
from ..repository.series_bounds import check_series_size
from ..repository.series_edits import delete_event_write, save_event_write
from ..responders import Call
from ..routes import accepts
from ..rules.permissions import (
    can_create,
    can_delete,
    can_edit,
    can_read,
    can_read_content,
    has_cap,
    may_write_as,
    may_write_method,
    record_methods,
)
from ..schemas import events as event_args
from ..wire.events import EventView, event_data
from ..wire.pages import Pager
from ..wire.reply import Reply
from ..wordpress.cost import FREE_LABEL
from ..wordpress.urls import Urls
from .event_feeds import EventFeeds, alternate_feed


class Events(EventFeeds):
    """``/events``, ``/events/{id}`` and ``/events/by-slug/{slug}``, in JSON or (asked
    with ``Accept``) iCalendar; ``/events.ics`` and ``/events/{id}.ics``."""

    def may_call(self, method: str, user: User | None) -> bool:
        return may_write_method(user, method)

    def record_methods(self, values: t.Mapping[str, t.Any], user: User | None) -> tuple[str, ...]:
        """A trashed event is unavailable to everyone (its reads are 403): ``GET``."""
        event = event_by_id(values["id"]) if "id" in values else event_by_slug(values["slug"])
        if event is None or event.status == "trash":
            return ("GET",)
        return record_methods(user, event)

    def path_errors(self, values: t.Mapping[str, t.Any]) -> ParamErrors:
        """An unknown slug is an invalid parameter, reported before the permission check
        (TEC validates it as an argument); an unknown ID is the handler's 404."""
        errors = ParamErrors()
        if "slug" in values and event_by_slug(values["slug"]) is None:
            errors.add("slug")
        return errors

    # -- archive ---------------------------------------------------------------------

    @accepts(event_args.EventArchiveArgs, collect_errors=True)
    def on_get_collection(self, call: Call) -> Reply:
        args, archive = call.checked(
            lambda valid: resolve_archive(
                valid, call.user, call.language, self.settings, call.now, call.generation
            )
        )
        if call.media_type == CALENDAR:
            return self.archive_feed(call, args, archive)
        return alternate_feed(self.archive_page(call, args, archive), call)

    @accepts(event_args.EventArchiveArgs, collect_errors=True)
    def on_get_occurrences(self, call: Call, id: int) -> Reply:
        """``/events/{id}/occurrences`` (calendar.md §4.3): the archive restricted to
        the series of ``id`` (master or occurrence; a stand-alone event lists itself);
        an unknown or hidden ``id`` is answered as ``GET /events/{id}`` answers it."""
        event = event_by_id(id)
        if event is None:
            raise RestError("rest-event-not-found", 404, id)
        if event.status == "trash":
            raise RestError("event-no-longer-available", 403)
        if not can_read(call.user, event):
            raise RestError("event-not-accessible", 403)
        args, archive = call.checked(
            lambda valid: resolve_archive(
                valid, call.user, call.language, self.settings, call.now, call.generation
            )
        )
        archive.filters.series = event.series_master_id or event.id
        return self.archive_page(call, args, archive, path=f"events/{id}/occurrences")

    def archive_page(
        self, call: Call, args: dict[str, t.Any], archive: ArchiveRequest, path: str | None = None
    ) -> Reply:
        """One page of a resolved archive (``/events`` or a series' occurrences)."""
        pager = Pager.from_args(args, self.settings)
        filters = archive.filters
        total = call.total(*archive_total(filters, call.user))
        walk = walks(filters, call.user, total, pager.offset + pager.per_page, call.total)
        events, venues, linked = archive_page(
            filters, call.user, walk, pager.per_page, pager.offset
        )
        if pager.past_the_end(len(events)):
            raise RestError("event-archive-page-not-found", 404)
        related = load_related(events, call.user, call.language, call.total, venues, linked)
        view = self.view(call)
        items = [
            event_data(event, related, view, redact=self.redacted(event, call, args))
            for event in events
        ]
        return pager.reply("events", items, total, archive.echo, call.urls, call.query, path=path)

    # -- single reads ----------------------------------------------------------------

    @accepts(event_args.EventReadArgs)
    def on_get(self, call: Call, id: int) -> Reply:
        shown = shown_event(id)
        return self.read(call, shown.event if shown else None, id, shown)

    @accepts(event_args.EventSlugReadArgs)
    def on_get_by_slug(self, call: Call, slug: str) -> Reply:
        return self.read(call, self.by_slug(slug), 0)

    def read(
        self, call: Call, event: Event | None, event_id: int, shown: ShownEvent | None = None
    ) -> Reply:
        """``shown``: the event read with its venue and revision (by ID)."""
        args = call.args
        if event is None:
            raise RestError("rest-event-not-found", 404, event_id)
        if event.status == "trash":
            raise RestError("event-no-longer-available", 403)
        if not can_read(call.user, event):
            raise RestError("event-not-accessible", 403)
        if self.redacted(event, call, args):
            raise RestError("event-password-protected", 403)
        if call.media_type == CALENDAR:
            return self.event_feed(call, event)
        if shown is None:
            return Reply(self.represent(event, call, single=True))
        venues = [shown.venue] if shown.venue is not None else []
        linked = {event.id: shown.linked} if shown.linked is not None else None
        body = self.represent(event, call, single=True, venues=venues, linked=linked)
        return Reply(body, revision=shown.revision)

    def shown_bodies(self, call: Call, event_ids: t.Sequence[int]) -> dict[int, dict[str, t.Any]]:
        """What a ``GET`` of each event's item route by ``call``'s caller answers, for
        those it answers 200 (JSON): the events read a statement per batch, their
        related records loaded together as for a list page, each rendered as
        :meth:`read` renders it. The outbox announces a series write's thousands of
        events so, inside the write's transaction."""
        readable = [
            shown
            for shown in shown_events(event_ids).values()
            if shown.event.status != "trash"
            and can_read(call.user, shown.event)
            and not self.redacted(shown.event, call, call.args)
        ]
        events = [shown.event for shown in readable]
        venues = {shown.venue.id: shown.venue for shown in readable if shown.venue is not None}
        carried = {s.event.id: s.linked for s in readable if s.linked is not None}
        linked = carried if len(carried) == len(readable) else None  # the backend's way
        related = load_related(
            events, call.user, call.language, call.total, list(venues.values()), linked
        )
        view = self.view(call, single=True)
        return {event.id: event_data(event, related, view) for event in events}

    # -- writes ----------------------------------------------------------------------

    @accepts(event_args.EventCreateArgs)
    def on_post_collection(self, call: Call) -> Reply:
        write = check_event_write(call.args, call.user, call.language, None, self.prepared(call))
        self.require(can_create(call.user), call.user)
        self.require(may_write_as(call.user, write.author), call.user)
        check_series_size(write, None, self.write_context(call), self.series_limits)
        call.begin_write()
        event = save_event_write(write, self.write_context(call), None, self.series_limits)
        return Reply(self.represent(event, call), status=201)

    @accepts(event_args.EventWriteArgs)
    def on_post(self, call: Call, id: int) -> Reply:
        return self.update(call, event_by_id(id), id)

    @accepts(event_args.EventSlugWriteArgs)
    def on_post_by_slug(self, call: Call, slug: str) -> Reply:
        return self.update(call, self.by_slug(slug), 0)

    def update(self, call: Call, event: Event | None, event_id: int) -> Reply:
        language = event.language if event is not None else call.language
        write = check_event_write(call.args, call.user, language, event, self.prepared(call))
        if event is None:
            self.require(can_create(call.user), call.user)
            raise RestError("rest-event-not-found", 404, event_id)
        self.require(can_edit(call.user, event), call.user)
        self.require(may_write_as(call.user, write.author, event), call.user)
        check_series_size(write, event, self.write_context(call), self.series_limits)
        call.begin_write()
        event = save_event_write(write, self.write_context(call), event, self.series_limits)
        return Reply(self.represent(event, call))

    @accepts(event_args.EventDeleteArgs)
    def on_delete(self, call: Call, id: int) -> Reply:
        return self.delete(call, event_by_id(id), id)

    @accepts(event_args.EventDeleteArgs)
    def on_delete_by_slug(self, call: Call, slug: str) -> Reply:
        return self.delete(call, self.by_slug(slug), 0)

    def delete(self, call: Call, event: Event | None, event_id: int) -> Reply:
        if event is None:
            self.require(has_cap(call.user, "delete_posts"), call.user)
            raise RestError("rest-event-not-found", 404, event_id)
        self.require(can_delete(call.user, event), call.user)
        if event.status == "trash":
            raise RestError("event-is-in-trash", 410)
        call.begin_write()
        scope = call.args.get("scope")
        event = delete_event_write(event, self.write_context(call), scope, self.series_limits)
        return Reply(self.represent(event, call))

    # -- helpers ---------------------------------------------------------------------

    @staticmethod
    def by_slug(slug: str) -> Event:
        """:raises InvalidParams: an unknown slug is a parameter error (TEC)."""
        event = event_by_slug(slug)
        if event is None:
            raise bad_param("slug")
        return event

    @staticmethod
    def prepared(call: Call) -> PreparedEvent:
        """The write's input sanitised and its inline records validated, once, before
        the write lock (``Call.prepared``)."""
        return call.prepared("event", lambda: prepare_event_write(call.args, call.user))

    @staticmethod
    def redacted(event: Event, call: Call, args: dict[str, t.Any]) -> bool:
        """Whether the caller sees the protected content replaced (TEC §3.8)."""
        return not can_read_content(call.user, event, args.get("password"), args.get("context"))

    def view(self, call: Call, *, single: bool = False) -> EventView:
        return shared_view(
            call.urls,
            self.settings.default_currency_symbol,
            self.settings.default_currency_code,
            self.settings.geolocation,
            single,
            call.translate(FREE_LABEL),
        )

    def represent(
        self,
        event: Event,
        call: Call,
        *,
        single: bool = False,
        venues: t.Sequence[Venue] | None = None,
        linked: t.Mapping[int, Linked] | None = None,
    ) -> dict[str, t.Any]:
        related = load_related([event], call.user, call.language, call.total, venues, linked)
        return event_data(event, related, self.view(call, single=single))

    @property
    def series_limits(self) -> SeriesLimits:
        return SeriesLimits.from_settings(self.settings)

    def write_context(self, call: Call) -> WriteContext:
        assert call.user is not None
        return WriteContext(call.user, self.settings.timezone, call.clock, call.language)


@functools.lru_cache(maxsize=256)
def shared_view(
    urls: Urls,
    currency_symbol: str,
    currency_code: str,
    geolocation: bool,
    single: bool,
    free_label: str,
) -> EventView:
    """One view object per way of rendering (a handful per site): every kept event's key
    holds its view, and two keys holding the same object compare without a call."""
    return EventView(urls, currency_symbol, currency_code, geolocation, single, free_label)
