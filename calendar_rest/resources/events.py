"""Event routes: TEC's ``Archive_Event``, ``Single_Event`` and ``Single_Event_Slug``."""

from __future__ import annotations

import datetime as dt
import hmac
import math
import typing as t

from werkzeug.wrappers import Response

from ..cost import FREE_LABEL
from ..dates import resolve_timezone
from ..errors import RestError, invalid_param
from ..http import json_response
from ..messages import N_
from ..models import Event
from ..permissions import can_create, can_delete, can_edit, can_read, has_cap
from ..queries.archive import archive_page, archive_query, count
from ..queries.events import event_by_id, event_by_slug
from ..queries.related import load_related
from ..repository.events import check_event_write, save_event, trash_event
from ..repository.posts import WriteContext
from ..schemas import (
    EventArchiveArgs,
    EventCreateArgs,
    EventDeleteArgs,
    EventReadArgs,
    EventSlugReadArgs,
    EventSlugWriteArgs,
    EventWriteArgs,
)
from ..wire.events import EventView, event_data
from .base import Call, Resource, accepts
from .event_archive import resolve_archive


class Events(Resource):
    """``/events``, ``/events/{id}`` and ``/events/by-slug/{slug}``."""

    path_descriptions: t.ClassVar[dict[str, str]] = {
        "id": N_("The event post ID"),
        "slug": N_("The event post slug"),
    }

    # -- archive ---------------------------------------------------------------------

    @accepts(EventArchiveArgs)
    def on_get_collection(self, call: Call) -> Response:
        args, archive = self.load_checked(
            call.schema,
            call.params,
            lambda valid: resolve_archive(valid, call.user, call.language, self.settings),
        )
        query = archive_query(archive.filters, call.user)
        page, per_page = archive.page, archive.per_page
        total = count(archive_query(archive.filters, call.user, counting=True))
        events = archive_page(query, page, per_page)
        if not events and page > 1:
            raise RestError("event-archive-page-not-found", 404)
        related = load_related(events, call.language)
        view = self.view(call)
        items = [
            event_data(event, related, view, redact=self.redacted(event, call, args))
            for event in events
        ]
        total_pages = math.ceil(total / per_page) if total else 0
        return self.archive_response(
            "events", items, archive.echo, page, total, total_pages, call
        )

    # -- single reads ----------------------------------------------------------------

    @accepts(EventReadArgs)
    def on_get(self, call: Call, id: int) -> Response:
        args = self.load(call.schema, call.params)
        return self.read(call, event_by_id(id), id, args)

    @accepts(EventSlugReadArgs)
    def on_get_by_slug(self, call: Call, slug: str) -> Response:
        args = self.load(call.schema, call.params)
        return self.read(call, self.by_slug(slug), 0, args)

    def read(
        self, call: Call, event: Event | None, event_id: int, args: dict[str, t.Any]
    ) -> Response:
        if event is None:
            raise RestError("rest-event-not-found", 404, event_id)
        if event.status == "trash":
            raise RestError("event-no-longer-available", 403)
        if not can_read(call.user, event):
            raise RestError("event-not-accessible", 403)
        if self.redacted(event, call, args):
            raise RestError("event-password-protected", 403)
        return json_response(self.represent(event, call, single=True))

    # -- writes ----------------------------------------------------------------------

    @accepts(EventCreateArgs)
    def on_post_collection(self, call: Call) -> Response:
        args = self.load(call.schema, call.params)
        write = check_event_write(args, call.user, call.language)
        self.require(can_create(call.user), call.user)
        self.check_author_change(call.user, write.author)
        event = save_event(write, self.write_context(call))
        return json_response(self.represent(event, call), status=201)

    @accepts(EventWriteArgs)
    def on_post(self, call: Call, id: int) -> Response:
        return self.update(call, event_by_id(id), id)

    @accepts(EventSlugWriteArgs)
    def on_post_by_slug(self, call: Call, slug: str) -> Response:
        return self.update(call, self.by_slug(slug), 0)

    def update(self, call: Call, event: Event | None, event_id: int) -> Response:
        args = self.load(call.schema, call.params)
        language = event.language if event is not None else call.language
        write = check_event_write(args, call.user, language, event)
        if event is None:
            self.require(can_create(call.user), call.user)
            raise RestError("rest-event-not-found", 404, event_id)
        self.require(can_edit(call.user, event), call.user)
        self.check_author_change(call.user, write.author, event)
        event = save_event(write, self.write_context(call), event)
        return json_response(self.represent(event, call))

    @accepts(EventDeleteArgs)
    def on_delete(self, call: Call, id: int) -> Response:
        self.load(call.schema, call.params)
        return self.delete(call, event_by_id(id), id)

    @accepts(EventDeleteArgs)
    def on_delete_by_slug(self, call: Call, slug: str) -> Response:
        self.load(call.schema, call.params)
        return self.delete(call, self.by_slug(slug), 0)

    def delete(self, call: Call, event: Event | None, event_id: int) -> Response:
        if event is None:
            self.require(has_cap(call.user, "delete_posts"), call.user)
            raise RestError("rest-event-not-found", 404, event_id)
        self.require(can_delete(call.user, event), call.user)
        if event.status == "trash":
            raise RestError("event-is-in-trash", 410)
        event = trash_event(event, self.write_context(call))
        return json_response(self.represent(event, call))

    # -- helpers ---------------------------------------------------------------------

    @property
    def site_zone(self) -> dt.tzinfo:
        return resolve_timezone(self.settings.timezone)

    @staticmethod
    def by_slug(slug: str) -> Event:
        """:raises InvalidParams: an unknown slug is a parameter error (TEC)."""
        event = event_by_slug(slug)
        if event is None:
            raise invalid_param("slug")
        return event

    @staticmethod
    def redacted(event: Event, call: Call, args: dict[str, t.Any]) -> bool:
        """Protected content is shown only with the right password, or to its editors
        asking for ``context=edit``."""
        if not event.password:
            return False
        given = args.get("password")
        if given is not None and hmac.compare_digest(given.encode(), event.password.encode()):
            return False
        return not (args.get("context") == "edit" and can_edit(call.user, event))

    def view(self, call: Call, *, single: bool = False) -> EventView:
        return EventView(
            urls=call.urls,
            default_currency_symbol=self.settings.default_currency_symbol,
            default_currency_code=self.settings.default_currency_code,
            geolocation=self.settings.geolocation,
            single=single,
            free_label=call.translate(FREE_LABEL),
        )

    def represent(self, event: Event, call: Call, *, single: bool = False) -> dict[str, t.Any]:
        related = load_related([event], call.language)
        return event_data(event, related, self.view(call, single=single))

    def write_context(self, call: Call) -> WriteContext:
        assert call.user is not None
        return WriteContext(call.user, self.settings.timezone, call.language)


def _fmt(value: dt.datetime) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S")
