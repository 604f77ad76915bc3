"""From ``GET /categories`` / ``GET /tags`` arguments to resolved filters.

Unknown terms in ``include``/``exclude``/``parent`` and unknown events in
``post``/``event`` are 400s, as TEC's validators say; they are found on the
parameters that validated, and reported with the others. The echo of the effective
query keeps every parameter the request sent, in declaration order; the pager puts
``page`` and ``per_page`` in front of it.
"""

from __future__ import annotations

import dataclasses
import typing as t

from ...errors import ParamErrors
from ...models import User
from ...wordpress.taxonomies import CATEGORIES, Taxonomy
from ..lists.term_archive import TermFilters
from ..lookups.events import readable_event
from ..lookups.terms import existing_term_ids, term_by_id


@dataclasses.dataclass
class TermListing:
    filters: TermFilters
    #: the effective query, as the request sent it
    echo: dict[str, str]


def reference_errors(
    taxonomy: Taxonomy, args: t.Mapping[str, t.Any], user: User | None
) -> ParamErrors:
    """The unknown IDs among the (valid) list arguments; an event ``user`` may not read
    is unknown (its existence is not revealed)."""
    errors = ParamErrors()
    for name in ("exclude", "include"):
        ids = args.get(name) or []
        known = existing_term_ids(taxonomy, ids) if ids else set()
        unknown = [term_id for term_id in ids if term_id not in known]
        if unknown:
            errors.add(name, "unknown_term", value=unknown[0])
    if "parent" in args and term_by_id(CATEGORIES, args["parent"]) is None:
        errors.add("parent", "unknown_term", value=args["parent"])
    for name in ("post", "event"):
        if name in args and readable_event(args[name], user) is None:
            errors.add(name, "unknown_event")
    return errors


def resolve_term_listing(
    taxonomy: Taxonomy, args: t.Mapping[str, t.Any], sent: t.Mapping[str, t.Any], language: str
) -> TermListing:
    """Filters from validated ``args``; ``sent`` are the raw parameters, whose names
    decide what the echo repeats."""
    filters = TermFilters(
        taxonomy=taxonomy.name,
        language=language,
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
    echo = {
        name: _echo(value)
        for name, value in args.items()
        if name not in ("page", "per_page") and sent.get(name) is not None
    }
    return TermListing(filters, echo)


def _echo(value: t.Any) -> str:
    """A parameter as the query string shows it."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, list):
        return ",".join(str(item) for item in value)
    return str(value)
