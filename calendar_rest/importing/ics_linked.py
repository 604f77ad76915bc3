"""The records a VEVENT links to (``calendar.md`` §5): its ``LOCATION`` a venue, its
``ORGANIZER`` an organizer, its ``CATEGORIES`` categories.

Each is matched as the spec's table says and created only when missing, through the
API's validation and write functions; what is created is counted in the tally.
"""

from __future__ import annotations

import dataclasses
import typing as t

from ..models import Organizer, Venue
from ..queries.lookups import imports as match
from ..repository.linked import check_linked_write, create_linked, update_linked
from ..repository.terms import create_term
from ..rules.markup import Markup
from ..schemas import OrganizerCreateArgs, VenueCreateArgs, validate
from ..wordpress.taxonomies import CATEGORIES
from .common import Batches, ImportOptions, Tally, filtered, operator, write_context
from .ics_mapping import IcsEvent


@dataclasses.dataclass
class LinkedRecords:
    """Finds or creates one component's linked records, in the open batch."""

    options: ImportOptions
    tally: Tally
    batches: Batches

    def venue(self, event: IcsEvent) -> Venue | None:
        """§5's LOCATION rules: the whole text, then the text before the first comma;
        else a new venue with the address parts. GEO fills missing coordinates."""
        text = event.location
        if not text:
            return None
        parts = [part.strip() for part in text.split(",") if part.strip()]
        name = parts[0] if parts else text
        venue = match.venue_named(text) or match.venue_named(name)
        if venue is not None:
            if event.geo is not None and (venue.geo_lat is None or venue.geo_lng is None):
                self.batches.writing()
                geo = {"geo_lat": event.geo[0], "geo_lng": event.geo[1]}
                write = check_linked_write(Venue, geo, operator(), venue.language, venue)
                update_linked(venue, write, write_context(self.options))
            return venue
        args: dict[str, t.Any] = {"venue": filtered(self.options, name, Markup.INLINE)}
        if len(parts) >= 3:
            args["address"], args["city"] = ", ".join(parts[1:-1]), parts[-1]
        elif len(parts) == 2:
            args["address"] = parts[1]
        if event.geo is not None:
            args["geo_lat"], args["geo_lng"] = event.geo
        self._as_created(args)
        self.batches.writing()
        validated = validate(VenueCreateArgs(), args)
        write = check_linked_write(Venue, validated, operator())
        self.tally.created["venues"] += 1
        return create_linked(Venue, write, write_context(self.options))

    def organizer(self, event: IcsEvent) -> Organizer | None:
        """The organizer matching ORGANIZER's address or name, else a new one."""
        if event.organizer is None:
            return None
        name, email = event.organizer
        found = match.organizer_matching(email, name)
        if found is not None:
            return found
        args: dict[str, t.Any] = {"organizer": filtered(self.options, name, Markup.INLINE)}
        if email:
            args["email"] = email
        self._as_created(args)
        self.batches.writing()
        write = check_linked_write(Organizer, validate(OrganizerCreateArgs(), args), operator())
        self.tally.created["organizers"] += 1
        return create_linked(Organizer, write, write_context(self.options))

    def category(self, name: str) -> int:
        """The id of the category named ``name``, created if missing."""
        term = match.term_named(CATEGORIES, name)
        if term is None:
            self.batches.writing()
            args = {"name": filtered(self.options, name, Markup.INLINE)}
            term = create_term(CATEGORIES, args, "en", write_context(self.options).now)
            self.tally.created["categories"] += 1
        return term.id

    def _as_created(self, args: dict[str, t.Any]) -> None:
        """Created linked records get ``--status`` (not private) and ``--author``."""
        status = self.options.status
        args["status"] = status if status in ("draft", "pending") else "publish"
        if self.options.author is not None:
            args["author"] = self.options.author.id
