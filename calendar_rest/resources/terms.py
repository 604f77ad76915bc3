"""Category and tag routes: TEC's ``Archive_Category``/``Archive_Tag`` and
``Single_Category``/``Single_Tag``, which hand the work to WordPress core's terms
controller; its answers (``term_exists``, ``rest_taxonomy_not_hierarchical``...) are
reproduced here.

Checks run in WordPress's order: every parameter (IDs included: an unknown or
foreign term ID is a 400 naming ``id``), then the permission, then the handler's own
refusals. Categories are managed by authors and up, tags by editors and up.
"""

from __future__ import annotations

import typing as t

from marshmallow import Schema

from ..errors import ParamErrors, RestError
from ..models import Term, User
from ..queries.filters.term_filters import reference_errors, resolve_term_listing
from ..queries.lists.term_archive import term_count, term_page
from ..queries.lookups.terms import category_ancestry, term_by_id
from ..queries.lookups.translations import load_translations
from ..repository.terms import (
    create_term,
    delete_term,
    parent_errors,
    refuse_duplicate_name,
    refuse_update_conflicts,
    update_term,
)
from ..repository.translations import translation_root
from ..responders import Call, Resource
from ..routes import accepts
from ..rules.markup import TERM_FIELDS, written_fields
from ..rules.permissions import can_manage_terms
from ..schemas import terms as term_args
from ..wire.pages import Pager
from ..wire.reply import Reply
from ..wire.term_objects import core_links, single_term_object, term_object
from ..wordpress.taxonomies import CATEGORIES, TAGS, Taxonomy


