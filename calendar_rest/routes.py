"""Every route of the namespace, as data: the one place to compare with TEC's ``Main.php``.

Each :class:`RouteSpec` names the resource, the route's shape, the methods the
contract promises and what its path variables mean. At start-up :func:`route_table`
reads the resource classes once and records, for every route and method, the
responder that serves it and the argument set it declared with :func:`accepts`
(Falcon's way: nothing is looked up per request). The dispatcher binds that table to
resource instances, and the namespace index and ``/doc`` describe the same table.

Responders are named ``on_<verb>[_<shape suffix>]``: ``collection`` gives
``on_get_collection``, ``item`` gives ``on_get``, ``by_slug`` ``on_get_by_slug``;
POST, PUT and PATCH on an item share ``on_post``, as TEC's ``EDITABLE`` does.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import typing as t

from marshmallow import Schema
from werkzeug.routing import BaseConverter, Map, Rule

from .i18n.messages import N_
from .media_types import CALENDAR, JSON
from .settings import NAMESPACE

READ = ("GET",)
#: the namespace of WordPress's batch route (``POST /batch/v1``)
BATCH_NAMESPACE = "batch/v1"
EDIT = ("POST", "PUT", "PATCH")
ITEM = ("GET", *EDIT, "DELETE")
SHAPE_SUFFIX = {
    "collection": "_collection",
    "item": "",
    "by_slug": "_by_slug",
    "index": "",
    "deliveries": "_deliveries",
    "ics": "_ics",
    "item_ics": "_item_ics",
    "occurrences": "_occurrences",
}
METHOD_VERB = {"GET": "get", "POST": "post", "PUT": "post", "PATCH": "post", "DELETE": "delete"}
#: a schema class, or the name of the resource class attribute holding one
ArgumentSet = type[Schema] | str
F = t.TypeVar("F", bound=t.Callable[..., t.Any])
#: Werkzeug converter → (WordPress's registered regex, JSON Schema of the value)
CONVERTERS: dict[str, tuple[str, dict[str, t.Any]]] = {
    "int": (r"\d+", {"type": "integer", "minimum": 0}),
    "slug": (r"[^/]+", {"type": "string", "pattern": "^[^/]+$"}),
    # the public pages' nested paths (``site/routes.py``; never in the index or /doc)
    "path": (r".+", {"type": "string"}),
}
VARIABLE_RE = re.compile(r"<(?:(\w+):)?(\w+)>")
#: a converter's regex when a suffix follows it in the same segment (``{id}.ics``)
SUFFIXED_PATTERNS = {"int": r"[\d]+"}


class SlugConverter(BaseConverter):
    """``{slug}``: any non-empty text without a slash (TEC's ``[^/]+``) or NUL, which
    no database can compare."""

    regex = r"[^/\x00]+"


class RouteSpec(t.NamedTuple):
    path: str
    resource: str
    shape: str
    methods: tuple[str, ...]
    #: what each path variable means (for the index and ``/doc``)
    variables: dict[str, str] = {}
    #: the path is the site's, not the namespace's (the REST index of discovery, the
    #: public pages of ``site/``): matched as written, left out of the index and /doc
    site: bool = False
    #: what the route answers in, the default first; several: ``Accept`` decides
    media_types: tuple[str, ...] = (JSON,)
    #: a site route's own namespace, listed in the site index (``batch/v1``)
    namespace: str = ""


def _post_routes(
    collection: str, id_help: str, slug_help: str, media_types: tuple[str, ...] = (JSON,)
) -> tuple[RouteSpec, ...]:
    """A post type's three routes (TEC registers the same trio for events, venues and
    organizers): the collection, the item by ID and the item by slug."""
    slug_path = f"/{collection}/by-slug/<slug:slug>"
    return (
        RouteSpec(
            f"/{collection}", collection, "collection", ("GET", "POST"), {}, False, media_types
        ),
        RouteSpec(
            f"/{collection}/<int:id>", collection, "item", ITEM, {"id": id_help}, False, media_types
        ),
        RouteSpec(slug_path, collection, "by_slug", ITEM, {"slug": slug_help}, False, media_types),
    )


def _term_routes(collection: str, id_help: str) -> tuple[RouteSpec, ...]:
    """A taxonomy's two routes (core's term controller order: GET, EDIT, DELETE)."""
    return (
        RouteSpec(f"/{collection}", collection, "collection", ("GET", "POST")),
        RouteSpec(
            f"/{collection}/<int:id>", collection, "item", ("GET", *EDIT, "DELETE"), {"id": id_help}
        ),
    )


ROUTES: tuple[RouteSpec, ...] = (
    RouteSpec("/", "site", "index", READ, site=True),
    RouteSpec("/", "root", "index", READ),
    RouteSpec("/doc", "doc", "index", READ),
    *_post_routes("events", N_("The event post ID"), N_("The event post slug"), (JSON, CALENDAR)),
    *_post_routes("venues", N_("The venue post ID"), N_("The venue post slug")),
    *_post_routes("organizers", N_("The organizer post ID"), N_("The organizer post slug")),
    *_term_routes("categories", N_("The category term ID")),
    *_term_routes("tags", N_("The tag term ID")),
    # after TEC's routes: one recurring series' occurrences (calendar.md §4.3)
    RouteSpec(
        "/events/<int:id>/occurrences",
        "events",
        "occurrences",
        READ,
        {"id": N_("The ID of the series master or of any of its occurrences")},
    ),
    # iCalendar feeds (calendar.md §1, after TEC's routes): the suffix wins over ``Accept``
    RouteSpec("/events.ics", "events", "ics", READ, media_types=(CALENDAR,)),
    RouteSpec(
        "/events/<int:id>.ics",
        "events",
        "item_ics",
        READ,
        {"id": N_("The event post ID")},
        media_types=(CALENDAR,),
    ),
    RouteSpec("/changes", "changes", "collection", READ),
    RouteSpec("/webhooks", "webhooks", "collection", ("GET", "POST")),
    RouteSpec(
        "/webhooks/<int:id>", "webhooks", "item", ITEM, {"id": N_("The webhook subscription ID")}
    ),
    RouteSpec(
        "/webhooks/<int:id>/deliveries",
        "webhooks",
        "deliveries",
        READ,
        {"id": N_("The webhook subscription ID")},
    ),
    # WordPress's batch route, at the site root in a namespace of its own (anchors.md §2)
    RouteSpec("/batch/v1", "batch", "index", ("POST",), site=True, namespace=BATCH_NAMESPACE),
)


def accepts(arguments: ArgumentSet, *, collect_errors: bool = False) -> t.Callable[[F], F]:
    """Declare the argument set a responder validates with.

    The dispatcher validates the request with it before calling the responder, and
    the namespace index and ``/doc`` describe the same declaration, so what is
    documented is what is validated. Invalid parameters are refused there, unless
    the responder ``collect_errors``: it then checks the records its valid
    parameters name and reports every failure together, as WordPress does. A string
    names a class attribute, for responders shared by sibling resources (venues and
    organizers) that differ only in their schemas.
    """

    def declare(responder: F) -> F:
        responder.arguments = arguments  # type: ignore[attr-defined]
        responder.collects_errors = collect_errors  # type: ignore[attr-defined]
        return responder

    return declare


def responder_name(method: str, shape: str) -> str:
    """``on_<verb><suffix>``: a shape the API does not name (a public page's, such as
    ``month``) is its own suffix (``on_get_month``)."""
    return f"on_{METHOD_VERB[method]}{SHAPE_SUFFIX.get(shape, '_' + shape)}"


@dataclasses.dataclass(frozen=True)
class PathVariable:
    name: str
    schema: dict[str, t.Any]
    description: str


@dataclasses.dataclass(frozen=True)
class Endpoint:
    """One responder of a route and the methods it serves (POST, PUT and PATCH share
    one on items)."""

    methods: tuple[str, ...]
    responder: str
    arguments: type[Schema] | None
    #: the responder reports invalid parameters itself, with its own checks
    collects_errors: bool = False


@dataclasses.dataclass(frozen=True)
class Route:
    spec: RouteSpec
    variables: tuple[PathVariable, ...]
    endpoints: tuple[Endpoint, ...]

    @property
    def key(self) -> str:
        """The route's endpoint name in the Werkzeug map: ``events.item``."""
        return f"{self.spec.resource}.{self.spec.shape}"

    @property
    def methods(self) -> tuple[str, ...]:
        return tuple(method for endpoint in self.endpoints for method in endpoint.methods)

    def endpoint(self, method: str) -> Endpoint | None:
        return next((e for e in self.endpoints if method in e.methods), None)

    @property
    def relative_path(self) -> str:
        """The path below the namespace root: ``""`` for the root itself."""
        return "" if self.spec.path == "/" else self.spec.path

    @property
    def rule(self) -> str:
        """The path the Werkzeug map matches."""
        return self.spec.path if self.spec.site else f"/{NAMESPACE}{self.relative_path}"

    @property
    def wordpress_pattern(self) -> str:
        """The route as WordPress registers it: ``/events/(?P<id>\\d+)``.

        A variable with a suffix in its path segment is written in WordPress core's
        ``[\\d]+`` form: node-wpapi files a route under its segment's group pattern,
        and ``{id}.ics`` sharing ``\\d+`` with ``{id}`` would give the item route the
        feed's methods (GET only) in its route tree.
        """
        path = self.relative_path
        parts, end = [], 0
        for match in VARIABLE_RE.finditer(path):
            parts.append(path[end : match.start()])
            pattern = CONVERTERS[match[1]][0]
            if match.end() < len(path) and path[match.end()] != "/":
                pattern = SUFFIXED_PATTERNS.get(match[1], pattern)
            parts.append(f"(?P<{match[2]}>{pattern})")
            end = match.end()
        parts.append(path[end:])
        return "".join(parts)

    @property
    def openapi_path(self) -> str:
        """The route as an OpenAPI path template: ``/events/{id}``."""
        return VARIABLE_RE.sub(lambda match: "{" + match[2] + "}", self.spec.path)


