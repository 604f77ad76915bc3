"""The read pipeline: a GET (or HEAD) answered from the response cache while no write
happened since, else by its responder, with a 304 when the client's copy is current.

What a caller would GET at a route now is also asked by a write: a conditional write
compares its tag with it (:meth:`Reads.representation`), and a write's answer carries
the tag of what a GET shows right after it (:meth:`Reads.shown`).
"""

from __future__ import annotations

import dataclasses
import typing as t

from ..errors import RestError
from ..models import User
from ..responders import Arguments, Call
from ..routes import Route
from ..settings import Settings
from ..wordpress.php_params import php_params
from .answer import Answer
from .cache import CachedResponse, ReadCache, cacheable
from .calls import Calls, Values
from .conditional import Current, NotModified, not_modified, validators_of
from .encoding import encode
from .http import Request, reply_language, urls_for
from .observing import ROUTE_KEY
from .tagging import Record
from .targets import Target

#: the body and record of a GET a write's answer carries the tag of
Shown = tuple[bytes, Record | None]


@dataclasses.dataclass(eq=False)
class Reads:
    """Answers reads, and renders the GET a write is compared with or answers with."""

    settings: Settings
    calls: Calls
    #: every route's GET is looked up here (``render_get``)
    targets: t.Mapping[tuple[str, str], Target]
    cache: ReadCache | None

    def read(self, request: Request, target: Target, values: Values, user: User | None) -> Answer:
        """A read, answered from the response cache while no write happened since, in
        the encoding the request takes (an ``_envelope`` is encoded whole, by the app),
        and with a 304 when the client's copy, of either encoding, is current."""
        response, entry = self.fetch(request, target, values, user)
        if "_envelope" not in request.args:
            accept_encoding = request.environ.get("HTTP_ACCEPT_ENCODING")
            response = encode(response, accept_encoding, entry.gzipped if entry else None)
        return self.revalidated(request, response)

    def fetch(
        self, request: Request, target: Target, values: Values, user: User | None
    ) -> tuple[Answer, CachedResponse | None]:
        """The identity answer, and the cache entry that holds it (None: not kept)."""
        calls = self.calls
        if (
            self.cache is None
            or request.cache_key is None
            or not cacheable(request.args)
            or not target.resource.cacheable
        ):
            request.allow = calls.allowed(target.route, values, user)
            return self.respond(request, calls.admit(request, target, values, user), target), None
        key = self.cache.key(request.cache_key, user.id if user else 0)
        hit = self.cache.get(key, request.generation)
        if hit is not None:  # its headers hold its ``Allow``
            request.allow = ""
            return Answer.replayed(hit.body, hit.status, hit.headers), hit
        request.allow = calls.allowed(target.route, values, user)
        response = self.respond(request, calls.admit(request, target, values, user), target)
        if response.status_code != 200:
            return response, None
        route = request.environ.get(ROUTE_KEY)
        cached = CachedResponse(200, tuple(response.headers), response.get_data(), route)
        self.cache.store(key, request.generation, cached)  # at the generation read before
        return response, cached

    def respond(self, request: Request, call: Call, target: Target) -> Answer:
        """Step 6: the responder's answer, with ``Allow`` and the discovery link."""
        response, _ = self.calls.render(request.method, call, target)
        response.headers["Allow"] = request.allow
        if request.negotiated:  # kept with the cached entry
            response.headers["Vary"] = "Accept"
        return self.calls.discoverable(response, request)

    @staticmethod
    def revalidated(request: Request, response: Answer) -> Answer:
        """A 304 for a 200 whose validators match ``If-None-Match`` (else
        ``If-Modified-Since``); ``_envelope`` always answers its 200."""
        if response.status_code != 200 or "_envelope" in request.args:
            return response
        environ = request.environ
        if not not_modified(
            environ.get("HTTP_IF_NONE_MATCH"),
            environ.get("HTTP_IF_MODIFIED_SINCE"),
            response.headers.get("ETag"),
            response.headers.get("Last-Modified"),
        ):
            return response
        vary = response.headers.get("Vary")  # a 304 varies as its 200 does
        kept = validators_of(response.headers.items())
        return NotModified([*kept, ("Vary", vary)] if vary else kept)

    def representation(
        self, request: Request, route: Route, values: Values, user: User | None
    ) -> Current:
        """What this caller would GET at ``route`` now (the request's query string
        applies, its body does not): the tag a conditional write is compared with."""
        try:
            rendered = self.render_get(request, route, values, user, tag=True)
        except RestError as exc:  # no representation for this caller
            return Current(exists=exc.status != 404)
        if rendered is None:
            return Current(exists=False)
        headers = rendered[0].headers
        return Current(True, headers.get("ETag"), headers.get("Last-Modified"))

    def shown(
        self, request: Request, route: Route, values: Values, user: User | None
    ) -> Shown | None:
        """The body and record of a 200 this caller would GET at ``route`` now, untagged
        (the tag waits for the write's position); None where that GET fails."""
        try:
            rendered = self.render_get(request, route, values, user, tag=False)
        except RestError:
            return None
        if rendered is None or rendered[0].status_code != 200:
            return None
        record = rendered[1]  # its revision is the write's, read once it has its position
        return rendered[0].get_data(), record._replace(revision=None) if record else None

    def render_get(
        self, request: Request, route: Route, values: Values, user: User | None, *, tag: bool
    ) -> tuple[Answer, Record | None] | None:
        """The route's GET for this caller (None: the route has none, or its path names
        no record).

        :raises RestError: the GET's refusal.
        """
        target = self.targets.get((route.key, "GET"))
        if target is None or target.resource.path_errors(values):
            return None
        query = tuple(request.args.items(multi=True))
        params = php_params(query, target.repeatable)
        arguments = Arguments.load(target.schema, params)
        if not target.collects_errors:
            arguments.refuse_invalid()
        call = Call(
            user=user,
            params=params,
            arguments=arguments,
            urls=urls_for(request, self.settings.site_url),
            language=reply_language(params, request.language),
            clock=self.calls.clock,
            values=values,
            query=query,
        )
        return self.calls.render("GET", call, target, tag=tag)
