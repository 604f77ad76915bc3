"""The one error type and the one translator from failures to WordPress JSON errors.

Every failure leaves the service as ``{"code", "message", "data": {"status", ...}}``
with ``data.status`` as the HTTP status; nothing else builds error bodies.
"""

from __future__ import annotations

import logging
import typing as t

from .messages import MESSAGES
from .schemas.messages import ParamMessage

log = logging.getLogger("calendar_rest")

Translate = t.Callable[[str], str]


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


class InvalidParams(RestError):
    """400 ``rest_invalid_param`` aggregating every failing parameter, in order."""

    def __init__(
        self, errors: dict[str, ParamMessage], valid: dict[str, t.Any] | None = None
    ) -> None:
        super().__init__("rest_invalid_param", 400, ", ".join(errors))
        self.errors = errors
        #: the parameters that did validate, so later checks can still run on them
        self.valid = valid or {}

    def body(self, translate: Translate = _identity) -> dict[str, t.Any]:
        params = {name: err.render(translate) for name, err in self.errors.items()}
        details = {
            name: {
                "code": err.detail_code,
                "message": params[name],
                "data": {"param": name},
            }
            for name, err in self.errors.items()
            if err.detail_code
        }
        body = super().body(translate)
        body["data"]["params"] = params
        body["data"]["details"] = details or []
        return body


def invalid_param(name: str, key: str = "invalid", **kwargs: t.Any) -> InvalidParams:
    """Shortcut for a single invalid parameter (``param`` is filled in for the template)."""
    if key != "invalid":
        kwargs.setdefault("param", name)
    return InvalidParams({name: ParamMessage(key, **kwargs)})


def missing_params(names: list[str]) -> RestError:
    return RestError("rest_missing_callback_param", 400, ", ".join(names), data={"params": names})


def no_route() -> RestError:
    return RestError("rest_no_route", 404)


def forbidden(logged_in: bool) -> RestError:
    """WordPress's permission failure: 401 for anonymous callers, 403 for users."""
    return RestError("rest_forbidden", 403 if logged_in else 401)
