"""The client address behind trusted proxies (``anchors.md`` §3): ``REMOTE_ADDR``
without ``trusted_proxies``; with it, the last untrusted hop of ``X-Forwarded-For``
(else of ``Forwarded``) when a trusted proxy sent the request; a forged header from any
other peer ignored. The rate limits, the failed-login throttle and the password form
of the public pages all count by that address.
"""

from __future__ import annotations

import typing as t

import pytest
from conftest import Api, api_for, assert_wp_error
from test_site_records import full_event, path_of

from calendar_rest.app import Application
from calendar_rest.edge.auth import Authenticator, basic_header
from calendar_rest.edge.client_address import ClientAddresses, parse_address
from calendar_rest.edge.rate_buckets import MemoryBuckets

PROXY = "10.0.0.1"
STRANGER = "198.51.100.9"
Build = t.Callable[..., Application]


def environ(peer: str, forwarded_for: str | None = None, forwarded: str | None = None) -> dict:
    values = {"REMOTE_ADDR": peer}
    if forwarded_for is not None:
        values["HTTP_X_FORWARDED_FOR"] = forwarded_for
    if forwarded is not None:
        values["HTTP_FORWARDED"] = forwarded
    return values


# -- the address -----------------------------------------------------------------------


def test_without_trusted_proxies_the_client_is_the_peer() -> None:
    addresses = ClientAddresses()
    assert addresses.of(environ("192.0.2.4", "203.0.113.5")) == "192.0.2.4"
    assert addresses.of(environ("192.0.2.4", forwarded="for=203.0.113.5")) == "192.0.2.4"


@pytest.mark.parametrize(
    ("forwarded_for", "client"),
    [
        ("203.0.113.5", "203.0.113.5"),
        ("203.0.113.5, 10.0.0.2", "203.0.113.5"),  # behind two of ours
        ("6.6.6.6, 203.0.113.5", "203.0.113.5"),  # what the client wrote is left of it
        ("6.6.6.6, 203.0.113.5, 10.0.0.2, 10.20.30.40", "203.0.113.5"),
        ("10.0.0.3", "10.0.0.3"),  # every hop trusted: the first
        ("203.0.113.5:4711", "203.0.113.5"),
        ("[2001:db8::7]:4711, 10.0.0.2", "2001:db8::7"),
        ("garbage, 10.0.0.2", "10.0.0.2"),  # the hop that passed it on
        ("", PROXY),
    ],
)
def test_a_trusted_proxy_names_the_client(forwarded_for: str, client: str) -> None:
    addresses = ClientAddresses(["10.0.0.0/8"])
    assert addresses.of(environ(PROXY, forwarded_for)) == client


def test_forwarded_is_read_without_x_forwarded_for() -> None:
    addresses = ClientAddresses(["10.0.0.1", "10.0.0.2"])
    header = 'for=6.6.6.6, for="[2001:db8:cafe::17]:4711";proto=https, for=10.0.0.2'
    assert addresses.of(environ(PROXY, forwarded=header)) == "2001:db8:cafe::17"
    assert addresses.of(environ(PROXY, forwarded="for=unknown;proto=http")) == PROXY
    both = environ(PROXY, "203.0.113.5", "for=6.6.6.6")
    assert addresses.of(both) == "203.0.113.5"  # X-Forwarded-For first


def test_a_forged_header_from_an_untrusted_peer_is_ignored() -> None:
    addresses = ClientAddresses(["10.0.0.0/8"])
    assert addresses.of(environ(STRANGER, "10.0.0.5")) == STRANGER
    assert addresses.of(environ(STRANGER, forwarded="for=203.0.113.5")) == STRANGER


def test_ipv4_mapped_peers_and_ipv6_networks() -> None:
    addresses = ClientAddresses(["10.0.0.0/8", "2001:db8:1::/48"])
    assert addresses.of(environ("::ffff:10.0.0.1", "203.0.113.5")) == "203.0.113.5"
    assert addresses.of(environ("2001:db8:1::9", "203.0.113.5")) == "203.0.113.5"
    assert addresses.of(environ("2001:db8:2::9", "203.0.113.5")) == "2001:db8:2::9"
    assert parse_address("unknown") is None and parse_address("_hidden") is None


# -- the rate limits ---------------------------------------------------------------------


def limited(sibling_app: Build, api: Api, **settings: t.Any) -> Api:
    other = sibling_app(trusted_proxies=(PROXY,), **settings)
    assert other.rate_limits is not None
    other.rate_limits.buckets = MemoryBuckets(now=lambda: 0.0)
    return api_for(other, api)


def via(api: Api, peer: str, forwarded_for: str, **kw: t.Any) -> t.Any:
    overrides = {"REMOTE_ADDR": peer, "HTTP_X_FORWARDED_FOR": forwarded_for}
    return api.get("/events", environ_overrides=overrides, **kw)


def test_clients_behind_the_proxy_have_buckets_of_their_own(sibling_app: Build, api: Api) -> None:
    client = limited(sibling_app, api, rate_limit_anonymous=2)
    assert [via(client, PROXY, "203.0.113.5").status_code for _ in range(3)] == [200, 200, 429]
    assert via(client, PROXY, "203.0.113.6").status_code == 200
    assert via(client, PROXY, "6.6.6.6, 203.0.113.6").status_code == 200


def test_a_forged_header_does_not_escape_the_peers_bucket(sibling_app: Build, api: Api) -> None:
    client = limited(sibling_app, api, rate_limit_anonymous=2)
    statuses = [via(client, STRANGER, f"203.0.113.{n}").status_code for n in range(3)]
    assert statuses == [200, 200, 429]


# -- the failed-login throttle -------------------------------------------------------------


def test_the_login_throttle_counts_the_client_behind_the_proxy(
    sibling_app: Build, api: Api
) -> None:
    client = api_for(sibling_app(trusted_proxies=(PROXY,), login_max_failures_per_address=2), api)
    wrong = {"Authorization": basic_header("nobody", "wrong")}
    for _ in range(2):
        assert via(client, PROXY, "203.0.113.5", headers=wrong).status_code == 401
    locked = via(client, PROXY, "203.0.113.5", headers=wrong)
    assert_wp_error(locked, 429, "rest_too_many_login_attempts")
    right = client.headers("editor")
    assert via(client, PROXY, "203.0.113.6", headers=right).status_code == 200  # not the proxy
    # a forged header from an untrusted peer: the peer is counted, whatever it claims
    for n in range(2):
        assert via(client, STRANGER, f"192.0.2.{n}", headers=wrong).status_code == 401
    forged = via(client, STRANGER, "192.0.2.99", headers=right)
    assert_wp_error(forged, 429, "rest_too_many_login_attempts")


def test_the_password_form_counts_the_client_behind_the_proxy(
    sibling_app: Build, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = path_of(full_event(api, password="opensesame", title="Secret")["url"])
    client = api_for(sibling_app(trusted_proxies=(PROXY,)), api)
    counted: list[str] = []
    monkeypatch.setattr(
        Authenticator, "address_failed", lambda self, address: counted.append(address)
    )
    overrides = {"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": "203.0.113.5"}
    wrong = client.client.post(url, data={"post_password": "x"}, environ_overrides=overrides)
    assert wrong.status_code == 200
    assert counted == ["203.0.113.5"]
