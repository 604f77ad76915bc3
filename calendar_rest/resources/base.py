"""The resource base: responder lookup and the WordPress request pipeline helpers.

A route's shape picks the responder suffix (``collection`` → ``on_get_collection``,
``item`` → ``on_get``, ``by_slug`` → ``on_get_by_slug``); POST, PUT and PATCH on an
item share ``on_post`` as TEC's EDITABLE does. A resource that lacks a responder
simply has no such route: the dispatcher answers ``rest_no_route``.
"""

from __future__ import annotations

import dataclasses
import typing as t

from marshmallow import EXCLUDE, Schema, ValidationError, missing
from werkzeug.wrappers import Response

from ..errors import InvalidParams, forbidden, missing_params
from ..http import Request, json_response
from ..i18n import Translate, translator
from ..models import User
from ..permissions import Owned, has_cap
from ..schemas import MissingParams, validate
from ..schemas.messages import ParamMessage
from ..settings import Settings
from ..wire.urls import Urls

Responder = t.Callable[..., Response]
R = t.TypeVar("R")
F = t.TypeVar("F", bound=t.Callable[..., Response])
#: a schema class, or the name of the resource attribute holding one
ArgumentSet = type[Schema] | str
SHAPE_SUFFIX = {"collection": "_collection", "item": "", "by_slug": "_by_slug", "index": ""}
METHOD_VERB = {"GET": "get", "POST": "post", "PUT": "post", "PATCH": "post", "DELETE": "delete"}


@dataclasses.dataclass
class Call:
    """One request as a responder sees it."""

    request: Request
    user: User | None
    params: dict[str, t.Any]
    urls: Urls
    language: str
    #: the argument set the responder declared with :func:`accepts`
    schema: Schema

    @property
    def translate(self) -> Translate:
        """gettext in the request's language, for texts the wire shows to people."""
        return translator(self.language)


def accepts(arguments: ArgumentSet) -> t.Callable[[F], F]:
    """Declare the argument set a responder validates with.

    The dispatcher hands it to the responder as ``call.schema`` and the namespace index
    and ``/doc`` describe the same declaration, so what is documented is what is
    validated. A string names a class attribute, for responders shared by sibling
    resources (venues and organizers) that differ only in their schemas.
    """

    def declare(responder: F) -> F:
        responder.arguments = arguments  # type: ignore[attr-defined]
        return responder

    return declare


def responder_name(method: str, shape: str) -> str:
    return f"on_{METHOD_VERB[method]}{SHAPE_SUFFIX[shape]}"


_schemas: dict[type[Schema], Schema] = {}


def shared_schema(schema_class: type[Schema]) -> Schema:
    """One shared instance per argument set: building a marshmallow schema deep-copies
    its fields, which costs more than loading a request with it (loads are stateless)."""
    instance = _schemas.get(schema_class)
    if instance is None:
        instance = _schemas[schema_class] = schema_class()
    return instance


class NoArgs(Schema):
    """The argument set of a responder that declares none: every parameter is ignored."""

    class Meta:
        unknown = EXCLUDE


