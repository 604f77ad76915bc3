"""Category and tag routes: TEC's ``Archive_Category``/``Archive_Tag`` and
``Single_Category``/``Single_Tag``, which hand the work to WordPress core's terms
controller; its answers (``term_exists``, ``rest_taxonomy_not_hierarchical``...) are
reproduced here.

Checks run in WordPress's order: every parameter (IDs included: an unknown or
foreign term ID is a 400 naming ``id``), then the permission, then the handler's own
refusals. Categories are managed by authors and up, tags by editors and up.
"""

from __future__ import annotations

import dataclasses
import math
import typing as t

from marshmallow import Schema
from werkzeug.wrappers import Response

from ..errors import InvalidParams, RestError
from ..http import json_response
from ..messages import MESSAGES, N_
from ..models import TAXONOMY_CATEGORY, TAXONOMY_TAG, Event, Term, User
from ..queries.terms import TermFilters, category_ancestry, count, term_page, term_query
from ..queries.translations import load_translations
from ..repository.terms import (
    can_manage_terms,
    create_term,
    delete_term,
    descendant_ids,
    existing_term_ids,
    name_taken,
    slug_owner,
    term_by_id,
    term_slug,
    update_term,
)
from ..repository.translations import translation_root
from ..schemas import (
    CategoryArchiveArgs,
    CategoryCreateArgs,
    CategoryWriteArgs,
    ParamMessage,
    TagArchiveArgs,
    TagCreateArgs,
    TagWriteArgs,
    TermReadArgs,
)
from ..wire.term_objects import core_links, single_term_object, term_object
from .base import Call, Resource, accepts

Errors = dict[str, ParamMessage]


class TermExists(RestError):
    """Core's ``term_exists``: one code, two sentences (with a parent, or flat)."""

    def __init__(self, term: Term) -> None:
        super().__init__("term_exists", 400, data={"term_id": term.id})
        self.message_key = (
            "term_exists" if term.taxonomy == TAXONOMY_CATEGORY else "term_exists_in_taxonomy"
        )

    def message(self, translate: t.Callable[[str], str] = str) -> str:
        return translate(MESSAGES[self.message_key])


@dataclasses.dataclass
class TermListing:
    filters: TermFilters
    page: int
    per_page: int
    #: the effective query, for ``rest_url`` and the page links
    echo: dict[str, str]


