"""The ``search`` filter as SQL: every word a range on the word index, all required.

Each query word becomes ``id IN (records with a word in [word, next))``, served by the
``(kind, word, record_id)`` primary key. A password-protected event's content words
(part ``p``) only match for callers who may edit the event, the ones who may read its
content in a list (``security.md`` A1); its title words match for everybody.
"""

from __future__ import annotations

import peewee as pw

from ..models import Event, PostModel, SearchWord, User
from ..search import CONTENT, PROTECTED, TITLE, prefix_range
from .visibility import EVERYTHING, NOTHING, editable


def _records_with(kind: str, word: str, parts: tuple[str, ...] | None) -> pw.Select:
    low, high = prefix_range(word)
    match = (SearchWord.kind == kind) & (SearchWord.word >= low)
    if high is not None:
        match &= SearchWord.word < high
    if parts is not None:
        match &= SearchWord.part.in_(list(parts))
    return SearchWord.select(SearchWord.record_id).where(match)


def every_word(
    model: type[PostModel], kind: str, words: list[str], user: User | None
) -> list[pw.ColumnBase]:
    """One condition per word: the record has a word starting with it, among the parts
    of the record ``user`` may search."""
    if model is not Event:  # only events carry passwords
        return [model.id.in_(_records_with(kind, word, None)) for word in words]
    may_edit = editable(model, user)
    conditions: list[pw.ColumnBase] = []
    for word in words:
        if may_edit is EVERYTHING:
            conditions.append(model.id.in_(_records_with(kind, word, None)))
            continue
        public = model.id.in_(_records_with(kind, word, (TITLE, CONTENT)))
        if may_edit is NOTHING:
            conditions.append(public)
        else:
            protected = may_edit & model.id.in_(_records_with(kind, word, (PROTECTED,)))
            conditions.append(public | protected)
    return conditions
