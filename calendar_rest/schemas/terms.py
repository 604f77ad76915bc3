"""Argument sets of the category and tag routes (TEC's ``Single_Category``/``Single_Tag``
and ``Archive_Category``/``Archive_Tag`` args).

Categories and tags take the same parameters, but for ``parent``: each pair of
argument sets is built by one factory, with ``parent`` for the hierarchical taxonomy
only. The resource answers a ``parent`` sent to a tag the way WordPress core does
(``rest_taxonomy_not_hierarchical``). Whether IDs exist is checked by the resource,
which has the database. Declaration order is the documented order, which is also the
order errors are reported in.
"""

from __future__ import annotations

import typing as t

from marshmallow import Schema

from . import fields as f
from . import shared
from .messages import N_
from .shared import Args

#: the ``name`` and ``slug`` columns hold 200 characters
MAX_TERM_TEXT = 200
Fields = dict[str, f.WPField]


def _build(name: str, *groups: Fields) -> type[Schema]:
    """An argument set named ``name`` from groups of fields, in order."""
    declared: Fields = {}
    for group in groups:
        declared.update(group)
    return Args.from_dict(t.cast(dict[str, t.Any], declared), name=name)


def _parent(hierarchical: bool, help: str) -> Fields:
    return {"parent": f.Integer(help=help)} if hierarchical else {}


def _write_args(name: str, *, hierarchical: bool, create: bool) -> type[Schema]:
    """A term's writable fields; a create requires ``name`` (TEC refuses "" in each)."""
    return _build(
        name,
        {
            "name": f.String(required=create, max_length=MAX_TERM_TEXT, help=N_("The term name")),
            "description": f.String(help=N_("The term description")),
            "slug": f.String(max_length=MAX_TERM_TEXT, help=N_("The term slug")),
        },
        _parent(hierarchical, N_("The parent category ID (0: top level)")),
        {"translation_of": shared.translation_of(), "i18n_language": f.Language()},
    )


def _archive_args(name: str, *, hierarchical: bool) -> type[Schema]:
    """``GET /categories`` or ``GET /tags``, in SPEC order."""
    return _build(
        name,
        {
            "page": shared.page(),
            "per_page": shared.per_page(N_("The number of terms to return on each page")),
            "search": f.String(help=N_("Limit results to terms whose name or slug contains this")),
            "exclude": f.IdList(help=N_("Leave out these term IDs")),
            "include": f.IdList(help=N_("Limit results to these term IDs")),
            "order": f.String(help=N_("asc for ascending order; any other value: descending")),
            "orderby": f.String(help=N_("The term attribute to sort by")),
            "hide_empty": f.Boolean(
                load_default=True,
                help=N_("Whether to hide terms not assigned to any published event"),
            ),
        },
        _parent(hierarchical, N_("Limit results to the direct children of this category ID")),
        {
            "post": f.Integer(help=N_("Limit results to terms assigned to this event ID")),
            "event": f.Integer(help=N_("Alias of post; wins when both are given")),
            "slug": f.String(help=N_("Limit results to the term with this slug")),
            "i18n_language": f.Language(),
        },
    )


class TermReadArgs(Args):
    """Single term GET and DELETE."""

    i18n_language = f.Language()


CategoryWriteArgs = _write_args("CategoryWriteArgs", hierarchical=True, create=False)
CategoryCreateArgs = _write_args("CategoryCreateArgs", hierarchical=True, create=True)
CategoryArchiveArgs = _archive_args("CategoryArchiveArgs", hierarchical=True)
TagWriteArgs = _write_args("TagWriteArgs", hierarchical=False, create=False)
TagCreateArgs = _write_args("TagCreateArgs", hierarchical=False, create=True)
TagArchiveArgs = _archive_args("TagArchiveArgs", hierarchical=False)
