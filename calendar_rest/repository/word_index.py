"""Keeping each record's words in the search index (``search.py``) in step with it.

The rows of a recurring series do not each hold the words of the text they share with
their series: ``Event.words_from`` names the series' copy of them (kind ``s``,
``repository.series_words``), and a row's own words are those of the text fields it
changed alone.
"""

from __future__ import annotations

from ..models import SEARCH_KIND, Event, Organizer, PostModel, SearchWord, Venue
from ..rules.search import indexed_words, replace_words

#: the fields searched besides the title (for venues and organizers, TEC's
#: duplicate-finder fields)
SEARCHED_FIELDS: dict[type[PostModel], tuple[str, ...]] = {
    Event: ("excerpt", "description"),
    Venue: (
        "description",
        "excerpt",
        "address",
        "city",
        "province",
        "state",
        "stateprovince",
        "zip",
        "phone",
    ),
    Organizer: ("description", "excerpt", "phone", "email", "website"),
}
#: the text fields a series row can share, each a bit of the key of the words it
#: shares: ``Event.words_from`` is its master's ID times :data:`SHARED_KEYS` plus the
#: bits of the fields it shares
SHARED_BITS = {"title": 1, "excerpt": 2, "description": 4}
SHARED_KEYS = 8


def shared_fields(words_from: int | None) -> frozenset[str]:
    """The text fields whose words a row with this ``words_from`` shares."""
    if words_from is None:
        return frozenset()
    bits = words_from % SHARED_KEYS
    return frozenset(field for field, bit in SHARED_BITS.items() if bits & bit)


def words_of(record: PostModel) -> dict[str, str]:
    """The indexed words of one record: its title's, then its searched fields'; the
    content of a password-protected record is marked protected. A series row's are
    those of the fields it does not share."""
    shared = shared_fields(record.words_from) if isinstance(record, Event) else frozenset()
    searched = (field for field in SEARCHED_FIELDS[type(record)] if field not in shared)
    fields = (getattr(record, field) or "" for field in searched)
    title = "" if "title" in shared else record.title
    return indexed_words(title, *fields, protected=bool(record.password))


def index_record(record: PostModel) -> None:
    """Store the record's words, replacing what it had."""
    replace_words(SearchWord, SEARCH_KIND[type(record)], record.id, words_of(record))


def touches_words(model: type[PostModel], sent: set[str]) -> bool:
    """Whether a write of the fields ``sent`` can change the record's words."""
    return bool(sent & {"title", "password", *SEARCHED_FIELDS[model]})
