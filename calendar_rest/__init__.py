"""calendar_rest: a calendar-events REST service speaking TEC's REST v1 wire format.

The package root stays import-light on purpose: ``calendar_rest.schemas`` must be
usable as a validation library without pulling in Werkzeug, Peewee or waitress, so
``create_app`` and ``create_schema`` are resolved lazily on first access.
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
