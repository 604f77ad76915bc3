"""Word search that every backend serves from a B-tree index.

Each searchable record stores the distinct folded words of its text in
``SearchWord(kind, word, record_id)``. A query word matches a record when it is a
prefix of one of its words (``jazz`` finds "Jazz" and "jazzy"), written as the range
``word >= 'jazz' AND word < 'jb'`` so no function or leading wildcard defeats the
index; every query word must match (any order), as TEC's search requires.
"""

from __future__ import annotations

import re
import typing as t

from .text import fold, strip_tags

WORD_RE = re.compile(r"[a-z0-9]+")
MAX_WORD = 40
MAX_QUERY_WORDS = 8


def record_words(*texts: str) -> set[str]:
    """The distinct searchable words of some (HTML) texts."""
    words: set[str] = set()
    for text in texts:
        if text:
            words.update(word[:MAX_WORD] for word in WORD_RE.findall(fold(strip_tags(text))))
    return words


def query_words(search: str) -> list[str]:
    """The words of a search string, deduplicated, longest first (most selective)."""
    words = {word[:MAX_WORD] for word in WORD_RE.findall(fold(search))}
    return sorted(words, key=lambda word: (-len(word), word))[:MAX_QUERY_WORDS]


ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"  # sorts the same in every collation


def prefix_range(word: str) -> tuple[str, str | None]:
    """The half-open range ``[word, upper)`` of words starting with ``word``.

    ``upper`` is the next string in the alphabet's order ("jazz" → "jb"), built from
    letters and digits only so ASCII and Unicode collations agree; None when no upper
    bound exists ("zzz").
    """
    stem = word
    while stem:
        position = ALPHABET.index(stem[-1])
        if position + 1 < len(ALPHABET):
            return word, stem[:-1] + ALPHABET[position + 1]
        stem = stem[:-1]
    return word, None


def replace_words(model: t.Any, kind: str, record_id: int, words: set[str]) -> None:
    """Store the words of one record, replacing what it had."""
    model.delete().where((model.kind == kind) & (model.record_id == record_id)).execute()
    if words:
        model.insert_many(
            [{"kind": kind, "word": word, "record_id": record_id} for word in sorted(words)]
        ).execute()
