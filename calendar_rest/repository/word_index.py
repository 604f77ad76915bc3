"""Keeping each record's words in the search index (``search.py``) in step with it."""

from __future__ import annotations

from ..models import SEARCH_KIND, Event, Organizer, PostModel, SearchWord, Venue
from ..search import indexed_words, replace_words

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


def words_of(record: PostModel) -> dict[str, str]:
    """The indexed words of one record: its title's, then its searched fields'; the
    content of a password-protected record is marked protected."""
    fields = (getattr(record, field) or "" for field in SEARCHED_FIELDS[type(record)])
    return indexed_words(record.title, *fields, protected=bool(record.password))


def index_record(record: PostModel) -> None:
    """Store the record's words, replacing what it had."""
    replace_words(SearchWord, SEARCH_KIND[type(record)], record.id, words_of(record))


def touches_words(model: type[PostModel], sent: set[str]) -> bool:
    """Whether a write of the fields ``sent`` can change the record's words."""
    return bool(sent & {"title", "password", *SEARCHED_FIELDS[model]})
