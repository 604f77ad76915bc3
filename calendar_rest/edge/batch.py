"""``POST /batch/v1`` (anchors.md §2): WordPress 5.6's batch of write requests, and,
beyond WordPress, all or nothing with ``"atomic": true``.

Each item is a request of its own, built from the batch's (its host, scheme, mount
point, client address, origin and credentials) and the item's method, path with its
query (``/fr/...`` too), JSON body and headers (``If-Match``...; never the
credentials, the host, the origin or a method override). It goes down the same steps
as a single write (``writes.py``): its route and method, the CORS refusal, the body
limit, the permission, the parameters, the preconditions, the write with its outbox
and change-log entries. The caller was authenticated once, for the whole batch.

- Only write methods are batched: any other item answers 405 ``rest_batch_not_allowed``;
  a route of the site root (the index, the pages, the batch itself) 400, as WordPress
  answers a route that does not allow batching; a path no route serves 404.
- ``require-all-validate``: every item's checks run first, on a connection that
  cannot write; if one fails, nothing runs and the answer is ``{"failed":
  "validation", "responses": [...]}`` with each failure's answer, ``null`` elsewhere.
- ``atomic``: every item in one transaction; the first failure rolls the batch back
  (records, change log, outbox) and its answer stands beside 424
  ``rest_batch_failed_dependency`` for every other item (:func:`failed_dependency`).
  A batch that loses a race is replayed whole, as a write is (``WRITE_ATTEMPTS``).
- Otherwise each item is written in its own transaction, as if sent alone.
- Rate limits: the batch took one token when admitted (``app.py``); its other items
  take theirs from the same buckets, all or none, before any item runs
  (``RateLimits.admit_batch``): refused, the batch is a 429 and nothing is written.

The answer is ``207`` with ``{"responses": [{"body", "status", "headers"}]}`` in
request order (``http.envelope_of``); it is never cached (a ``POST``), and each
item's write moves the write generation as a single write does.
"""

from __future__ import annotations

import io
import logging
import time
import typing as t
from urllib.parse import unquote_to_bytes, urlsplit

import orjson
import peewee

from ..db import is_transient, request_scope
from ..errors import RestError, bad_param, no_route
from ..i18n.catalogs import translator
from ..media_types import negotiate
from ..models import User
from ..routes import Route
from ..settings import DEFAULT_LANGUAGE, Settings
from ..telemetry.metrics import service_metrics
from .answer import Answer
from .calls import Calls, Values
from .cors import TRANSPORT_METHOD, CorsPolicy
from .http import Request, envelope_of, json_body, json_response, new_request
from .rate_limits import RateLimits
from .targets import Target
from .writes import WRITE_ATTEMPTS, Writes

log = logging.getLogger("calendar_rest")
MULTI_STATUS = 207
FAILED_DEPENDENCY = 424
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: the batch's own headers every item inherits (its other headers stay its own)
INHERITED_HEADERS = frozenset(
    {"HTTP_HOST", "HTTP_AUTHORIZATION", "HTTP_ORIGIN", "HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED"}
)
#: item headers ignored: the batch's credentials, host and origin apply, the body is
#: JSON, and a method override does not apply inside a batch
IGNORED_ITEM_HEADERS = frozenset(
    {
        *INHERITED_HEADERS,
        "HTTP_X_HTTP_METHOD_OVERRIDE",
        "HTTP_CONTENT_TYPE",
        "HTTP_CONTENT_LENGTH",
        "HTTP_TRANSFER_ENCODING",
        "HTTP_COOKIE",
    }
)
Spec = t.Mapping[str, t.Any]


class Pipeline(t.Protocol):
    """What a batch needs of the dispatcher (``dispatch.Dispatcher``)."""

    @property
    def database(self) -> peewee.Database: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def cors(self) -> CorsPolicy: ...

    @property
    def calls(self) -> Calls: ...

    @property
    def writes(self) -> Writes: ...

    @property
    def targets(self) -> t.Mapping[tuple[str, str], Target]: ...

    @property
    def rate_limits(self) -> RateLimits | None: ...

    def match(self, request: Request) -> tuple[Route, Values]: ...

    def error_response(self, error: RestError, request: Request) -> Answer: ...


