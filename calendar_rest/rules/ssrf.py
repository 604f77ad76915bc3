"""Which network addresses a webhook may reach (``sync.md`` §4.4).

Webhook URLs are chosen by administrators, but the requests leave from the server's
network: unless ``webhook_allow_private`` is set, a target must resolve only to public
unicast addresses, so a subscription cannot be aimed at loopback, the intranet or a
cloud metadata service. The API checks the host when a URL is written, and the worker
checks the very addresses it connects to at every attempt (DNS may change between the
two: rebinding).
"""

from __future__ import annotations

import ipaddress
import socket

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
#: ranges ``is_global`` lets through although no public endpoint lives there
EXTRA_REFUSED = (
    ipaddress.ip_network("100.64.0.0/10"),  # carrier-grade NAT
    ipaddress.ip_network("64:ff9b::/96"),  # NAT64: embeds an IPv4 address
    ipaddress.ip_network("64:ff9b:1::/48"),
)


class BlockedAddress(Exception):
    """The target resolves to an address a webhook may not reach."""


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 form carries (mapped, 6to4, Teredo), if any."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    return None


def is_public(address: Address) -> bool:
    """Public unicast: not loopback, private, link-local, unique-local, carrier-NAT,
    unspecified, multicast or reserved, in any IPv4-carrying IPv6 form either."""
    if isinstance(address, ipaddress.IPv6Address):
        inner = embedded_ipv4(address)
        if inner is not None:
            return is_public(inner)
    refused = (
        address.is_loopback
        or address.is_private
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
        or not address.is_global
        or any(address in network for network in EXTRA_REFUSED)
    )
    return not refused


def resolve(host: str, port: int) -> list[Address]:
    """Every address ``host`` resolves to, in the resolver's order, without repeats.

    :raises OSError: the name does not resolve.
    """
    found: list[Address] = []
    for *_, sockaddr in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
        address = ipaddress.ip_address(str(sockaddr[0]).split("%")[0])
        if address not in found:
            found.append(address)
    return found


def checked_addresses(host: str, port: int, allow_private: bool) -> list[Address]:
    """The addresses to connect to for ``host``: all of them must be public unless
    ``allow_private``.

    :raises BlockedAddress: one of them is not public.
    :raises OSError: the name does not resolve.
    """
    addresses = resolve(host.strip("[]"), port)
    if not addresses:
        raise OSError(f"{host} has no address")
    if not allow_private and not all(is_public(address) for address in addresses):
        raise BlockedAddress(host)
    return addresses


def host_allowed(host: str, port: int, allow_private: bool) -> bool:
    """Whether a URL's host may be a webhook target now (the write-time check): any
    host when ``allow_private``, else one resolving only to public addresses."""
    if allow_private:
        return True
    try:
        checked_addresses(host, port, allow_private)
    except (BlockedAddress, OSError, UnicodeError, ValueError):
        return False
    return True
