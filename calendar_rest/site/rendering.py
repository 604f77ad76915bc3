"""Templates and the page's language: Jinja2 (autoescaped) and Babel.

The templates are files of this package (``templates/``); ``site_templates_dir``
names a directory whose files replace them one by one (Jinja's ``ChoiceLoader``
looks there first). One :class:`Renderer` per app holds the environment; templates
are compiled once per process and directory.
"""

from __future__ import annotations

import datetime as dt
import functools
import typing as t
from pathlib import Path

import jinja2
from babel.dates import format_date, format_time
from markupsafe import Markup

from ..i18n.catalogs import translator

TEMPLATES_DIR = Path(__file__).resolve().parent / "templates"


@functools.lru_cache(maxsize=8)
def environment(override_dir: str | None) -> jinja2.Environment:
    """The Jinja environment of one override directory (None: the package's only)."""
    loaders: list[jinja2.BaseLoader] = [jinja2.FileSystemLoader(str(TEMPLATES_DIR))]
    if override_dir:
        loaders.insert(0, jinja2.FileSystemLoader(override_dir))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=True,
        auto_reload=False,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["markup"] = Markup  # the sanitised description and excerpt only
    return env


class Formats:
    """Dates and times in one page's language (Babel), for the templates."""

    def __init__(self, language: str) -> None:
        self.language = language

    def date(self, value: dt.date, style: str = "full") -> str:
        """``Saturday, November 28, 2026`` (``full``), ``Nov 28, 2026`` (``medium``)."""
        return format_date(value, style, locale=self.language)

    def time(self, value: dt.datetime | dt.time) -> str:
        return format_time(value, "short", locale=self.language)

    def month(self, value: dt.date) -> str:
        """``November 2026``, ``Novembre 2026``: the month heading (French month names
        are lower case in running text, capitalised here as a heading)."""
        text = format_date(value, "LLLL y", locale=self.language)
        return text[:1].upper() + text[1:]

    def weekday(self, value: dt.date, width: str = "EEEE") -> str:
        return format_date(value, width, locale=self.language)


def render(
    override_dir: str | None, name: str, language: str, context: t.Mapping[str, t.Any]
) -> bytes:
    """Template ``name`` rendered in ``language`` with ``context``, as UTF-8."""
    template = environment(override_dir).get_template(name)
    values = {"_": translator(language), "formats": Formats(language), **context}
    return template.render(values).encode("utf-8")
