"""The ``search`` filter as SQL: every word a range on the word index, all required.

Each query word becomes ``id IN (records with a word in [word, next))``, served by the
``(kind, word, record_id)`` primary key: the matching records are gathered first, which
suits a count or a rare word. A page of a common word instead *walks* the archive in
its order and checks each record's words with one seek on ``(kind, record_id, word)``
(``EXISTS``), stopping after a page of matches (``walks_words`` chooses).

The rows of a recurring series share the words of the text they did not change alone:
an event matches by its own words or by those it shares (``Event.words_from``, kind
``s``), each looked up the same way.

A password-protected event's content words (part ``p``) only match for callers who may
edit the event, the ones who may read its content in a list (``security.md`` A1); its
title words match for everybody.
"""

from __future__ import annotations

import peewee as pw

from ...db import backend_name
from ...models import SHARED_KIND, Event, PostModel, SearchWord, User
from ...rules.search import CONTENT, PROTECTED, TITLE, prefix_range
from .visibility import EVERYTHING, NOTHING, editable


def _word_match(
    words: type[SearchWord] | pw.ModelAlias[SearchWord],
    kind: str,
    word: str,
    parts: tuple[str, ...] | None,
) -> pw.ColumnBase:
    low, high = prefix_range(word)
    match = (words.kind == kind) & (words.word >= low)
    if high is not None:
        match &= words.word < high
    if parts is not None:
        match &= words.part.in_(list(parts))
    return match


def _has_word(
    model: type[PostModel], kind: str, word: str, parts: tuple[str, ...] | None, walk: bool
) -> pw.ColumnBase:
    """The record has the word among its own or (an event of a series) among those it
    shares with its series (``Event.words_from``): checked by a seek per row (walk), or
    gathered."""
    if walk:
        found = _seek(model.id, kind, word, parts)
        if model is Event:  # ``words_from`` is read from the archive index
            found |= Event.words_from.is_null(False) & _seek(
                Event.words_from, SHARED_KIND, word, parts
            )
        return found
    own = SearchWord.select(SearchWord.record_id.alias("id")).where(
        _word_match(SearchWord, kind, word, parts)
    )
    if model is not Event:
        return model.id.in_(own)
    # one list of IDs, not two conditions: ``id IN (...) OR words_from IN (...)`` is
    # checked row by row over the archive (PostgreSQL and MariaDB then drive from the
    # archive, not from the few matches); a list from a derived table is a semi-join
    # that every backend drives from the matches (MariaDB makes none of an ``IN`` of a
    # bare UNION), and a UNION without ALL is one PostgreSQL hashes (of two words'
    # UNION ALL lists, it scanned one again for every row of the other: a second)
    sharing, shared = Event.alias("sharing"), SearchWord.alias("shared")
    by_series = (
        sharing.select(sharing.id.alias("id"))
        .join(shared, on=(shared.record_id == sharing.words_from))
        .where(_word_match(shared, SHARED_KIND, word, parts))
    )
    matched = (own | by_series).alias("matched")
    return model.id.in_(pw.Select([matched], [matched.c.id]))


def _seek(key: pw.Field, kind: str, word: str, parts: tuple[str, ...] | None) -> pw.ColumnBase:
    """``key`` names words of ``kind`` that match, found by one seek."""
    match = _word_match(SearchWord, kind, word, parts) & (SearchWord.record_id == key)
    own = SearchWord.select(SearchWord.record_id).where(match)
    if backend_name(SearchWord._meta.database) != "sqlite":
        # PostgreSQL and MariaDB would turn the EXISTS into a join, or a table,
        # gathering every match first (PostgreSQL estimates a prefix range at a
        # row or so); both keep a subquery with an OFFSET as it stands, checked
        # row by row as the walk goes
        own = own.offset(0)
    return pw.fn.EXISTS(own)


def walks_words(matches: int, scope: int, wanted: int) -> bool:
    """Whether a page of ``wanted`` rows (offset + per page) is found sooner by walking
    the ``scope`` rows the other filters leave, in order, than by gathering the
    ``matches`` first: a walk checks about ``wanted * scope / matches`` rows."""
    return matches > 0 and wanted * scope < matches * matches


def every_word(
    model: type[PostModel], kind: str, words: list[str], user: User | None, *, walk: bool = False
) -> list[pw.ColumnBase]:
    """One condition per word: the record has a word starting with it, among the parts
    of the record ``user`` may search; ``walk`` checks each record in turn (a page of
    a common word) instead of gathering every match."""
    if model is not Event:  # only events carry passwords
        return [_has_word(model, kind, word, None, walk) for word in words]
    may_edit = editable(model, user)
    conditions: list[pw.ColumnBase] = []
    for word in words:
        if may_edit is EVERYTHING:
            conditions.append(_has_word(model, kind, word, None, walk))
            continue
        public = _has_word(model, kind, word, (TITLE, CONTENT), walk)
        if may_edit is NOTHING:
            conditions.append(public)
        else:
            protected = may_edit & _has_word(model, kind, word, (PROTECTED,), walk)
            conditions.append(public | protected)
    return conditions
