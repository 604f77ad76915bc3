"""The resource base and what a responder receives: one :class:`Call` per request.

Shared by the API's ``resources/`` and the public pages of ``site/`` (siblings that
never import each other): both are bound to the route table the same way.

The dispatcher validates the request's parameters against the responder's declared
argument set once, before calling it (:class:`Arguments`); the responder then only
orchestrates, in WordPress's order: the parameters (their shape, then the records
they name), the permission, the read or write, the representation.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import typing as t
import weakref

from marshmallow import Schema, ValidationError, missing

from .clock import Clock, utc_now
from .errors import ParamErrors, forbidden, missing_params, too_many_items
from .i18n.catalogs import Translate, translator
from .media_types import JSON
from .models import Event, User
from .queries.lists.counts import CountCache, RangesOf, count_rows
from .queries.sql.statements import Statement
from .routes import Route
from .schemas import MissingParams, TooManyItems, validate
from .settings import Settings
from .wordpress.urls import Urls

R = t.TypeVar("R")
#: what each schema makes of no parameters at all (its defaults): a read without a
#: query string is the most common request, and its validation never varies (no
#: argument set reads the clock or the database while it loads)
_NO_PARAMS: weakref.WeakKeyDictionary[Schema, dict[str, t.Any]] = weakref.WeakKeyDictionary()
#: the order ``Allow`` lists methods in (HEAD and OPTIONS are never listed)
METHOD_ORDER = ("GET", "POST", "PUT", "PATCH", "DELETE")


class ReadyToWrite(Exception):
    """Raised by :meth:`Call.begin_write` while a write's checks run (see ``edge.writes``):
    every check passed, and the write itself is due."""


@dataclasses.dataclass(frozen=True)
class Arguments:
    """The request's parameters, validated once against the declared argument set:
    what validated (``valid``) and what did not (``errors``)."""

    schema: Schema
    valid: dict[str, t.Any]
    errors: ParamErrors

    @classmethod
    def load(cls, schema: Schema, params: t.Mapping[str, t.Any]) -> Arguments:
        """Validate like WordPress: missing parameters fail at once, invalid ones are
        kept for the responder to report together with the records they name.

        :raises RestError: 400 ``rest_missing_callback_param``, or
            ``rest_too_many_items`` (checked before any value is read).
        """
        if not params and (defaults := _NO_PARAMS.get(schema)) is not None:
            return cls(schema, dict(defaults), ParamErrors())
        try:
            valid = validate(schema, params)
            if not params:
                _NO_PARAMS[schema] = dict(valid)
            return cls(schema, valid, ParamErrors())
        except MissingParams as exc:
            raise missing_params(exc.names) from None
        except TooManyItems as exc:
            raise too_many_items(exc.name, exc.limit) from None
        except ValidationError as exc:
            valid = exc.valid_data if isinstance(exc.valid_data, dict) else {}
            return cls(schema, valid, ParamErrors.from_marshmallow(exc.messages))

    def refuse_invalid(self) -> None:
        """:raises InvalidParams: when any parameter did not validate."""
        if self.errors:
            raise self.errors.error(self.valid)

    @property
    def declared(self) -> list[str]:
        """The parameters in declaration order (the order errors are reported in)."""
        return list(self.schema.fields)

    @property
    def defaults(self) -> dict[str, t.Any]:
        return {
            name: field.load_default
            for name, field in self.schema.fields.items()
            if field.load_default is not missing
        }


@dataclasses.dataclass
class Call:
    """One request as a responder sees it."""

    user: User | None
    #: every parameter, merged from the JSON or form body and the query (WordPress)
    params: dict[str, t.Any]
    arguments: Arguments
    urls: Urls
    #: the language the answer is in (the root's, or ``i18n_language``)
    language: str
    clock: Clock
    #: the path's values (``id``, ``slug``), passed to the responder as keywords
    values: t.Mapping[str, t.Any] = dataclasses.field(default_factory=dict)
    #: True while the checks of a write run, before the write transaction is taken
    checking: bool = False
    #: the request's query string, as pairs in their order (what page links repeat)
    query: tuple[tuple[str, str], ...] = ()
    #: the media type to answer in (``Accept`` on negotiated routes, calendar.md §2.1)
    media_type: str = JSON
    #: the app's list totals, and the write generation the request read at its start
    counts: CountCache | None = None
    generation: int | None = None
    #: what a write's checks made of its input without the database (see :meth:`prepared`)
    preparations: dict[str, t.Any] = dataclasses.field(default_factory=dict)

    def total(self, statement: Statement, ranges_of: RangesOf | None = None) -> int:
        """The exact number of rows a list's built ``statement`` selects, counted once
        per filter and write generation (every page of a listing shares it), and with
        ``ranges_of`` caught up after a write by counting only what it changed
        (``queries.counts``)."""
        database = Event._meta.database
        if self.counts is None:
            return count_rows(database, statement)
        return self.counts.count(database, statement, self.generation, ranges_of)

    def begin_write(self) -> None:
        """Mark the end of a write's checks: what follows writes.

        A write runs twice: first its checks alone, on a read-only connection (a refused
        request never takes the write lock), then, once they pass, whole inside the
        write transaction, where this returns at once.

        :raises ReadyToWrite: during the checks.
        """
        if self.checking:
            raise ReadyToWrite

    def prepared(self, key: str, prepare: t.Callable[[], R]) -> R:
        """What ``prepare`` returns, made once per request: during a write's checks,
        and kept for the write itself (the dispatcher hands it the same preparations).

        For work that depends on the request alone (sanitising HTML, validating inline
        records): done before the write lock is taken, it is not done again while every
        other writer waits. What reads the database is checked again under the lock.
        """
        if key not in self.preparations:
            self.preparations[key] = prepare()
        return t.cast(R, self.preparations[key])

    def again(self) -> Call:
        """This call for the write itself, after its checks passed: the same validated
        parameters (copied: a check may have changed its own) and preparations."""
        arguments = self.arguments
        valid = copied(arguments.valid)
        return dataclasses.replace(
            self,
            params=copied(self.params),
            arguments=Arguments(arguments.schema, valid, arguments.errors),
            checking=False,
        )

    @property
    def args(self) -> dict[str, t.Any]:
        """The validated arguments.

        :raises InvalidParams: when any parameter did not validate (only possible in
            a responder that collects errors, see ``routes.accepts``).
        """
        self.arguments.refuse_invalid()
        return self.arguments.valid

    def checked(self, check: t.Callable[[dict[str, t.Any]], R]) -> tuple[dict[str, t.Any], R]:
        """The arguments and what ``check`` (which needs the database) makes of them.

        When some parameters did not validate, ``check`` still runs on the valid ones
        (and the defaults), and every failure is reported together, in declaration
        order, as WordPress does.
        """
        arguments = self.arguments
        if not arguments.errors:
            return arguments.valid, check(arguments.valid)
        errors = ParamErrors()
        errors.update(arguments.errors)
        errors.check(lambda: check({**arguments.defaults, **arguments.valid}))
        raise errors.ordered(arguments.declared).error()

    def errors(self, *unknown: str) -> ParamErrors:
        """A collector holding the invalid parameters, for a responder that adds the
        failures of its own checks after them; ``unknown`` names path parameters that
        named no record (TEC reports those first, as plain invalid parameters)."""
        errors = ParamErrors()
        for name in unknown:
            errors.add(name)
        errors.update(self.arguments.errors)
        return errors

    @property
    def translate(self) -> Translate:
        """gettext in the request's language, for texts the wire shows to people."""
        return translator(self.language)

    @property
    def now(self) -> dt.datetime:
        """Naive UTC to the second, from the app's clock."""
        return utc_now(self.clock)