class Resource:
    """Base class; subclasses define responders and receive settings explicitly."""

    #: descriptions of the path variables (``id``, ``slug``) of this resource's routes
    path_descriptions: t.ClassVar[dict[str, str]] = {}

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def responder(self, method: str, shape: str) -> Responder | None:
        if shape == "collection" and method in ("PUT", "PATCH"):
            return None  # only POST creates
        return getattr(self, responder_name(method, shape), None)

    @classmethod
    def declared_arguments(cls, method: str, shape: str) -> type[Schema] | None:
        """The argument set the responder for ``method`` on ``shape`` declared, if any."""
        responder = getattr(cls, responder_name(method, shape), None)
        arguments = getattr(responder, "arguments", None)
        if isinstance(arguments, str):
            arguments = getattr(cls, arguments)
        return t.cast("type[Schema] | None", arguments)

    def schema_for(self, method: str, shape: str) -> Schema:
        """The shared instance of the declared argument set (an empty one if none)."""
        return shared_schema(self.declared_arguments(method, shape) or NoArgs)

    @staticmethod
    def load(schema: Schema, params: dict[str, t.Any]) -> dict[str, t.Any]:
        """Validate like WordPress: 400 for missing, then 400 for invalid parameters."""
        try:
            return validate(schema, params)
        except MissingParams as exc:
            raise missing_params(exc.names) from None
        except ValidationError as exc:
            valid = exc.valid_data if isinstance(exc.valid_data, dict) else {}
            raise InvalidParams(_param_messages(exc.messages), valid) from None

    def archive_response(
        self,
        key: str,
        items: list[dict[str, t.Any]],
        query_args: dict[str, str],
        page: int,
        total: int,
        total_pages: int,
        call: Call,
        *,
        terms_order: bool = False,
    ) -> Response:
        """TEC's list wrapper, its total headers, WordPress's, and a ``Link`` header.

        Post lists read ``{key, rest_url, next, previous, total, total_pages}``; TEC's
        term lists (``terms_order``) read ``{rest_url, total, total_pages, key, next,
        previous}``.
        """
        rest_url = call.urls.rest(f"{key}/", query_args)
        pages = page_links(key, query_args, page, total_pages, call)
        if terms_order:
            body = {"rest_url": rest_url, "total": total, "total_pages": total_pages,
                    key: items, **pages}
        else:
            body = {key: items, "rest_url": rest_url, **pages, "total": total,
                    "total_pages": total_pages}
        headers = [
            ("X-TEC-Total", str(total)),
            ("X-TEC-TotalPages", str(total_pages)),
            ("X-WP-Total", str(total)),
            ("X-WP-TotalPages", str(total_pages)),
        ]
        relations = {"next_rest_url": "next", "previous_rest_url": "prev"}
        if pages:
            headers.append(
                ("Link", ", ".join(f'<{url}>; rel="{relations[name]}"'
                                   for name, url in pages.items()))
            )
        return json_response(body, headers=headers)

    @staticmethod
    def check_author_change(
        user: User | None, author: User | None, record: Owned | None = None
    ) -> None:
        """Writing in someone else's name needs ``edit_others_posts`` (WordPress core)."""
        if author is None or user is None:
            return
        current = record.author_id if record is not None else user.id
        if author.id != current and not has_cap(user, "edit_others_posts"):
            raise forbidden(True)

    def may_call(self, method: str, user: User | None) -> bool:
        """Whether ``user`` holds the generic capability for ``method`` (the ``Allow``
        header); per-record checks still apply when the request runs."""
        if method == "GET":
            return True
        return has_cap(user, "delete_posts" if method == "DELETE" else "edit_posts")

    def load_checked(
        self,
        schema: Schema,
        params: dict[str, t.Any],
        check: t.Callable[[dict[str, t.Any]], R],
    ) -> tuple[dict[str, t.Any], R]:
        """Validate every parameter, then ``check`` the references of the valid ones
        (which needs the database), and report every failure together, in declaration
        order, as WordPress does."""
        try:
            args = self.load(schema, params)
        except InvalidParams as exc:
            errors = dict(exc.errors)
            defaults = {name: f.load_default for name, f in schema.fields.items()
                        if f.load_default is not missing}
            try:
                check({**defaults, **exc.valid})
            except InvalidParams as more:
                errors.update(more.errors)
            order = list(schema.fields)
            ranked = sorted(errors, key=lambda name: order.index(name) if name in order else 99)
            raise InvalidParams({name: errors[name] for name in ranked}) from None
        return args, check(args)

    @staticmethod
    def require(allowed: bool, user: User | None) -> None:
        """The permission step: 401 for anonymous callers, 403 for logged-in ones."""
        if not allowed:
            raise forbidden(user is not None)


def _param_messages(messages: t.Any) -> dict[str, ParamMessage]:
    result: dict[str, ParamMessage] = {}
    for name, value in dict(messages).items():
        first = value[0] if isinstance(value, list) and value else value
        result[name] = first if isinstance(first, ParamMessage) else ParamMessage("invalid")
    return result


def page_links(
    key: str, query_args: dict[str, str], page: int, total_pages: int, call: Call
) -> dict[str, str]:
    """``next_rest_url``/``previous_rest_url`` where they apply, keeping every filter."""
    rest_args = {name: value for name, value in query_args.items() if name != "page"}
    links = {}
    if page < total_pages:
        links["next_rest_url"] = call.urls.rest(f"{key}/", {**rest_args, "page": str(page + 1)})
    if page > 1:
        previous = rest_args if page == 2 else {**rest_args, "page": str(page - 1)}
        links["previous_rest_url"] = call.urls.rest(f"{key}/", previous)
    return links
