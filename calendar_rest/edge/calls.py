"""From a matched request to its responder's answer: the steps reads and writes share.

Steps 4 to 6 of ``dispatch``: the route-level permission around the parameters,
merged and validated once into the :class:`Call` the responder receives, and the
responder's reply reduced to the ``_fields`` asked for and serialised once. The
``Allow`` header and the discovery link every answer carries are built here too.
"""

from __future__ import annotations

import typing as t

from ..caching.memo import Memo
from ..clock import Clock
from ..errors import ParamErrors, forbidden
from ..models import User
from ..queries.lists.counts import CountCache
from ..responders import Arguments, Call, Resource, copied
from ..routes import Route
from ..settings import Settings
from ..wire.fields import only_fields, requested_fields
from .answer import Answer
from .cache import cacheable
from .http import Request, collect_params, reply_language, reply_response, urls_for
from .tagging import Record, record_of, validators
from .targets import Target

DISCOVERY_REL = "https://api.w.org/"
READ_METHODS = frozenset({"GET", "HEAD"})
#: methods answered by another method's target: HEAD is a GET without its body
#: (Werkzeug's response drops the body of a HEAD request and keeps its headers)
SERVED_AS = {"HEAD": "GET"}
#: read query strings kept validated (``Calls.parameters``), up to this length each
VALIDATED_KEPT = 1024
KEPT_QUERY_LENGTH = 512
Values = t.Mapping[str, t.Any]


class _Refused(Exception):
    """Parameters that did not validate: what ``Calls.parameters`` does not keep."""

    def __init__(self, params: dict[str, t.Any], arguments: Arguments) -> None:
        super().__init__()
        self.params = params
        self.arguments = arguments


class Calls:
    """Makes the call a responder receives and renders what it replies; holds what
    every call is made with (the clock, the list totals kept, the settings)."""

    def __init__(
        self,
        settings: Settings,
        clock: Clock,
        resources: t.Mapping[str, Resource],
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.resources = resources
        self.counts = CountCache(settings.count_cache_entries)
        #: query strings of reads that validated, per argument set (``parameters``)
        self.validated: Memo[tuple[t.Any, str], tuple[dict[str, t.Any], dict[str, t.Any]]] = Memo(
            VALIDATED_KEPT
        )

    def admit(self, request: Request, target: Target, values: Values, user: User | None) -> Call:
        """Steps 4 and 5: the route-level permission around the parameters, merged and
        validated once; the call the responder receives."""
        resource, method = target.resource, SERVED_AS.get(request.method, request.method)
        path_errors = resource.path_errors(values)
        allowed = resource.may_call(method, user)
        if not allowed and not path_errors and (user is None or resource.permission_first):
            raise forbidden(user is not None)  # before the body is even parsed
        params, arguments = self.parameters(request, target)
        request.reply_language = reply_language(params, request.language)
        if path_errors:
            path_errors.update(arguments.errors)
            path_errors.raise_if_any()
        if not target.collects_errors or not allowed:
            arguments.refuse_invalid()
        if not allowed:
            raise forbidden(user is not None)
        return Call(
            user=user,
            params=params,
            arguments=arguments,
            urls=urls_for(request, self.settings.site_url),
            language=request.reply_language,
            clock=self.clock,
            values=values,
            query=tuple(request.args.items(multi=True)),
            media_type=request.media_type,
            counts=self.counts,
            # a write reads what it has written: nothing counted before it may answer it
            generation=request.generation if request.method in READ_METHODS else None,
        )

    def parameters(self, request: Request, target: Target) -> tuple[dict[str, t.Any], Arguments]:
        """Step 5: the request's parameters, merged, and their validation.

        A read's parameters are its query string alone, and validating them reads
        neither the clock nor the database (a relative date is kept as written): so a
        query string that validated is kept with what it gave (``marshmallow`` takes
        about a tenth of a filtered list's time), and each request gets its own copy.
        """
        query = request.environ.get("QUERY_STRING", "")
        if (
            request.method not in READ_METHODS
            or len(query) > KEPT_QUERY_LENGTH
            or (query and not cacheable(request.args))
        ):
            params = collect_params(request, target.repeatable)
            return params, Arguments.load(target.schema, params)

        def validated() -> tuple[dict[str, t.Any], dict[str, t.Any]]:
            params = collect_params(request, target.repeatable)
            arguments = Arguments.load(target.schema, params)
            if arguments.errors:
                raise _Refused(params, arguments)  # answered at once, never kept
            return params, arguments.valid

        try:
            params, valid = self.validated.get((target.schema, query), validated)
        except _Refused as refused:
            return refused.params, refused.arguments
        return copied(params), Arguments(target.schema, copied(valid), ParamErrors())

    def render(
        self, method: str, call: Call, target: Target, *, tag: bool = True
    ) -> tuple[Answer, Record | None]:
        """The responder's reply, reduced to the ``_fields`` asked for and serialised
        once; a 200 to a read gets its validators (unless ``tag`` is false), computed
        from the exact bytes."""
        reply = target.responder(call, **call.values)
        record = record_of(target.route.spec, method, reply)
        names = requested_fields(call.query)
        if names and reply.status < 300 and reply.content_type is None:
            spec = target.route.spec
            listed = spec.shape == "collection" and method in READ_METHODS
            reply.body = only_fields(reply.body, names, spec.resource if listed else None)
        response = reply_response(reply)
        if tag and reply.status == 200 and method in READ_METHODS:
            response.headers.extend(validators(response.get_data(), record))
        return response, record

    def discoverable(self, response: Answer, request: Request) -> Answer:
        """Add the link to the REST index (``rel="https://api.w.org/"``), as WordPress
        does on every response, after any paging links."""
        root = urls_for(request, self.settings.site_url).api_root
        link = f'<{root}>; rel="{DISCOVERY_REL}"'
        paging = response.headers.get("Link")
        response.headers["Link"] = f"{paging}, {link}" if paging else link
        return response

    def allowed(self, route: Route, values: Values, user: User | None) -> str:
        """The ``Allow`` header: the route's methods this caller may call, on this
        record for an item route (WordPress's ``rest_send_allow_header``)."""
        resource = self.resources[route.spec.resource]
        return ", ".join(resource.allowed_methods(route, values, user))
