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

from ..caching.memo import Memo
from ..i18n.catalogs import translator
from .structured import json_ld_script

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
    env.globals["json_ld"] = json_ld_script  # an event's JSON-LD ``<script>``
    return env


@functools.lru_cache(maxsize=16384)
def _date(value: dt.date, pattern: str, language: str) -> str:
    """Babel's date format, kept: the same days recur on page after page, and Babel
    takes some 30 µs a call."""
    return str(format_date(value, pattern, locale=language))


@functools.lru_cache(maxsize=4096)
def _time(value: dt.time, language: str) -> str:
    return str(format_time(value, "short", locale=language))


class Formats:
    """Dates and times in one page's language (Babel), for the templates."""

    def __init__(self, language: str) -> None:
        self.language = language

    def date(self, value: dt.date, style: str = "full") -> str:
        """``Saturday, November 28, 2026`` (``full``), ``Nov 28, 2026`` (``medium``)."""
        return _date(value, style, self.language)

    def time(self, value: dt.datetime | dt.time) -> str:
        return _time(value.time() if isinstance(value, dt.datetime) else value, self.language)

    def month(self, value: dt.date) -> str:
        """``November 2026``, ``Novembre 2026``: the month heading (French month names
        are lower case in running text, capitalised here as a heading)."""
        text = _date(value, "LLLL y", self.language)
        return text[:1].upper() + text[1:]

    def weekday(self, value: dt.date, width: str = "EEEE") -> str:
        return _date(value, width, self.language)


#: listed events rendered by ``event_macros.html``, kept under the identity of the
#: API's representation they show (``wire.events`` keeps one object per unchanged
#: event, so an edit makes a new one) and how they are shown
ARTICLES: Memo[tuple[t.Hashable, ...], tuple[object, Markup]] = Memo(4096)


class Articles:
    """``article(card)`` for the templates: an event as every list shows it, rendered
    once per content, language and site (the rest of a page is cheap to render)."""

    def __init__(
        self, env: jinja2.Environment, override_dir: str | None, values: dict[str, t.Any]
    ) -> None:
        self.env = env
        self.values = values
        self.where = (override_dir, values["formats"].language, values.get("links"))
        self.module: t.Any = None

    def __call__(self, card: t.Any, heading: str = "h3") -> Markup:
        data = card.data
        key = (id(data), heading, *self.where)
        kept = ARTICLES.get(key, lambda: (data, self.render(card, heading)))
        if kept[0] is data:  # never another object that came to have its address
            return kept[1]
        return self.render(card, heading)

    def render(self, card: t.Any, heading: str) -> Markup:
        if self.module is None:
            template = self.env.get_template("event_macros.html")
            self.module = template.make_module(self.values)
        return Markup(self.module.event_article(card, heading))


def render(
    override_dir: str | None, name: str, language: str, context: t.Mapping[str, t.Any]
) -> bytes:
    """Template ``name`` rendered in ``language`` with ``context``, as UTF-8."""
    env = environment(override_dir)
    values = {"_": translator(language), "formats": Formats(language), **context}
    values["article"] = Articles(env, override_dir, values)
    return env.get_template(name).render(values).encode("utf-8")