class Terms(Resource):
    """``/<collection>`` and ``/<collection>/{id}`` for one taxonomy."""

    taxonomy: t.ClassVar[Taxonomy]
    archive_args: t.ClassVar[type[Schema]]
    create_args: t.ClassVar[type[Schema]]
    write_args: t.ClassVar[type[Schema]]

    def may_call(self, method: str, user: User | None) -> bool:
        """Term writes need the taxonomy's manage capability (authors for categories,
        editors for tags)."""
        return method == "GET" or can_manage_terms(user, self.taxonomy)

    def record_methods(self, values: t.Mapping[str, t.Any], user: User | None) -> tuple[str, ...]:
        exists = term_by_id(self.taxonomy, values["id"]) is not None
        if exists and can_manage_terms(user, self.taxonomy):
            return ("GET", "POST", "PUT", "PATCH", "DELETE")
        return ("GET",)

    def path_errors(self, values: t.Mapping[str, t.Any]) -> ParamErrors:
        """A term ID that names no term of this taxonomy is an invalid ``id``, reported
        before the permission check (WordPress core's terms controller)."""
        errors = ParamErrors()
        if "id" in values and term_by_id(self.taxonomy, values["id"]) is None:
            errors.add("id")
        return errors

    # -- archive ---------------------------------------------------------------------

    @accepts("archive_args", collect_errors=True)
    def on_get_collection(self, call: Call) -> Reply:
        args, _ = call.checked(
            lambda valid: reference_errors(self.taxonomy, valid, call.user).raise_if_any()
        )
        listing = resolve_term_listing(self.taxonomy, args, call.params, call.language)
        pager = Pager.from_args(args, self.settings)
        total = call.total(term_count(listing.filters))
        terms = term_page(listing.filters, pager.per_page, pager.offset)
        ancestry = category_ancestry(terms)
        translations = load_translations(terms, user=call.user, total=call.total)
        items = [term_object(term, call.urls, ancestry, translations) for term in terms]
        key = self.taxonomy.collection
        return pager.reply(key, items, total, listing.echo, call.urls, call.query, terms_order=True)

    # -- single term -----------------------------------------------------------------

    @accepts(term_args.TermReadArgs, collect_errors=True)
    def on_get(self, call: Call, id: int) -> Reply:
        _, term = self.load_item(call, id)
        return self.single(term, call)

    @accepts("create_args", collect_errors=True)
    def on_post_collection(self, call: Call) -> Reply:
        args = written_fields(call.arguments.valid, call.user, TERM_FIELDS)
        errors = call.errors()
        errors.update(parent_errors(args))
        errors.update(self.resolve_translation(args, call.language, call.user))
        errors.raise_if_any()
        self.require(can_manage_terms(call.user, self.taxonomy), call.user)
        self.refuse_parent(call)
        refuse_duplicate_name(self.taxonomy, args["name"], args.get("parent"), call.language)
        call.begin_write()
        term = create_term(self.taxonomy, args, call.language, call.now)
        reply = self.single(term, call, status=201)
        reply.headers.append(("Location", core_links(term, call.urls)["self"][0]["href"]))
        return reply

    @accepts("write_args", collect_errors=True)
    def on_post(self, call: Call, id: int) -> Reply:
        args, term = self.load_item(call, id)
        self.require(can_manage_terms(call.user, self.taxonomy), call.user)
        self.refuse_parent(call)
        refuse_update_conflicts(self.taxonomy, term, args)
        call.begin_write()
        return self.single(update_term(term, args, call.now), call)

    @accepts(term_args.TermReadArgs, collect_errors=True)
    def on_delete(self, call: Call, id: int) -> Reply:
        """Permanent (TEC forces it); answers the term as it was, without ``_links``."""
        _, term = self.load_item(call, id)
        self.require(can_manage_terms(call.user, self.taxonomy), call.user)
        data = term_object(
            term,
            call.urls,
            category_ancestry([term]),
            load_translations([term], user=call.user, total=call.total),
        )
        call.begin_write()
        delete_term(term, call.now)
        return Reply(data)

    # -- helpers ---------------------------------------------------------------------

    def load_item(self, call: Call, term_id: int) -> tuple[dict[str, t.Any], Term]:
        """The route's term (of this taxonomy) and the valid args; every failure, ``id``
        first, in one 400."""
        term = term_by_id(self.taxonomy, term_id)
        unknown = () if term is not None else ("id",)
        errors = call.errors(*unknown)
        args = written_fields(call.arguments.valid, call.user, TERM_FIELDS)
        errors.update(parent_errors(args, term))
        language = term.language if term is not None else call.language
        errors.update(self.resolve_translation(args, language, call.user, term))
        errors.raise_if_any()
        assert term is not None
        return args, term

    def resolve_translation(
        self, args: dict[str, t.Any], language: str, user: User | None, term: Term | None = None
    ) -> ParamErrors:
        """Replace a valid ``translation_of`` in ``args`` by its group's root; return
        the error of an invalid one (see ``repository.translations``)."""
        errors = ParamErrors()
        if "translation_of" in args:
            link = errors.check(
                lambda: translation_root(
                    Term, args["translation_of"], language, term, user, taxonomy=self.taxonomy
                )
            )
            if link is not None:  # terms have no drafts: nothing is ever detached
                args["translation_of"] = link.root
        return errors

    def refuse_parent(self, call: Call) -> None:
        if not self.taxonomy.hierarchical and call.params.get("parent") is not None:
            raise RestError("rest_taxonomy_not_hierarchical", 400)

    def single(self, term: Term, call: Call, status: int = 200) -> Reply:
        data = single_term_object(
            term,
            call.urls,
            category_ancestry([term]),
            load_translations([term], user=call.user, total=call.total),
        )
        return Reply(data, status=status)


class Categories(Terms):
    taxonomy = CATEGORIES
    archive_args = term_args.CategoryArchiveArgs
    create_args = term_args.CategoryCreateArgs
    write_args = term_args.CategoryWriteArgs


class Tags(Terms):
    taxonomy = TAGS
    archive_args = term_args.TagArchiveArgs
    create_args = term_args.TagCreateArgs
    write_args = term_args.TagWriteArgs
