"""The pages' texts in the catalogs (site.md §4): every text of a template (Jinja2's
Babel extractor, as ``pybabel extract -F pyproject.toml`` reads them) has its French,
keeps its placeholders, and the English catalog lists it (the Python texts of
``site/`` are checked with every other marked text by ``test_i18n.py``)."""

from __future__ import annotations

from pathlib import Path

from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.pofile import read_po
from test_i18n import PLACEHOLDER

from calendar_rest.i18n.catalogs import catalog_path
from calendar_rest.site.rendering import TEMPLATES_DIR


def template_texts() -> set[str]:
    found = extract_from_dir(
        str(TEMPLATES_DIR), method_map=[("**.html", "jinja2")], keywords=DEFAULT_KEYWORDS
    )
    return {message if isinstance(message, str) else message[0] for *_, message, _, _ in found}


def catalog(language: str) -> dict[str, str]:
    with Path(catalog_path(language)).open("rb") as handle:
        read = read_po(handle, locale=language)
    return {str(m.id): str(m.string) for m in read if m.id and not m.fuzzy}


def test_the_templates_have_texts_to_translate() -> None:
    assert {"Skip to content", "Subscribe", "There are no upcoming events."} <= template_texts()


def test_every_template_text_has_its_french_with_its_placeholders() -> None:
    french = catalog("fr")
    missing = sorted(text for text in template_texts() if not french.get(text))
    assert not missing
    for text in template_texts():
        assert sorted(PLACEHOLDER.findall(french[text])) == sorted(PLACEHOLDER.findall(text))


def test_the_english_catalog_lists_every_template_text() -> None:
    assert template_texts() <= set(catalog("en"))
