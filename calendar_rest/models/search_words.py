"""The search index: the folded words of every searchable record (``rules.search``)."""

from __future__ import annotations

import peewee as pw

from .base import BaseModel
from .posts import Event, Organizer, PostModel, Venue


class SearchWord(BaseModel):
    """One folded word of a searchable record (see ``search.py``): ``kind`` is
    ``e``vent, ``v``enue, ``o``rganizer, or the ``s``eries text that the rows of a
    recurring series share (``repository.series_words``); ``part`` is ``t``itle,
    ``c``ontent or ``p``rotected content. ``word`` compares by code point on every
    backend (``repository.schema`` sets the column's collation)."""

    kind = pw.CharField(max_length=1)
    word = pw.CharField(max_length=40)
    #: the record's ID, or for ``s``eries words the ``Event.words_from`` sharing them
    record_id = pw.BigIntegerField()
    part = pw.CharField(max_length=1, default="c")

    class Meta:
        primary_key = pw.CompositeKey("kind", "word", "record_id")
        #: a record's words in order: deletes by record, and a page that walks the
        #: archive in order checks each event's words with one seek (``word_search``)
        indexes = ((("kind", "record_id", "word", "part"), False),)


#: ``SearchWord.kind`` of each searchable model
SEARCH_KIND: dict[type[PostModel], str] = {Event: "e", Venue: "v", Organizer: "o"}
#: ``SearchWord.kind`` of the words a series' rows share (``Event.words_from``)
SHARED_KIND = "s"
