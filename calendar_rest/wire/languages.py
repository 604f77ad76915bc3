"""The two additive multilingual keys every representation ends with.

``language`` is the record's own language; ``translations`` is its WPML translation
group as ``{language: id}``, the record itself included, ordered by language code.
They come after every TEC key, so clients reading TEC's keys in order see no change.
Groups are loaded for a whole page at once (``queries/lookups/translations.py``), never per record.
"""

from __future__ import annotations

import typing as t

from ..queries.loaded import Translations


def add_language(data: dict[str, t.Any], record: t.Any, translations: Translations) -> None:
    """Append ``language`` and ``translations`` to a representation, in place."""
    data["language"] = record.language
    data["translations"] = translations.of(record)
