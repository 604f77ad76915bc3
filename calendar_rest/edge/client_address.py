"""Who the client is, by address, behind the proxies the site trusts.

Without ``trusted_proxies`` the client is the peer, ``REMOTE_ADDR``, as before: any
``X-Forwarded-For`` is the client's own text and is ignored. With it, and only when
the peer is one of those proxies, the client is the last hop of ``X-Forwarded-For``
(else of RFC 7239 ``Forwarded``) that is not a trusted proxy: each proxy appends
the address it received from, so the hops right of that one were written by proxies
the site runs, and the hops left of it by whoever the client is, forgeries included.
The rate limits and the failed-login throttle (the API's and the password form's)
count by this address.
"""

from __future__ import annotations

import ipaddress
import typing as t

if t.TYPE_CHECKING:  # pragma: no cover
    from _typeshed.wsgi import WSGIEnvironment

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class ClientAddresses:
    """The client address of a request, given the trusted proxies (addresses or CIDRs)."""

    def __init__(self, trusted_proxies: t.Iterable[str] = ()) -> None:
        self.trusted = tuple(ipaddress.ip_network(entry, strict=False) for entry in trusted_proxies)

    def of(self, environ: WSGIEnvironment) -> str:
        """The client's address: ``REMOTE_ADDR`` unless a trusted proxy sent the request."""
        peer: str = environ.get("REMOTE_ADDR") or ""
        if not self.trusted or not self.is_trusted(parse_address(peer)):
            return peer
        forwarded = environ.get("HTTP_X_FORWARDED_FOR")
        hops = split_forwarded_for(forwarded) if forwarded else forwarded_for(environ)
        client = peer
        for hop in reversed(hops):
            address = parse_address(hop)
            if address is None:  # garbage: the proxy that passed it on is the client
                return client
            client = str(address)
            if not self.is_trusted(address):
                return client
        return client  # every hop a trusted proxy: the first is as far as it goes

    def is_trusted(self, address: Address | None) -> bool:
        if address is None:
            return False
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in network for network in self.trusted)


def split_forwarded_for(value: str) -> list[str]:
    """The hops of ``X-Forwarded-For`` (several headers arrive joined by commas)."""
    return [hop.strip() for hop in value.split(",") if hop.strip()]


def forwarded_for(environ: WSGIEnvironment) -> list[str]:
    """The ``for=`` nodes of RFC 7239 ``Forwarded``, in order (an element without one
    is an unknown hop)."""
    value = environ.get("HTTP_FORWARDED")
    if not value:
        return []
    hops = []
    for element in str(value).split(","):
        node = "unknown"
        for pair in element.split(";"):
            name, _, text = pair.strip().partition("=")
            if name.strip().lower() == "for":
                node = text.strip().strip('"')
        hops.append(node)
    return hops


def parse_address(node: str) -> Address | None:
    """The IP address of a hop (``198.51.100.7``, ``198.51.100.7:443``, ``[2001:db8::1]``
    or ``[2001:db8::1]:443``); None for anything else (``unknown``, obfuscated names)."""
    text = node.strip()
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None
