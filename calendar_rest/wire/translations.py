"""The two additive multilingual keys every representation ends with.

``language`` is the record's own language; ``translations`` is its WPML translation
group as ``{language: id}``, the record itself included, ordered by language code.
They come after every TEC key, so clients reading TEC's keys in order see no change.
Groups are loaded for a whole page at once (``queries.translations``), never per record.
"""

from __future__ import annotations

import dataclasses
import typing as t

import peewee as pw

#: a record's group, keyed by its model and ID
GroupKey = tuple[type[pw.Model], int]


@dataclasses.dataclass
class Translations:
    """The translation groups of the records of one response."""

    groups: dict[GroupKey, dict[str, int]] = dataclasses.field(default_factory=dict)

    def of(self, record: t.Any) -> dict[str, int]:
        """``{language: id}`` of the record's group; a record whose group was not
        loaded (only possible if it was written after the load) stands alone."""
        found = self.groups.get((type(record), record.id))
        return found if found is not None else {record.language: record.id}


def add_language(data: dict[str, t.Any], record: t.Any, translations: Translations) -> None:
    """Append ``language`` and ``translations`` to a representation, in place."""
    data["language"] = record.language
    data["translations"] = translations.of(record)
