"""Every route of the namespace, as data: the one place to compare with TEC's ``Main.php``.

Each entry names the resource, the route's shape and the methods the contract
promises. The Werkzeug ``Map`` is built from this table; the namespace root and
``/doc`` describe the same table.
"""

from __future__ import annotations

import typing as t

from werkzeug.routing import BaseConverter, Map, Rule

from .settings import NAMESPACE

READ = ("GET",)
EDIT = ("POST", "PUT", "PATCH")


class SlugConverter(BaseConverter):
    """``{slug}``: any non-empty text without a slash (TEC's ``[^/]+``) or NUL, which
    no database can compare."""

    regex = r"[^/\x00]+"


class RouteSpec(t.NamedTuple):
    path: str
    resource: str
    shape: str
    methods: tuple[str, ...]


ROUTES: tuple[RouteSpec, ...] = (
    RouteSpec("/", "root", "index", READ),
    RouteSpec("/doc", "doc", "index", READ),
    RouteSpec("/events", "events", "collection", ("GET", "POST")),
    RouteSpec("/events/<int:id>", "events", "item", ("GET", "DELETE", *EDIT)),
    RouteSpec("/events/by-slug/<slug:slug>", "events", "by_slug", ("GET", "DELETE", *EDIT)),
    RouteSpec("/venues", "venues", "collection", ("GET", "POST")),
    RouteSpec("/venues/<int:id>", "venues", "item", ("GET", "DELETE", *EDIT)),
    RouteSpec("/venues/by-slug/<slug:slug>", "venues", "by_slug", ("GET", "DELETE", *EDIT)),
    RouteSpec("/organizers", "organizers", "collection", ("GET", "POST")),
    RouteSpec("/organizers/<int:id>", "organizers", "item", ("GET", "DELETE", *EDIT)),
    RouteSpec("/organizers/by-slug/<slug:slug>", "organizers", "by_slug", ("GET", "DELETE", *EDIT)),
    RouteSpec("/categories", "categories", "collection", ("GET", "POST")),
    RouteSpec("/categories/<int:id>", "categories", "item", ("GET", *EDIT, "DELETE")),
    RouteSpec("/tags", "tags", "collection", ("GET", "POST")),
    RouteSpec("/tags/<int:id>", "tags", "item", ("GET", *EDIT, "DELETE")),
)


def endpoint_name(spec: RouteSpec) -> str:
    return f"{spec.resource}.{spec.shape}"


def build_url_map() -> Map:
    """The Werkzeug map of the namespace; trailing slashes are stripped before matching
    (WordPress ignores them), so no rule ever redirects."""
    rules = [
        Rule(
            f"/{NAMESPACE}" + ("" if spec.path == "/" else spec.path),
            endpoint=endpoint_name(spec),
            methods=list(spec.methods),
        )
        for spec in ROUTES
    ]
    return Map(
        rules,
        converters={"slug": SlugConverter},
        strict_slashes=False,
        merge_slashes=False,
        redirect_defaults=False,
    )
