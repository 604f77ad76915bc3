"""Who may read ``/-/metrics`` (``operations.md`` §2): one rule for the app's and the
webhook worker's (``webhooks run --metrics-port``), so they cannot drift apart.

The caller resolves the client's address (the app behind its ``trusted_proxies``,
the worker from its peer) and passes None when the address is not to be trusted:
anyone else is refused, and the refusal is a 404, as for a route that does not exist.
"""

from __future__ import annotations

import hmac
import ipaddress
import typing as t

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class ScrapeGuard:
    """Admits the bearer of ``token`` (when set), else an address in ``allow``
    (addresses or CIDRs: the ``metrics_allow`` and ``metrics_token`` settings)."""

    def __init__(self, allow: t.Iterable[str], token: str | None) -> None:
        self.token = (token or "").encode()
        self.allowed = tuple(ipaddress.ip_network(entry, strict=False) for entry in allow)

    def admits(self, authorization: str, address: Address | None) -> bool:
        """Whether a request with this ``Authorization`` header from ``address`` may
        scrape. A bearer token, once presented while one is set, decides alone: a
        wrong one is refused even from an allowed address."""
        if self.token and authorization[:7].lower() == "bearer ":
            return hmac.compare_digest(authorization[7:].strip().encode(), self.token)
        if address is None:
            return False
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in network for network in self.allowed)


def peer_address(text: str) -> Address | None:
    """A peer's address as a WSGI server gives it (``REMOTE_ADDR``), None when it
    is not an IP address."""
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None
