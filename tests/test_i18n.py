"""The message catalogs: every text the code marks is translated into French.

Texts are extracted from the sources with Babel, as ``pybabel extract`` does (see
DEVELOPERS.md), so a new message without a French translation fails here, and so does
a translation whose placeholders differ from its English text.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.pofile import read_po

import calendar_rest
from calendar_rest.i18n.catalogs import catalog_path, translator
from calendar_rest.i18n.messages import MESSAGES
from calendar_rest.schemas.messages import PARAM_MESSAGES

PACKAGE_DIR = Path(calendar_rest.__file__).resolve().parent
PLACEHOLDER = re.compile(r"%(?:\(\w+\))?[sd]")


def marked_texts() -> set[str]:
    """Every text marked with ``N_`` (or another gettext keyword) in the package."""
    return {
        message if isinstance(message, str) else message[0]
        for _, _, message, _, _ in extract_from_dir(
            str(PACKAGE_DIR), method_map=[("**.py", "python")], keywords=DEFAULT_KEYWORDS
        )
    }


def test_the_sources_mark_the_error_and_validation_messages() -> None:
    texts = marked_texts()
    assert set(MESSAGES.values()) <= texts
    assert set(PARAM_MESSAGES.values()) <= texts
    assert len(texts) > 250  # descriptions of parameters and fields too


def test_every_marked_text_has_a_french_translation() -> None:
    with catalog_path("fr").open("rb") as handle:
        catalog = read_po(handle, locale="fr")
    translated = {
        message.id: message.string
        for message in catalog
        if message.id and message.string and not message.fuzzy
    }
    missing = sorted(marked_texts() - set(translated))
    assert not missing, f"{len(missing)} texts lack French (run pybabel, see DEVELOPERS.md)"


def test_french_keeps_every_placeholder() -> None:
    with catalog_path("fr").open("rb") as handle:
        catalog = read_po(handle, locale="fr")
    problems = [(message.id, errors) for message, errors in catalog.check()]
    assert not problems
    for message in catalog:
        if message.id and message.string:
            assert sorted(PLACEHOLDER.findall(str(message.string))) == sorted(
                PLACEHOLDER.findall(str(message.id))
            ), message.id


def test_the_english_catalog_covers_the_same_texts() -> None:
    """English is the source language: its catalog lists the texts, untranslated."""
    with catalog_path("en").open("rb") as handle:
        catalog = read_po(handle, locale="en")
    assert marked_texts() <= {message.id for message in catalog if message.id}


@pytest.mark.parametrize("text", sorted(MESSAGES.values())[:5])
def test_the_translator_serves_french_and_leaves_english_alone(text: str) -> None:
    assert translator("fr")(text) != text
    assert translator("en")(text) == text
    assert translator("de")(text) == text
    assert translator("fr")("a text nobody marked") == "a text nobody marked"
