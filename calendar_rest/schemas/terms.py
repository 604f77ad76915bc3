"""Argument sets of the category and tag routes (TEC's ``Single_Category``/``Single_Tag``
and ``Archive_Category``/``Archive_Tag`` args).

Tags have no ``parent``: their schemas drop it, and the resource answers a ``parent``
sent to a tag the way WordPress core does (``rest_taxonomy_not_hierarchical``).
Whether IDs exist is checked by the resource, which has the database. Declaration
order is the documented order, which is also the order errors are reported in.
"""

from __future__ import annotations

from marshmallow import EXCLUDE, Schema

from . import fields as f
from .messages import N_

#: the ``name`` and ``slug`` columns hold 200 characters
MAX_TERM_TEXT = 200


def _name(required: bool = False) -> f.String:
    return f.String(
        required=required, max_length=MAX_TERM_TEXT, metadata={"description": N_("The term name")}
    )


def _description() -> f.String:
    return f.String(metadata={"description": N_("The term description")})


def _slug() -> f.String:
    return f.String(max_length=MAX_TERM_TEXT, metadata={"description": N_("The term slug")})


def _parent() -> f.Integer:
    return f.Integer(metadata={"description": N_("The parent category ID (0: top level)")})


def _translation_of() -> f.Integer:
    return f.Integer(
        positive=True, metadata={"description": N_("The ID of the record this one translates")}
    )


class _Args(Schema):
    class Meta:
        unknown = EXCLUDE


class TagWriteArgs(_Args):
    """Tag update: every field optional, and "" refused for each, as TEC does."""

    name = _name()
    description = _description()
    slug = _slug()
    translation_of = _translation_of()
    i18n_language = f.Language()


class TagCreateArgs(_Args):
    name = _name(required=True)
    description = _description()
    slug = _slug()
    translation_of = _translation_of()
    i18n_language = f.Language()


class CategoryWriteArgs(_Args):
    """Category update: a tag's fields plus ``parent``."""

    name = _name()
    description = _description()
    slug = _slug()
    parent = _parent()
    translation_of = _translation_of()
    i18n_language = f.Language()


class CategoryCreateArgs(_Args):
    name = _name(required=True)
    description = _description()
    slug = _slug()
    parent = _parent()
    translation_of = _translation_of()
    i18n_language = f.Language()


class TermReadArgs(_Args):
    """Single term GET and DELETE."""

    i18n_language = f.Language()


def _page() -> f.Integer:
    return f.Integer(
        positive=True, load_default=1, metadata={"description": N_("The archive page to return")}
    )


def _per_page() -> f.Integer:
    return f.Integer(
        positive=True,
        metadata={
            "description": N_("The number of terms to return on each page"),
            "default_setting": "default_per_page",
        },
    )


def _search() -> f.String:
    return f.String(
        metadata={"description": N_("Limit results to terms whose name or slug contains this")}
    )


def _ids(description: str) -> f.IdList:
    return f.IdList(metadata={"description": description})


def _order() -> f.String:
    return f.String(
        metadata={"description": N_("asc for ascending order; any other value: descending")}
    )


def _orderby() -> f.String:
    return f.String(metadata={"description": N_("The term attribute to sort by")})


def _hide_empty() -> f.Boolean:
    return f.Boolean(
        load_default=True,
        metadata={"description": N_("Whether to hide terms not assigned to any published event")},
    )


def _event(description: str) -> f.Integer:
    return f.Integer(metadata={"description": description})


def _slug_filter() -> f.String:
    return f.String(metadata={"description": N_("Limit results to the term with this slug")})


POST_HELP = N_("Limit results to terms assigned to this event ID")
EVENT_HELP = N_("Alias of post; wins when both are given")


class TagArchiveArgs(_Args):
    """``GET /tags`` (TEC's ``Archive_Tag`` args), in SPEC order."""

    page = _page()
    per_page = _per_page()
    search = _search()
    #: named like ``Schema.exclude``; SchemaMeta takes declared fields off the class, so
    #: nothing is shadowed at run time, which marshmallow's typing cannot express
    exclude = _ids(N_("Leave out these term IDs"))  # type: ignore[assignment]
    include = _ids(N_("Limit results to these term IDs"))
    order = _order()
    orderby = _orderby()
    hide_empty = _hide_empty()
    post = _event(POST_HELP)
    event = _event(EVENT_HELP)
    slug = _slug_filter()
    i18n_language = f.Language()


class CategoryArchiveArgs(_Args):
    """``GET /categories``: the tag archive's args plus ``parent``, in SPEC order."""

    page = _page()
    per_page = _per_page()
    search = _search()
    #: named like ``Schema.exclude`` (see ``TagArchiveArgs``)
    exclude = _ids(N_("Leave out these term IDs"))  # type: ignore[assignment]
    include = _ids(N_("Limit results to these term IDs"))
    order = _order()
    orderby = _orderby()
    hide_empty = _hide_empty()
    parent = f.Integer(
        metadata={"description": N_("Limit results to the direct children of this category ID")}
    )
    post = _event(POST_HELP)
    event = _event(EVENT_HELP)
    slug = _slug_filter()
    i18n_language = f.Language()