class _RolledBack(Exception):
    """An atomic batch's item failed: the batch's transaction is rolled back."""

    def __init__(self, index: int, answer: Answer) -> None:
        super().__init__(index)
        self.index = index
        self.answer = answer


class Batches:
    """Serves ``POST /batch/v1`` (see the module docstring)."""

    def __init__(self, pipeline: Pipeline) -> None:
        self.pipeline = pipeline

    def serve(self, request: Request, target: Target, values: Values, user: User | None) -> Answer:
        pipeline = self.pipeline
        calls = pipeline.calls
        request.allow = calls.allowed(target.route, values, user)
        limit = pipeline.settings.batch_max_requests
        sent = json_body(request).get("requests")
        if isinstance(sent, list) and len(sent) > limit:
            raise RestError("rest_batch_max_requests", 400, limit)
        args = calls.admit(request, target, values, user).args
        specs: list[Spec] = args["requests"]
        limits = pipeline.rate_limits
        if limits is not None:  # every item is a request: all counted before any runs
            refusal = limits.admit_batch(request.environ, user, len(specs))
            if refusal is not None:
                raise refusal
        if args["validation"] == "require-all-validate":
            failures = [self.refusal(request, spec, user) for spec in specs]
            if any(failure is not None for failure in failures):
                failed = [None if answer is None else envelope_of(answer) for answer in failures]
                return self.answered(request, {"failed": "validation", "responses": failed})
        if args["atomic"]:
            responses = self.atomic(request, specs, user)
        else:
            responses = [envelope_of(self.run(request, spec, user)) for spec in specs]
        return self.answered(request, {"responses": responses})

    def answered(self, request: Request, body: dict[str, t.Any]) -> Answer:
        response = json_response(body, MULTI_STATUS)
        response.headers["Allow"] = request.allow
        return self.pipeline.calls.discoverable(response, request)

    # -- one item --------------------------------------------------------------------

    def item(self, batch: Request, spec: Spec) -> Request:
        """The request of one item, built from the batch's (see the module docstring)."""
        outer = batch.environ
        environ: dict[str, t.Any] = {
            name: value
            for name, value in outer.items()
            if not name.startswith(("HTTP_", "CONTENT_", "werkzeug.")) or name in INHERITED_HEADERS
        }
        environ.pop(TRANSPORT_METHOD, None)
        for name, value in spec["headers"].items():
            key = "HTTP_" + name.upper().replace("-", "_")
            if key not in IGNORED_ITEM_HEADERS:
                environ[key] = wsgi_text(str(value))
        parts = urlsplit(spec["path"])
        script = outer.get("SCRIPT_NAME", "")
        if batch.language != DEFAULT_LANGUAGE:  # the mount point, without the batch's root
            script = script.removesuffix(f"/{batch.language}")
        body = orjson.dumps(spec["body"]) if spec["body"] else b""
        environ.update(
            REQUEST_METHOD=spec["method"],
            SCRIPT_NAME=script,
            # as a server hands them on (PEP 3333): the path percent-decoded, both as
            # their UTF-8 bytes read as Latin-1 (a character beyond it was a 500)
            PATH_INFO=unquote_to_bytes(parts.path).decode("latin-1"),
            QUERY_STRING=wsgi_text(parts.query),
            CONTENT_TYPE="application/json",
            CONTENT_LENGTH=str(len(body)),
        )
        environ["wsgi.input"] = io.BytesIO(body)
        return new_request(environ, self.pipeline.settings.max_body_bytes, None, batch.generation)

    def run(self, batch: Request, spec: Spec, user: User | None, *, within: bool = False) -> Answer:
        """One item's answer, as the single request would have had it; ``within`` an
        atomic batch, a lost race is raised for the batch to replay."""
        request = self.item(batch, spec)
        try:
            answer = self.dispatch(request, user, within=within)
        except RestError as exc:
            answer = self.pipeline.error_response(exc, request)
        except peewee.DataError:
            log.info("database refused a value in a batch: %s %s", request.method, request.path)
            answer = self.pipeline.error_response(bad_param("body"), request)
        except (peewee.IntegrityError, peewee.OperationalError) as exc:
            if within and is_transient(exc):
                raise
            log.exception("unhandled error in a batch: %s %s", request.method, request.path)
            answer = self.pipeline.error_response(RestError("rest_internal_error", 500), request)
        except Exception:  # noqa: BLE001 - one item's failure is its own answer
            log.exception("unhandled error in a batch: %s %s", request.method, request.path)
            answer = self.pipeline.error_response(RestError("rest_internal_error", 500), request)
        if request.allow and answer.status_code != 304:
            answer.headers["Allow"] = request.allow
        batch.generation = max(batch.generation, request.generation)
        return answer

    def routed(self, request: Request) -> tuple[Target, Values]:
        """The item's target, after the checks a single request passes before its
        route is known (body limit, CORS), and the batch's own refusals.

        :raises RestError: the item is refused.
        """
        pipeline = self.pipeline
        if int(request.environ["CONTENT_LENGTH"]) > pipeline.settings.max_body_bytes:
            raise RestError("rest_payload_too_large", 413)
        if pipeline.cors.refuses(request.environ):
            raise RestError("rest_cors_origin_not_allowed", 403)
        route, values = pipeline.match(request)
        if request.method not in WRITE_METHODS:
            raise RestError("rest_batch_not_allowed", 405)
        if route.spec.site:  # the indexes, the pages, a batch in a batch
            raise RestError("rest_batch_not_allowed", 400)
        media_types = route.spec.media_types
        request.negotiated = len(media_types) > 1
        request.media_type = (
            negotiate(request.environ.get("HTTP_ACCEPT")) if request.negotiated else media_types[0]
        )
        target = pipeline.targets.get((route.key, request.method))
        if target is None:
            raise no_route()
        return target, values

    def dispatch(self, request: Request, user: User | None, *, within: bool) -> Answer:
        target, values = self.routed(request)
        return self.pipeline.writes.write(request, target, values, user, within=within)

    def refusal(self, batch: Request, spec: Spec, user: User | None) -> Answer | None:
        """``require-all-validate``: the item's answer if its checks refuse it, else
        None (nothing is written either way)."""
        request = self.item(batch, spec)
        try:
            target, values = self.routed(request)
            self.pipeline.writes.check(request, target, values, user)
        except RestError as exc:
            return self.pipeline.error_response(exc, request)
        return None

    # -- all or nothing --------------------------------------------------------------

    def atomic(self, batch: Request, specs: t.Sequence[Spec], user: User | None) -> list[t.Any]:
        """Every item in one transaction, replayed whole when it loses a race."""
        database, seen = self.pipeline.database, batch.generation
        for attempt in range(1, WRITE_ATTEMPTS + 1):
            batch.generation = seen  # what a rolled-back attempt took is gone
            try:
                with request_scope(database, write=True):
                    answers = []
                    for index, spec in enumerate(specs):
                        answer = self.run(batch, spec, user, within=True)
                        if answer.status_code >= 400:
                            raise _RolledBack(index, answer)
                        answers.append(envelope_of(answer))
                    return answers
            except _RolledBack as failed:
                batch.generation = seen
                translate = translator(batch.reply_language)
                return [
                    envelope_of(failed.answer)
                    if index == failed.index
                    else failed_dependency(failed.index, translate)
                    for index in range(len(specs))
                ]
            except (peewee.IntegrityError, peewee.OperationalError) as exc:
                if not is_transient(exc):
                    raise
                if attempt == WRITE_ATTEMPTS:
                    log.warning("write conflict on an atomic batch: %s", exc)
                    service_metrics().write_conflicts.inc()
                    raise RestError("rest_conflict", 409) from None
                service_metrics().write_retries.inc()
                time.sleep(0.01 * attempt)
        raise AssertionError("unreachable")  # pragma: no cover


def wsgi_text(text: str) -> str:
    """``text`` as a WSGI environ holds it: its UTF-8 bytes, one character each."""
    return text.encode("utf-8", "surrogateescape").decode("latin-1")


def failed_dependency(failed: int, translate: t.Callable[[str], str]) -> dict[str, t.Any]:
    """An item of a rolled-back atomic batch other than the one that failed: not
    written (or written and rolled back), WordPress's error envelope with the index of
    the request that failed (``data.failed_request``, from 0)."""
    error = RestError(
        "rest_batch_failed_dependency", FAILED_DEPENDENCY, data={"failed_request": failed}
    )
    return {"body": error.body(translate), "status": FAILED_DEPENDENCY, "headers": {}}
