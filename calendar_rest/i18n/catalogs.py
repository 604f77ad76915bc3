"""Message catalogs: every human-readable text the service emits, in each language.

Texts are written in English in the code and marked with ``N_``; the gettext catalogs
in ``locale/<language>/LC_MESSAGES/calendar_rest.po`` translate them. The ``.po`` files
are read directly with Babel (no compiled ``.mo`` files to keep in sync). DEVELOPERS.md
shows the Babel commands that extract new texts and update the catalogs;
``tests/test_i18n.py`` fails when a text lacks a French translation.
"""

from __future__ import annotations

import functools
import os
import typing as t
from pathlib import Path

from babel.messages.pofile import read_po

from ..settings import DEFAULT_LANGUAGE, LANGUAGES

DOMAIN = "calendar_rest"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

Translate = t.Callable[[str], str]


def catalog_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.lru_cache(maxsize=len(LANGUAGES))
def _translations(language: str) -> dict[str, str]:
    """``{English text: translation}`` of one catalog; fuzzy and empty entries are left
    out, so their English text is used."""
    path = catalog_path(language)
    if not path.is_file():
        return {}
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=language, domain=DOMAIN)
    return {
        str(message.id): str(message.string)
        for message in catalog
        if message.id and message.string and not message.fuzzy
    }


def translator(language: str) -> Translate:
    """The gettext function of ``language``; unknown texts come back unchanged."""
    if language not in LANGUAGES or language == DEFAULT_LANGUAGE and not _translations(language):
        return _unchanged
    table = _translations(language)
    return lambda text: table.get(text, text)


def _unchanged(text: str) -> str:
    return text


def environment_language(environ: t.Mapping[str, str] | None = None) -> str:
    """The operator's language, read from the environment (default ``os.environ``) the
    way gettext reads it.

    The first of ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set and
    non-empty holds a colon-separated list of locales (``fr_FR.UTF-8``, ``de:fr``); the
    first one whose two first letters name an available language wins, so ``de:fr``
    means French. ``C`` and ``POSIX`` (``C.UTF-8`` too) end the list with English, and
    so does a list with no available language.
    """
    env = os.environ if environ is None else environ
    value = next(
        (env[name] for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG") if env.get(name)),
        "",
    )
    for locale in value.split(":"):
        if locale.split(".")[0] in ("C", "POSIX"):
            break
        language = locale[:2].lower()
        if language in LANGUAGES:
            return language
    return DEFAULT_LANGUAGE
