"""calendar_rest: a calendar-events REST service speaking TEC's REST v1 wire format.

The package root stays import-light on purpose: ``calendar_rest.schemas`` must be
usable as a validation library without pulling in Werkzeug, Peewee or waitress, so
``create_app`` and ``create_schema`` are resolved lazily on first access.

The map, from the entry down (ARCHITECTURE.md draws the layers; each package's own
docstring is its guide). Packages:

- ``cli/`` — the ``calendar-rest`` command, one module per command group.
- ``serving/`` — waitress, and gunicorn's pre-fork arbiter above it.
- ``importing/`` — importers: an ``.ics`` file, a TEC site.
- ``delivery/`` — the webhook worker: claim, sign, send, record.
- ``edge/`` — the HTTP edge: the request pipeline, authentication, the response
  cache, conditional requests, CORS.
- ``resources/`` — one class per collection; responders orchestrate.
- ``site/`` — the public pages (``site.md``): the views people look at, beside
  ``resources/`` on the same queries and wire, served by the same pipeline.
- ``wire/`` — loaded records turned into TEC's JSON (and iCalendar).
- ``describe/`` — the namespace index and the OpenAPI document.
- ``repository/`` — every write.
- ``queries/`` — every read.
- ``rules/`` — permissions, markup, search, coordinates, webhook addresses.
- ``schemas/`` — the argument sets and documented representations (a library).
- ``wordpress/`` — WordPress's conventions: PHP parameters, text, URLs, costs.
- ``i18n/`` — error messages and the gettext catalogs.
- ``dates/`` — dates, time zones and recurrence as TEC, PHP and RFC 5545 have them.
- ``caching/`` — in-process caches and the write-generation watch.
- ``telemetry/`` — request IDs, Prometheus metrics, JSON and text log lines.

Modules every layer shares:

- ``__main__`` — ``python -m calendar_rest`` runs the CLI.
- ``app`` — the WSGI ``Application`` and ``create_app``.
- ``routes`` — every route of the namespace, as data.
- ``responders`` — the resource base and the ``Call`` a responder receives (API and
  pages alike).
- ``errors`` — the one error type and the one collector of bad parameters.
- ``settings`` — the run-time settings of one application.
- ``models`` — the Peewee models of every stored record.
- ``db`` — connections from a URL, and the one-transaction-per-request rule.
- ``clock`` — the one source of "now".
- ``media_types`` — JSON or iCalendar, chosen from ``Accept`` (and HTML at ``/``).
"""

from __future__ import annotations

import typing as t

__version__ = "0.1.0"
__all__ = ["create_app", "create_schema", "__version__"]

if t.TYPE_CHECKING:  # pragma: no cover
    from .app import create_app as create_app
    from .repository.schema import create_schema as create_schema


def __getattr__(name: str) -> t.Any:
    if name == "create_app":
        from .app import create_app

        return create_app
    if name == "create_schema":
        from .repository.schema import create_schema

        return create_schema
    raise AttributeError(f"module 'calendar_rest' has no attribute {name!r}")