def namespace_routes(routes: t.Iterable[Route]) -> tuple[Route, ...]:
    """The routes of the namespace (what its index and ``/doc`` describe)."""
    return tuple(route for route in routes if not route.spec.site)


def route_table(
    resource_classes: t.Mapping[str, type], specs: tuple[RouteSpec, ...] = ROUTES
) -> tuple[Route, ...]:
    """Every route of ``specs`` (the API's ``ROUTES`` unless given, e.g. followed by
    the public pages') with the responders its resource class defines, in order; a
    method without a responder is not served.

    :raises LookupError: a route names a resource without a class.
    """
    missing = sorted({spec.resource for spec in specs} - set(resource_classes))
    if missing:
        raise LookupError(f"routes name resources without a class: {missing}")
    routes = []
    for spec in specs:
        endpoints = _endpoints(spec, resource_classes[spec.resource])
        if endpoints:
            routes.append(Route(spec, _variables(spec), endpoints))
    return tuple(routes)


def _variables(spec: RouteSpec) -> tuple[PathVariable, ...]:
    return tuple(
        PathVariable(name, CONVERTERS[converter][1], spec.variables[name])
        for converter, name in VARIABLE_RE.findall(spec.path)
    )


def _endpoints(spec: RouteSpec, resource_class: type) -> tuple[Endpoint, ...]:
    """One endpoint per responder, methods grouped in the route table's order."""
    grouped: dict[str, list[str]] = {}
    for method in spec.methods:
        name = responder_name(method, spec.shape)
        if getattr(resource_class, name, None) is not None:
            grouped.setdefault(name, []).append(method)
    return tuple(
        Endpoint(
            tuple(methods),
            name,
            _declared(resource_class, name),
            getattr(getattr(resource_class, name), "collects_errors", False),
        )
        for name, methods in grouped.items()
    )


def _declared(resource_class: type, responder: str) -> type[Schema] | None:
    arguments = getattr(getattr(resource_class, responder), "arguments", None)
    if isinstance(arguments, str):
        arguments = getattr(resource_class, arguments)
    return t.cast("type[Schema] | None", arguments)


def build_url_map(routes: t.Iterable[Route]) -> Map:
    """The Werkzeug map of the namespace, matched on paths alone (the dispatcher picks
    the method's endpoint); trailing slashes are stripped before matching
    (WordPress ignores them), so no rule ever redirects.

    One map per set of rules in a process: compiling it takes about 15 ms, and every
    app built in one process (an embedder's sites, a test suite) has the same rules.
    A map only matches once compiled; each app binds it to an adapter of its own."""
    return _url_map(tuple((route.rule, route.key) for route in routes))


@functools.cache
def _url_map(rules: tuple[tuple[str, str], ...]) -> Map:
    return Map(
        [Rule(rule, endpoint=key) for rule, key in rules],
        converters={"slug": SlugConverter},
        strict_slashes=False,
        merge_slashes=False,
        redirect_defaults=False,
    )