class Terms(Resource):
    """``/<key>`` and ``/<key>/{id}`` for one taxonomy."""

    taxonomy: t.ClassVar[str]
    #: the collection's path segment and the list's data key
    key: t.ClassVar[str]
    archive_args: t.ClassVar[type[Schema]]
    create_args: t.ClassVar[type[Schema]]
    write_args: t.ClassVar[type[Schema]]

    @property
    def hierarchical(self) -> bool:
        return self.taxonomy == TAXONOMY_CATEGORY

    def may_call(self, method: str, user: User | None) -> bool:
        """Term writes need the taxonomy's manage capability (authors for categories,
        editors for tags)."""
        return method == "GET" or can_manage_terms(user, self.taxonomy)

    # -- archive ---------------------------------------------------------------------

    @accepts("archive_args")
    def on_get_collection(self, call: Call) -> Response:
        listing = self.load_listing(call)
        query = term_query(listing.filters)
        total = count(query)
        terms = term_page(query, listing.filters, listing.page, listing.per_page)
        ancestry = category_ancestry(terms)
        translations = load_translations(terms)
        items = [term_object(term, call.urls, ancestry, translations) for term in terms]
        total_pages = math.ceil(total / listing.per_page) if total else 0
        return self.archive_response(
            self.key, items, listing.echo, listing.page, total, total_pages, call,
            terms_order=True,
        )

    def load_listing(self, call: Call) -> TermListing:
        """Validate every parameter, then check the IDs of the valid ones; report all
        failures together, in declaration order, as WordPress does."""
        args, _ = self.load_checked(call.schema, call.params, self.check_references)
        return self.listing(args, call)

    def check_references(self, args: dict[str, t.Any]) -> None:
        """:raises InvalidParams: for the unknown IDs ``reference_errors`` finds."""
        errors = self.reference_errors(args)
        if errors:
            raise InvalidParams(errors)

    def reference_errors(self, args: dict[str, t.Any]) -> Errors:
        """Unknown terms in ``include``/``exclude``/``parent``, unknown events in
        ``post``/``event``: 400s, as TEC's validators say."""
        errors: Errors = {}
        for name in ("exclude", "include"):
            ids = args.get(name) or []
            known = existing_term_ids(self.taxonomy, ids) if ids else set()
            unknown = [term_id for term_id in ids if term_id not in known]
            if unknown:
                errors[name] = ParamMessage("unknown_term", param=name, value=unknown[0])
        if "parent" in args and term_by_id(TAXONOMY_CATEGORY, args["parent"]) is None:
            errors["parent"] = ParamMessage("unknown_term", param="parent", value=args["parent"])
        for name in ("post", "event"):
            if name in args and Event.get_or_none(Event.id == args[name]) is None:
                errors[name] = ParamMessage("unknown_event", param=name)
        return errors

    def listing(self, args: dict[str, t.Any], call: Call) -> TermListing:
        per_page = min(args.get("per_page", self.settings.default_per_page),
                       self.settings.max_per_page)
        filters = TermFilters(
            taxonomy=self.taxonomy,
            language=call.language,
            hide_empty=args.get("hide_empty", True),
            search=args.get("search"),
            include=args.get("include"),
            exclude=args.get("exclude"),
            parent=args.get("parent"),
            event=args.get("event", args.get("post")),
            slug=args.get("slug"),
            orderby=args.get("orderby", "name").lower(),
            ascending=args.get("order", "asc").lower() == "asc",
        )
        echo = {"page": str(args["page"]), "per_page": str(per_page)}
        for name, value in args.items():
            if name not in echo and call.params.get(name) is not None:
                echo[name] = _echo(value)
        return TermListing(filters, args["page"], per_page, echo)

    # -- single term -----------------------------------------------------------------

    @accepts(TermReadArgs)
    def on_get(self, call: Call, id: int) -> Response:
        _, term = self.load_item(call, id)
        return self.single(term, call)

    @accepts("create_args")
    def on_post_collection(self, call: Call) -> Response:
        errors: Errors = {}
        try:
            args = self.load(call.schema, call.params)
        except InvalidParams as exc:
            args, errors = exc.valid, dict(exc.errors)
        errors.update(self.parent_errors(args))
        errors.update(self.resolve_translation(args, call.language))
        if errors:
            raise InvalidParams(errors)
        self.require(can_manage_terms(call.user, self.taxonomy), call.user)
        self.refuse_parent(call)
        self.refuse_duplicate_name(args["name"], args.get("parent"), call.language)
        term = create_term(self.taxonomy, args, call.language)
        response = self.single(term, call, status=201)
        response.headers["Location"] = core_links(term, call.urls)["self"][0]["href"]
        return response

    @accepts("write_args")
    def on_post(self, call: Call, id: int) -> Response:
        args, term = self.load_item(call, id)
        self.require(can_manage_terms(call.user, self.taxonomy), call.user)
        self.refuse_parent(call)
        name = args.get("name", term.name)
        if "name" in args or "parent" in args:
            parent = args["parent"] if "parent" in args else term.parent_id
            self.refuse_duplicate_name(name, parent, term.language, term)
        slug = None
        if "slug" in args:
            slug = term_slug(args["slug"], name)
            if slug_owner(self.taxonomy, slug, term.id) is not None:
                raise RestError("duplicate_term_slug", 400, slug)
        return self.single(update_term(term, args, slug), call)

    @accepts(TermReadArgs)
    def on_delete(self, call: Call, id: int) -> Response:
        """Permanent (TEC forces it); answers the term as it was, without ``_links``."""
        _, term = self.load_item(call, id)
        self.require(can_manage_terms(call.user, self.taxonomy), call.user)
        data = term_object(term, call.urls, category_ancestry([term]), load_translations([term]))
        delete_term(term)
        return json_response(data)

    # -- helpers ---------------------------------------------------------------------

    def load_item(self, call: Call, term_id: int) -> tuple[dict[str, t.Any], Term]:
        """The route's term (of this taxonomy) and the valid args; every failure, ``id``
        first, in one 400."""
        term = term_by_id(self.taxonomy, term_id)
        errors: Errors = {} if term is not None else {"id": ParamMessage("invalid")}
        try:
            args = self.load(call.schema, call.params)
        except InvalidParams as exc:
            args = exc.valid
            errors.update(exc.errors)
        errors.update(self.parent_errors(args, term))
        language = term.language if term is not None else call.language
        errors.update(self.resolve_translation(args, language, term))
        if errors or term is None:
            raise InvalidParams(errors)
        return args, term

    def parent_errors(self, args: dict[str, t.Any], term: Term | None = None) -> Errors:
        """A category's new parent: 0 (top level) or an existing category that is neither
        the term itself nor one of its descendants (tag schemas have no parent)."""
        parent = args.get("parent")
        if not parent:
            return {}
        if term_by_id(TAXONOMY_CATEGORY, parent) is None:
            return {"parent": ParamMessage("unknown_term", param="parent", value=parent)}
        if term is not None and (parent == term.id or parent in descendant_ids(term.id)):
            return {"parent": ParamMessage("parent_cycle", param="parent")}
        return {}

    def resolve_translation(
        self, args: dict[str, t.Any], language: str, term: Term | None = None
    ) -> Errors:
        """Replace a valid ``translation_of`` in ``args`` by its group's root; return
        the error of an invalid one (see ``repository.translations``)."""
        if "translation_of" not in args:
            return {}
        try:
            args["translation_of"] = translation_root(
                Term, args["translation_of"], language, term, taxonomy=self.taxonomy
            )
        except InvalidParams as exc:
            return dict(exc.errors)
        return {}

    def refuse_parent(self, call: Call) -> None:
        if not self.hierarchical and call.params.get("parent") is not None:
            raise RestError("rest_taxonomy_not_hierarchical", 400)

    def refuse_duplicate_name(
        self, name: str, parent: int | None, language: str, term: Term | None = None
    ) -> None:
        existing = name_taken(
            self.taxonomy, name, parent, language, term.id if term is not None else None
        )
        if existing is not None:
            raise TermExists(existing)

    def single(self, term: Term, call: Call, status: int = 200) -> Response:
        data = single_term_object(
            term, call.urls, category_ancestry([term]), load_translations([term])
        )
        return json_response(data, status=status)


class Categories(Terms):
    taxonomy = TAXONOMY_CATEGORY
    key = "categories"
    path_descriptions: t.ClassVar[dict[str, str]] = {"id": N_("The category term ID")}
    archive_args = CategoryArchiveArgs
    create_args = CategoryCreateArgs
    write_args = CategoryWriteArgs


class Tags(Terms):
    taxonomy = TAXONOMY_TAG
    key = "tags"
    path_descriptions: t.ClassVar[dict[str, str]] = {"id": N_("The tag term ID")}
    archive_args = TagArchiveArgs
    create_args = TagCreateArgs
    write_args = TagWriteArgs


def _echo(value: t.Any) -> str:
    """A parameter as the query string shows it."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, list):
        return ",".join(str(item) for item in value)
    return str(value)
