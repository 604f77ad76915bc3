"""The one error type, and the one collector of bad parameters.

Every failure leaves the service as ``{"code", "message", "data": {"status", ...}}``
with ``data.status`` as the HTTP status; nothing else builds error bodies. Bad
parameters are gathered by a :class:`ParamErrors` collector, the only builder of
``rest_invalid_param`` bodies: checks add to it (or raise the single-parameter
:func:`bad_param`), and one :class:`InvalidParams` reports them all together, as
WordPress does.
"""

from __future__ import annotations

import contextlib
import typing as t

from .i18n.messages import MESSAGES
from .schemas.messages import ParamMessage

Translate = t.Callable[[str], str]
R = t.TypeVar("R")


def _identity(text: str) -> str:
    return text


class RestError(Exception):
    """A failure with a WordPress-style code, an HTTP status and extra ``data`` members.

    ``args`` fill the ``%`` placeholders of the registered message; the message is
    rendered late, in the request's language.
    """

    def __init__(
        self,
        code: str,
        status: int,
        *args: object,
        data: dict[str, t.Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(code)
        self.code = code
        self.status = status
        self.message_args = args
        self.data = data or {}
        self.headers = headers or {}

    def message(self, translate: Translate = _identity) -> str:
        template = translate(MESSAGES[self.code])
        return template % self.message_args if self.message_args else template

    def body(self, translate: Translate = _identity) -> dict[str, t.Any]:
        return {
            "code": self.code,
            "message": self.message(translate),
            "data": {"status": self.status, **self.data},
        }


class ParamErrors:
    """Bad parameters, by name, in the order they were found.

    A name keeps its first message: the first failure found is the one reported.
    """

    def __init__(self) -> None:
        self.messages: dict[str, ParamMessage] = {}

    def add(self, name: str, key: str = "invalid", **values: t.Any) -> ParamErrors:
        """Record ``name`` as bad, with the ``schemas.messages`` template ``key``
        (every template but the generic ``invalid`` names the parameter)."""
        if key != "invalid":
            values.setdefault("param", name)
        self.messages.setdefault(name, ParamMessage(key, **values))
        return self

    def update(self, other: ParamErrors | t.Mapping[str, ParamMessage]) -> None:
        messages = other.messages if isinstance(other, ParamErrors) else other
        for name, message in messages.items():
            self.messages.setdefault(name, message)

    @contextlib.contextmanager
    def collecting(self) -> t.Iterator[None]:
        """Run a check whose :class:`InvalidParams` is added here instead of raised."""
        try:
            yield
        except InvalidParams as exc:
            self.update(exc.errors)

    def check(self, run: t.Callable[..., R], *args: t.Any) -> R | None:
        """``run(*args)``, or None when it raised :class:`InvalidParams` (whose
        parameters are added here)."""
        with self.collecting():
            return run(*args)
        return None

    def ordered(self, names: t.Sequence[str]) -> ParamErrors:
        """The same errors in the order of ``names`` (a schema's declaration order);
        names it does not list come last."""
        rank = {name: index for index, name in enumerate(names)}
        ordered = ParamErrors()
        for name in sorted(self.messages, key=lambda name: rank.get(name, len(rank))):
            ordered.messages[name] = self.messages[name]
        return ordered

    def error(self, valid: dict[str, t.Any] | None = None) -> InvalidParams:
        return InvalidParams(self, valid)

    def raise_if_any(self) -> None:
        if self.messages:
            raise self.error()

    def __bool__(self) -> bool:
        return bool(self.messages)

    def __contains__(self, name: object) -> bool:
        return name in self.messages

    @classmethod
    def from_marshmallow(cls, messages: t.Any) -> ParamErrors:
        """The errors of a marshmallow ``ValidationError``: our fields raise
        ``ParamMessage``s; anything else is reported as a generic invalid parameter."""
        errors = cls()
        for name, value in dict(messages).items():
            first = value[0] if isinstance(value, list) and value else value
            if isinstance(first, ParamMessage):
                errors.messages[name] = first
            else:
                errors.add(name)
        return errors


class InvalidParams(RestError):
    """400 ``rest_invalid_param``: every failing parameter of a :class:`ParamErrors`."""

    def __init__(self, errors: ParamErrors, valid: dict[str, t.Any] | None = None) -> None:
        super().__init__("rest_invalid_param", 400, ", ".join(errors.messages))
        self.errors = errors
        #: the parameters that did validate, so later checks can still run on them
        self.valid = valid or {}

    def body(self, translate: Translate = _identity) -> dict[str, t.Any]:
        messages = self.errors.messages
        params = {name: err.render(translate) for name, err in messages.items()}
        details = {
            name: {
                "code": err.detail_code,
                "message": params[name],
                "data": {"param": name},
            }
            for name, err in messages.items()
            if err.detail_code
        }
        body = super().body(translate)
        body["data"]["params"] = params
        body["data"]["details"] = details or []
        return body


def bad_param(name: str, key: str = "invalid", **values: t.Any) -> InvalidParams:
    """The error of a single bad parameter (see :meth:`ParamErrors.add`)."""
    return ParamErrors().add(name, key, **values).error()


def missing_params(names: list[str]) -> RestError:
    return RestError("rest_missing_callback_param", 400, ", ".join(names), data={"params": names})


def too_many_items(name: str, limit: int) -> RestError:
    """A list parameter past its bound (``schemas.TooManyItems``)."""
    return RestError("rest_too_many_items", 400, name, limit, data={"param": name, "max": limit})


def no_route() -> RestError:
    return RestError("rest_no_route", 404)


def forbidden(logged_in: bool) -> RestError:
    """WordPress's permission failure: 401 for anonymous callers, 403 for users."""
    return RestError("rest_forbidden", 403 if logged_in else 401)
