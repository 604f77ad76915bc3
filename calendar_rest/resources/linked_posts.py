"""Venue and organizer routes: TEC's ``Archive_Venue``/``Single_Venue(_Slug)`` and the
organizer twins, as one base parametrised by model, name and schemas.

WordPress's order on every route: parameters (an unknown ID or slug is one of them,
TEC keeps it a 400) → permission (401/403) → handler. Unlike TEC 6.0.8, ownership is
enforced on the by-slug writes too, updates are partial, and list totals and links
describe the filtered set.
"""

from __future__ import annotations

import typing as t

from marshmallow import Schema

from ..errors import ParamErrors, RestError
from ..models import SEARCH_KIND, Organizer, PostModel, User, Venue
from ..queries.filters.linked_filters import resolve_linked_archive
from ..queries.lists.linked import linked_by_id, linked_by_slug, linked_count, linked_page
from ..queries.lookups.posts import images_of
from ..queries.lookups.translations import load_translations
from ..repository.linked import (
    NAME_FIELD,
    check_linked_write,
    create_linked,
    merge_into_duplicate,
    reusable_duplicate,
    trash_linked,
    update_linked,
)
from ..repository.posts import WriteContext
from ..responders import Call, Resource
from ..routes import accepts
from ..rules.permissions import (
    can_create,
    can_delete,
    can_edit,
    can_read,
    may_write_as,
    may_write_method,
    record_methods,
)
from ..schemas.linked import (
    LinkedArchiveArgs,
    LinkedReadArgs,
    OrganizerCreateArgs,
    OrganizerWriteArgs,
    VenueCreateArgs,
    VenueWriteArgs,
)
from ..wire.linked import linked_data
from ..wire.pages import Pager
from ..wire.reply import Reply