def copied(value: t.Any) -> t.Any:
    """``value`` with every list and dict in it copied: a request's own parameters."""
    if isinstance(value, dict):
        return {key: copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copied(item) for item in value]
    return value


class Resource:
    """Base class; subclasses define responders and receive their collaborators."""

    #: refuse a caller without the route-level permission before reading the body or
    #: validating anything (administrator-only routes reveal nothing to others)
    permission_first: t.ClassVar[bool] = False
    #: whether the response cache may keep this resource's answers
    cacheable: t.ClassVar[bool] = True

    def __init__(self, settings: Settings, routes: tuple[Route, ...]) -> None:
        self.settings = settings
        #: the app's route table (the describing resources publish it)
        self.routes = routes

    def may_call(self, method: str, user: User | None) -> bool:
        """Whether ``user`` may call ``method`` on this resource at all (the ``Allow``
        header, and the route-level permission checked before any look-up);
        per-record checks still apply when the request runs."""
        return method == "GET"

    def allowed_methods(
        self, route: Route, values: t.Mapping[str, t.Any], user: User | None
    ) -> tuple[str, ...]:
        """The ``Allow`` header of ``route`` for ``user``: on an item route, what it may
        do to that record; elsewhere, the methods it may call at all."""
        if values:  # an anonymous caller never writes: no need to look the record up
            return self.record_methods(values, user) if user is not None else ("GET",)
        served = route.spec.methods
        return tuple(m for m in METHOD_ORDER if m in served and self.may_call(m, user))

    def record_methods(self, values: t.Mapping[str, t.Any], user: User | None) -> tuple[str, ...]:
        """What ``user`` may do to the record the path ``values`` name (``GET`` alone
        when it is missing or hidden)."""
        return ("GET",)

    def path_errors(self, values: t.Mapping[str, t.Any]) -> ParamErrors:
        """Path values that name no record and are reported as invalid parameters
        before any permission check (WordPress's order for terms); none by default."""
        return ParamErrors()

    @staticmethod
    def require(allowed: bool, user: User | None) -> None:
        """The permission step: 401 for anonymous callers, 403 for logged-in ones."""
        if not allowed:
            raise forbidden(user is not None)
