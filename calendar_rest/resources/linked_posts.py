"""Venue and organizer routes: TEC's ``Archive_Venue``/``Single_Venue(_Slug)`` and the
organizer twins, as one base parametrised by model, name and schemas.

WordPress's order on every route: parameters (an unknown ID or slug is one of them,
TEC keeps it a 400) → permission (401/403) → handler. Unlike TEC 6.0.8, ownership is
enforced on the by-slug writes too, updates are partial, and list totals and links
describe the filtered set.
"""

from __future__ import annotations

import abc
import math
import typing as t

from marshmallow import Schema
from werkzeug.wrappers import Response

from ..errors import InvalidParams, RestError
from ..http import json_response
from ..messages import N_
from ..models import Attachment, Organizer, PostModel, Venue
from ..permissions import can_create, can_delete, can_edit, can_read
from ..queries.linked import (
    images_of,
    linked_archive_query,
    linked_by_id,
    linked_by_slug,
    linked_page,
)
from ..queries.translations import load_translations
from ..repository.linked import (
    NAME_FIELD,
    SEARCH_KIND,
    LinkedWrite,
    check_linked_write,
    create_linked,
    find_duplicate,
    merge_into_duplicate,
    trash_linked,
    update_linked,
)
from ..repository.posts import WriteContext
from ..schemas.linked import (
    LinkedArchiveArgs,
    LinkedReadArgs,
    OrganizerCreateArgs,
    OrganizerWriteArgs,
    VenueCreateArgs,
    VenueWriteArgs,
)
from ..schemas.messages import ParamMessage
from ..wire.linked import organizer_data, venue_data
from ..wire.translations import Translations
from .base import Call, Resource, accepts
from .linked_archive import resolve_linked_archive


