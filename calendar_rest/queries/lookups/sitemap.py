"""What the sitemap lists (``site.md`` §1): every record an anonymous reader may read
that has a page of its own in the listings' sense, read in one statement per kind."""

from __future__ import annotations

import datetime as dt
import typing as t

from ...models import Event, Organizer, Term, Venue

#: (kind, slug, modified UTC) of a record's page
Page = tuple[str, str, dt.datetime | None]


def public_record_pages() -> list[Page]:
    """Published events (not hidden from listings, not password-protected, as
    WordPress's sitemaps leave those out), venues and organizers, each kind by ID."""
    pages: list[Page] = []
    events = (
        Event.select(Event.slug, Event.modified_utc)
        .where(
            (Event.status == "publish")
            & (Event.hide_from_listings == False)  # noqa: E712 - a SQL comparison
            & (Event.password == "")
        )
        .order_by(Event.id)
        .tuples()
    )
    pages += [("event", row[0], row[1]) for row in t.cast(t.Iterable[tuple[str, t.Any]], events)]
    for kind, model in (("venue", Venue), ("organizer", Organizer)):
        rows = (
            model.select(model.slug, model.modified_utc)
            .where(model.status == "publish")
            .order_by(model.id)
            .tuples()
        )
        pages += [(kind, row[0], row[1]) for row in t.cast(t.Iterable[tuple[str, t.Any]], rows)]
    return pages


def every_term() -> list[Term]:
    """Every category and tag (a term's archive is public), by ID."""
    return list(t.cast(t.Iterable[Term], Term.select().order_by(Term.id)))
