"""One signed ``POST`` to an endpoint (``sync.md`` §4.4, §5.3).

The HTTP client is httpcore's connection pool (httpx's engine) with a network
backend that resolves the host itself, checks every address it got and connects to a
checked one: what is checked is what is connected to, so a name that resolves to a
public address for the API and to a private one for the worker (DNS rebinding) is
refused at the attempt. httpcore never follows redirects, reads no proxy from the
environment, and keeps no connection alive between attempts here.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import ssl
import time
import typing as t

import httpcore
from standardwebhooks import Webhook

from .. import __version__
from ..rules.ssrf import BlockedAddress, checked_addresses

USER_AGENT = f"calendar-rest/{__version__}"
BLOCKED = "blocked address"
TIMEOUT = "timeout"
CONNECTION_ERROR = "connection error"


@dataclasses.dataclass(frozen=True)
class Answer:
    """What an endpoint answered, or why it did not."""

    status_code: int | None
    error: str | None
    duration_ms: int
    retry_after: str | None = None


class GuardedBackend(httpcore.SyncBackend):
    """Connects only to addresses :func:`ssrf.checked_addresses` allowed."""

    def __init__(self, allow_private: bool) -> None:
        self.allow_private = allow_private

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: t.Iterable[t.Any] | None = None,
    ) -> httpcore.NetworkStream:
        try:
            addresses = checked_addresses(host, port, self.allow_private)
        except OSError as exc:  # the name does not resolve
            raise httpcore.ConnectError(str(exc)) from exc
        failure: Exception | None = None
        for address in addresses:
            try:
                return super().connect_tcp(
                    str(address), port, timeout, local_address, socket_options
                )
            except httpcore.ConnectError as exc:
                failure = exc
        assert failure is not None
        raise failure


def signed_headers(
    key: str, message_key: str, body: bytes, when: dt.datetime
) -> list[tuple[str, str]]:
    """The headers of one attempt, signed for ``when`` (every attempt anew) with the
    subscription's key (the standard base64 ``signing_key``) by Standard Webhooks'
    own library: ``v1,`` and the base64 HMAC-SHA256 of ``{id}.{timestamp}.{body}``."""
    signer = Webhook(base64.b64decode(key))
    signature = signer.sign(message_key, when, body.decode("utf-8"))
    return [
        ("Content-Type", "application/json"),
        ("User-Agent", USER_AGENT),
        ("webhook-id", message_key),
        ("webhook-timestamp", str(int(when.timestamp()))),
        ("webhook-signature", signature),
    ]


class Sender:
    """Sends attempts; one per worker process, shared by its threads."""

    def __init__(self, timeout: float, allow_private: bool, connections: int = 10) -> None:
        self.timeout = timeout
        self.pool = httpcore.ConnectionPool(
            ssl_context=ssl.create_default_context(),
            max_connections=max(connections, 1),
            max_keepalive_connections=0,
            retries=0,
            network_backend=GuardedBackend(allow_private),
        )

    def send(self, url: str, headers: list[tuple[str, str]], body: bytes) -> Answer:
        """POST ``body`` to ``url``; only the status and ``Retry-After`` are read."""
        limits = {name: self.timeout for name in ("connect", "read", "write", "pool")}
        started = time.monotonic()

        def answer(status: int | None, error: str | None, retry: str | None = None) -> Answer:
            return Answer(status, error, int((time.monotonic() - started) * 1000), retry)

        try:
            with self.pool.stream(
                "POST", url, headers=headers, content=body, extensions={"timeout": limits}
            ) as response:
                retry_after = next(
                    (
                        value.decode("latin-1")
                        for name, value in response.headers
                        if name.lower() == b"retry-after"
                    ),
                    None,
                )
                return answer(response.status, None, retry_after)
        except BlockedAddress:
            return answer(None, BLOCKED)
        except httpcore.TimeoutException:
            return answer(None, TIMEOUT)
        except (
            httpcore.NetworkError,
            httpcore.ProtocolError,
            httpcore.UnsupportedProtocol,
            OSError,
            UnicodeError,
            ValueError,
        ):
            return answer(None, CONNECTION_ERROR)

    def close(self) -> None:
        self.pool.close()
