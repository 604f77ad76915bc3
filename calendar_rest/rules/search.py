"""Word search that every backend serves from a B-tree index.

Each searchable record stores the distinct folded words of its text in
``SearchWord(kind, word, record_id, part)``. Words are the runs of letters and digits
of any script, folded (accents removed, case folded), so ``ξυλόφωνο`` and
``ΞΥΛΟΦΩΝΟ`` are one word; scripts written without spaces make one word of a run (no
segmentation). A query word matches a record when it is a prefix of one of its words
(``jazz`` finds "Jazz" and "jazzy"), written as the range ``word >= 'jazz' AND word <
'jazy'`` so no function or leading wildcard defeats the index: ranges compare code
points on every backend (the column is ``COLLATE "C"`` on PostgreSQL and
``utf8mb4_bin`` on MariaDB). Every query word must match (any order), however many.

``part`` says where a word comes from: the title (``t``), the content (``c``), or the
content of a password-protected record (``p``), which only callers who may read that
content search (``security.md`` A1); a word in both title and content is a title word.
"""

from __future__ import annotations

import re
import typing as t
import unicodedata

from ..db import among, insert_rows
from ..wordpress.text import strip_tags, transliterate

WORD_RE = re.compile(r"[^\W_]+")
#: the longest word stored or searched (longer ones are cut), in characters
MAX_WORD = 40
#: words deleted per statement (well under every backend's limit of bound parameters)
WORD_BATCH = 500
TITLE, CONTENT, PROTECTED = "t", "c", "p"
#: the highest code point, and the surrogates, which no text column stores
MAX_CODE_POINT = 0x10FFFF
SURROGATES = range(0xD800, 0xE000)


def fold(text: str) -> str:
    """Case-folded, accents removed (NFKD, combining marks dropped), Latin ligatures and
    special letters spelled out ("Ærø" → "aero"); letters of every script kept."""
    if text.isascii():  # nothing to decompose, spell out or drop: 20 times faster
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", transliterate(text))
    kept = "".join(char for char in decomposed if not unicodedata.combining(char))
    return unicodedata.normalize("NFC", kept.casefold())


def words_of(text: str) -> list[str]:
    """The folded words of a plain text, in order (repeats kept)."""
    return [word[:MAX_WORD] for word in WORD_RE.findall(fold(text))]


def indexed_words(title: str, *content: str, protected: bool = False) -> dict[str, str]:
    """``{word: part}`` of a record: its title's words, then the words of its (HTML)
    content, marked protected when the record has a password."""
    part = PROTECTED if protected else CONTENT
    words = {word: part for text in content if text for word in words_of(strip_tags(text))}
    words.update((word, TITLE) for word in words_of(strip_tags(title)))
    return words


def query_words(search: str) -> list[str]:
    """The distinct words of a search string, longest first (most selective); all of
    them must match."""
    words = set(words_of(search))
    return sorted(words, key=lambda word: (-len(word), word))


def prefix_range(word: str) -> tuple[str, str | None]:
    """The half-open range ``[word, upper)`` of the words that start with ``word``.

    ``upper`` is ``word`` with its last code point incremented (code points that no
    column can store skipped); None when every code point is the highest one.
    """
    stem = word
    while stem:
        following = ord(stem[-1]) + 1
        if following in SURROGATES:
            following = SURROGATES.stop
        if following <= MAX_CODE_POINT:
            return word, stem[:-1] + chr(following)
        stem = stem[:-1]
    return word, None


def replace_words(model: t.Any, kind: str, record_id: int, words: dict[str, str]) -> None:
    """Store the words of one record, replacing what it had.

    Only the rows that differ are deleted and inserted, each by its primary key: a
    delete by record alone may be planned as a scan of the primary key, which on
    MariaDB waits for the row locks of other records' words (concurrent writes).
    """
    of_record = (model.kind == kind) & (model.record_id == record_id)
    stored = dict(model.select(model.word, model.part).where(of_record).tuples())
    gone = sorted(word for word, part in stored.items() if words.get(word) != part)
    for start in range(0, len(gone), WORD_BATCH):
        model.delete().where(
            of_record & among(model.word, gone[start : start + WORD_BATCH])
        ).execute()
    added = [
        (kind, word, record_id, part)
        for word, part in sorted(words.items())
        if stored.get(word) != part
    ]
    insert_rows(model, ("kind", "word", "record_id", "part"), added)