class LinkedPosts(Resource, abc.ABC):
    """``/<collection>``, ``/<collection>/{id}`` and ``/<collection>/by-slug/{slug}``."""

    model: t.ClassVar[type[PostModel]]
    #: the collection's key in list bodies and URLs (``venues``)
    collection: t.ClassVar[str]
    write_args: t.ClassVar[type[Schema]]
    create_args: t.ClassVar[type[Schema]]

    @property
    def name(self) -> str:
        """The singular (``venue``): the name parameter and the error code prefix."""
        return NAME_FIELD[self.model]

    # -- archive ---------------------------------------------------------------------

    @accepts(LinkedArchiveArgs)
    def on_get_collection(self, call: Call) -> Response:
        archive = self.load_archive(call)
        query = linked_archive_query(self.model, archive.filters, call.user)
        page, per_page = archive.page, archive.per_page
        total = query.count()
        records = linked_page(query, self.model, page, per_page)
        if not records and page > 1:
            raise RestError(f"{self.name}-archive-page-not-found", 404)
        images = images_of(records)
        translations = load_translations(records)
        items = [self.data(r, call, images.get(r.image_id or 0), translations) for r in records]
        total_pages = math.ceil(total / per_page) if total else 0
        return self.archive_response(
            self.collection, items, archive.echo, page, total, total_pages, call
        )

    def load_archive(self, call: Call) -> t.Any:
        kind = SEARCH_KIND[self.model]
        _, archive = self.load_checked(
            call.schema,
            call.params,
            lambda valid: resolve_linked_archive(
                valid, call.user, call.language, kind, self.settings
            ),
        )
        return archive

    # -- single reads ----------------------------------------------------------------

    @accepts(LinkedReadArgs)
    def on_get(self, call: Call, id: int) -> Response:
        return self.read(call, self.target(call, linked_by_id(self.model, id)))

    @accepts(LinkedReadArgs)
    def on_get_by_slug(self, call: Call, slug: str) -> Response:
        return self.read(call, self.target(call, linked_by_slug(self.model, slug), "slug"))

    def read(self, call: Call, target: tuple[PostModel, dict[str, t.Any]]) -> Response:
        record, _ = target
        if not can_read(call.user, record):
            raise RestError(f"{self.name}-not-accessible", 403)
        return json_response(self.represent(record, call, single=True))

    # -- writes ----------------------------------------------------------------------

    @accepts("create_args")
    def on_post_collection(self, call: Call) -> Response:
        args = self.load(call.schema, call.params)
        write = check_linked_write(self.model, args, call.user, call.language)
        self.require(can_create(call.user), call.user)
        self.check_author_change(call.user, write.author)
        ctx = self.write_context(call)
        record = (
            find_duplicate(self.model, args[self.name], args.get("description"))
            if write.translation_root is None
            else None  # a translation is a new record, even if named as the original
        )
        if record is None:
            record = create_linked(self.model, write, ctx)
        elif can_edit(call.user, record):
            record = merge_into_duplicate(record, write, ctx)
        return json_response(self.represent(record, call), status=201)

    @accepts("write_args")
    def on_post(self, call: Call, id: int) -> Response:
        return self.update(call, linked_by_id(self.model, id), "id")

    @accepts("write_args")
    def on_post_by_slug(self, call: Call, slug: str) -> Response:
        return self.update(call, linked_by_slug(self.model, slug), "slug")

    def update(self, call: Call, record: PostModel | None, param: str) -> Response:
        record, write = self.target_write(call, record, param)
        self.require(can_edit(call.user, record), call.user)
        self.check_author_change(call.user, write.author, record)
        record = update_linked(record, write, self.write_context(call))
        return json_response(self.represent(record, call))

    @accepts(LinkedReadArgs)
    def on_delete(self, call: Call, id: int) -> Response:
        return self.delete(call, linked_by_id(self.model, id), "id")

    @accepts(LinkedReadArgs)
    def on_delete_by_slug(self, call: Call, slug: str) -> Response:
        return self.delete(call, linked_by_slug(self.model, slug), "slug")

    def delete(self, call: Call, record: PostModel | None, param: str) -> Response:
        record, _ = self.target(call, record, param)
        self.require(can_delete(call.user, record), call.user)
        if record.status == "trash":
            raise RestError(f"{self.name}-is-in-trash", 410)
        record = trash_linked(record, self.write_context(call))
        return json_response(self.represent(record, call))

    # -- helpers ---------------------------------------------------------------------

    def target(
        self, call: Call, record: PostModel | None, param: str = "id"
    ) -> tuple[PostModel, dict[str, t.Any]]:
        """The addressed record and the validated args; an unknown record is an invalid
        ``id``/``slug`` reported with the other invalid parameters (TEC)."""
        errors: dict[str, ParamMessage] = {}
        if record is None:
            errors[param] = ParamMessage("invalid")
        try:
            args = self.load(call.schema, call.params)
        except InvalidParams as exc:
            errors.update(exc.errors)
        if errors:
            raise InvalidParams(errors)
        assert record is not None
        return record, args

    def target_write(
        self, call: Call, record: PostModel | None, param: str
    ) -> tuple[PostModel, LinkedWrite]:
        record, args = self.target(call, record, param)
        return record, check_linked_write(self.model, args, call.user, record.language, record)

    def represent(
        self, record: PostModel, call: Call, *, single: bool = False
    ) -> dict[str, t.Any]:
        image = images_of([record]).get(record.image_id or 0)
        return self.data(record, call, image, load_translations([record]), single=single)

    @abc.abstractmethod
    def data(
        self,
        record: t.Any,
        call: Call,
        image: Attachment | None,
        translations: Translations,
        *,
        single: bool = False,
    ) -> dict[str, t.Any]:
        """The wire representation of one record of this collection."""

    def write_context(self, call: Call) -> WriteContext:
        assert call.user is not None
        return WriteContext(call.user, self.settings.timezone, call.language)


class Venues(LinkedPosts):
    model = Venue
    collection = "venues"
    path_descriptions: t.ClassVar[dict[str, str]] = {
        "id": N_("The venue post ID"),
        "slug": N_("The venue post slug"),
    }
    write_args = VenueWriteArgs
    create_args = VenueCreateArgs

    def data(
        self,
        record: Venue,
        call: Call,
        image: Attachment | None,
        translations: Translations,
        *,
        single: bool = False,
    ) -> dict[str, t.Any]:
        return venue_data(
            record,
            call.urls,
            image,
            single=single,
            geolocation=self.settings.geolocation,
            translations=translations,
        )


class Organizers(LinkedPosts):
    model = Organizer
    collection = "organizers"
    path_descriptions: t.ClassVar[dict[str, str]] = {
        "id": N_("The organizer post ID"),
        "slug": N_("The organizer post slug"),
    }
    write_args = OrganizerWriteArgs
    create_args = OrganizerCreateArgs

    def data(
        self,
        record: Organizer,
        call: Call,
        image: Attachment | None,
        translations: Translations,
        *,
        single: bool = False,
    ) -> dict[str, t.Any]:
        return organizer_data(record, call.urls, image, single=single, translations=translations)