class LinkedPosts(Resource):
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

    def may_call(self, method: str, user: User | None) -> bool:
        return may_write_method(user, method)

    def record_methods(self, values: t.Mapping[str, t.Any], user: User | None) -> tuple[str, ...]:
        if "id" in values:
            record = linked_by_id(self.model, values["id"])
        else:
            record = linked_by_slug(self.model, values["slug"])
        return ("GET",) if record is None else record_methods(user, record)

    def path_errors(self, values: t.Mapping[str, t.Any]) -> ParamErrors:
        """An ID or slug that names no record is an invalid parameter, reported before
        the permission check (TEC validates them as arguments)."""
        errors = ParamErrors()
        for name, find in (("id", linked_by_id), ("slug", linked_by_slug)):
            if name in values and find(self.model, values[name]) is None:
                errors.add(name)
        return errors

    # -- archive ---------------------------------------------------------------------

    @accepts(LinkedArchiveArgs, collect_errors=True)
    def on_get_collection(self, call: Call) -> Reply:
        kind = SEARCH_KIND[self.model]
        args, archive = call.checked(
            lambda valid: resolve_linked_archive(
                valid, call.user, call.language, kind, call.now, self.settings.site_zone
            )
        )
        pager = Pager.from_args(args, self.settings)
        filters = archive.filters
        total = call.total(linked_count(self.model, filters, call.user))
        records = linked_page(self.model, filters, call.user, pager.per_page, pager.offset)
        if pager.past_the_end(len(records)):
            raise RestError(f"{self.name}-archive-page-not-found", 404)
        images = images_of(records)
        translations = load_translations(records, user=call.user, total=call.total)
        items = [
            linked_data(
                record,
                call.urls,
                images.get(record.image_id or 0),
                translations,
                geolocation=self.settings.geolocation,
            )
            for record in records
        ]
        return pager.reply(self.collection, items, total, archive.echo, call.urls, call.query)

    # -- single reads ----------------------------------------------------------------

    @accepts(LinkedReadArgs, collect_errors=True)
    def on_get(self, call: Call, id: int) -> Reply:
        return self.read(call, self.target(call, linked_by_id(self.model, id)))

    @accepts(LinkedReadArgs, collect_errors=True)
    def on_get_by_slug(self, call: Call, slug: str) -> Reply:
        return self.read(call, self.target(call, linked_by_slug(self.model, slug), "slug"))

    def read(self, call: Call, record: PostModel) -> Reply:
        if not can_read(call.user, record):
            raise RestError(f"{self.name}-not-accessible", 403)
        return Reply(self.represent(record, call, single=True))

    # -- writes ----------------------------------------------------------------------

    @accepts("create_args")
    def on_post_collection(self, call: Call) -> Reply:
        write = check_linked_write(self.model, call.args, call.user, call.language)
        self.require(can_create(call.user), call.user)
        self.require(may_write_as(call.user, write.author), call.user)
        duplicate = reusable_duplicate(self.model, write, call.user)
        if duplicate is not None and not can_edit(call.user, duplicate):
            return Reply(self.represent(duplicate, call), status=201)  # returned as it is
        call.begin_write()
        if duplicate is None:
            record = create_linked(self.model, write, self.write_context(call))
        else:
            record = merge_into_duplicate(duplicate, write, self.write_context(call))
        return Reply(self.represent(record, call), status=201)

    @accepts("write_args", collect_errors=True)
    def on_post(self, call: Call, id: int) -> Reply:
        return self.update(call, linked_by_id(self.model, id), "id")

    @accepts("write_args", collect_errors=True)
    def on_post_by_slug(self, call: Call, slug: str) -> Reply:
        return self.update(call, linked_by_slug(self.model, slug), "slug")

    def update(self, call: Call, found: PostModel | None, param: str) -> Reply:
        record = self.target(call, found, param)
        write = check_linked_write(self.model, call.args, call.user, record.language, record)
        self.require(can_edit(call.user, record), call.user)
        self.require(may_write_as(call.user, write.author, record), call.user)
        call.begin_write()
        record = update_linked(record, write, self.write_context(call))
        return Reply(self.represent(record, call))

    @accepts(LinkedReadArgs, collect_errors=True)
    def on_delete(self, call: Call, id: int) -> Reply:
        return self.delete(call, linked_by_id(self.model, id), "id")

    @accepts(LinkedReadArgs, collect_errors=True)
    def on_delete_by_slug(self, call: Call, slug: str) -> Reply:
        return self.delete(call, linked_by_slug(self.model, slug), "slug")

    def delete(self, call: Call, found: PostModel | None, param: str) -> Reply:
        record = self.target(call, found, param)
        self.require(can_delete(call.user, record), call.user)
        if record.status == "trash":
            raise RestError(f"{self.name}-is-in-trash", 410)
        call.begin_write()
        record = trash_linked(record, self.write_context(call))
        return Reply(self.represent(record, call))

    # -- helpers ---------------------------------------------------------------------

    @staticmethod
    def target(call: Call, record: PostModel | None, param: str = "id") -> PostModel:
        """The addressed record, once the parameters validated; an unknown record is
        an invalid ``id``/``slug`` reported with the other invalid parameters (TEC)."""
        unknown = () if record is not None else (param,)
        call.errors(*unknown).raise_if_any()
        assert record is not None
        return record

    def represent(self, record: PostModel, call: Call, *, single: bool = False) -> dict[str, t.Any]:
        image = images_of([record]).get(record.image_id or 0)
        return linked_data(
            record,
            call.urls,
            image,
            load_translations([record], user=call.user, total=call.total),
            single=single,
            geolocation=self.settings.geolocation,
        )

    def write_context(self, call: Call) -> WriteContext:
        assert call.user is not None
        return WriteContext(call.user, self.settings.timezone, call.clock, call.language)


class Venues(LinkedPosts):
    model = Venue
    collection = "venues"
    write_args = VenueWriteArgs
    create_args = VenueCreateArgs


class Organizers(LinkedPosts):
    model = Organizer
    collection = "organizers"
    write_args = OrganizerWriteArgs
    create_args = OrganizerCreateArgs
