"""Webhook subscriptions through the API and the outbox a write fills (``sync.md`` §4,
§5.1, §5.4, §6).

The outbox tests that write events depend on the change log recording event writes
(``repository.changes``); venue and term writes already record theirs.
"""

from __future__ import annotations

import base64
import datetime as dt
import logging
import socket
import typing as t

import pytest
from conftest import ALL_ROLES, NS, Api, api_for, assert_wp_error
from webhook_helpers import Body, messages, payload, subscribe

from calendar_rest.app import Application
from calendar_rest.models import WebhookSubscription
from calendar_rest.rules import ssrf
from calendar_rest.settings import Settings

Build = t.Callable[..., Application]
TARGET = "http://127.0.0.1:9/Hook?b=2&a=%41"
PUBLIC_IP = "93.184.216.34"


@pytest.fixture
def hooks(api: Api, sibling_app: Build) -> Api:
    """The API of a server accepting private targets (the tests' receivers are local)."""
    return api_for(sibling_app(webhook_allow_private=True), api)


@pytest.fixture
def public_dns(monkeypatch: pytest.MonkeyPatch) -> None:
    """``hooks.example.com`` resolves to a public address; other names as usual."""
    real = socket.getaddrinfo

    def fake(host: str, port: t.Any, *args: t.Any, **kwargs: t.Any) -> t.Any:
        if host == "hooks.example.com":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (PUBLIC_IP, port))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(ssrf.socket, "getaddrinfo", fake)


# -- the subscription object -------------------------------------------------------------


def test_a_create_answers_201_with_the_secret_once_and_a_location(hooks: Api) -> None:
    response = hooks.post(
        "/webhooks",
        "administrator",
        json={"url": TARGET, "events": ["venue.created", "*", "event.created", "venue.created"]},
    )
    assert response.status_code == 201, response.get_data(as_text=True)
    body = response.json
    assert list(body) == [
        "id",
        "url",
        "events",
        "active",
        "disabled_reason",
        "created_at",
        "secret",
    ]
    assert body["url"] == TARGET  # exactly as submitted
    assert body["events"] == ["venue.created", "*", "event.created"]  # order kept, no repeat
    assert body["active"] is True and body["disabled_reason"] is None
    assert body["created_at"].endswith("Z") and len(body["created_at"]) == 20
    secret = body["secret"]
    assert secret.startswith("whsec_")
    key = secret.removeprefix("whsec_")
    assert len(base64.b64decode(key, validate=True)) == 32  # the standard alphabet, padded
    assert response.headers["Location"] == f"http://localhost{NS}/webhooks/{body['id']}"
    again = hooks.post("/webhooks", "administrator", json={"url": TARGET, "events": ["*"]})
    assert again.json["secret"] != secret


def test_the_secret_is_never_shown_again(hooks: Api, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="calendar_rest")
    created = subscribe(hooks, TARGET)
    key = created["secret"].removeprefix("whsec_")
    path = f"/webhooks/{created['id']}"
    answers = [
        hooks.get(path, "administrator"),
        hooks.get("/webhooks", "administrator"),
        hooks.patch(path, "administrator", json={"events": ["tag.created"]}),
        hooks.put(path, "administrator", json={"url": "nope"}),
        hooks.get(f"{path}/deliveries", "administrator"),
        hooks.get(f"/fr{NS}{path}", "administrator"),
        hooks.request("OPTIONS", path, "administrator"),
        hooks.delete(path, "administrator"),
    ]
    for response in answers:
        text = response.get_data(as_text=True) + str(response.headers)
        assert key not in text and "whsec_" not in text, text
        assert "secret" not in (response.json or {}), text
    ours = [r.getMessage() for r in caplog.records if r.name.startswith("calendar_rest")]
    assert not any(key in line for line in ours)


def test_a_partial_update_replaces_only_the_fields_given(hooks: Api) -> None:
    created = subscribe(hooks, TARGET, ["venue.created", "tag.deleted"])
    path = f"/webhooks/{created['id']}"
    updated = hooks.patch(path, "administrator", json={"events": ["event.updated"]}).json
    assert updated["events"] == ["event.updated"]  # replaced, never merged
    assert updated["url"] == TARGET and updated["active"] is True
    updated = hooks.put(path, "administrator", json={"active": False}).json
    assert updated["active"] is False and updated["events"] == ["event.updated"]
    updated = hooks.post(path, "administrator", json={"url": "https://127.0.0.1/x"}).json
    assert updated["url"] == "https://127.0.0.1/x" and updated["active"] is False
    assert hooks.get(path, "administrator").json == updated


def test_a_delete_answers_the_previous_subscription_and_then_404(hooks: Api) -> None:
    created = subscribe(hooks, TARGET)
    path = f"/webhooks/{created['id']}"
    response = hooks.delete(path, "administrator")
    assert response.status_code == 200
    previous = {key: value for key, value in created.items() if key != "secret"}
    assert response.json == {"deleted": True, "previous": previous}
    assert_wp_error(hooks.get(path, "administrator"), 404, "rest_webhook_invalid_id")


@pytest.mark.parametrize(
    ("method", "suffix"),
    [("GET", ""), ("PATCH", ""), ("DELETE", ""), ("GET", "/deliveries")],
)
def test_an_unknown_id_is_rest_webhook_invalid_id(hooks: Api, method: str, suffix: str) -> None:
    for missing in (987654, 2**40):
        response = hooks.request(method, f"/webhooks/{missing}{suffix}", "administrator", json={})
        assert_wp_error(response, 404, "rest_webhook_invalid_id")


def test_lists_are_arrays_with_wordpress_totals_and_links(hooks: Api) -> None:
    ids = [subscribe(hooks, f"{TARGET}&n={n}")["id"] for n in range(3)]
    first = hooks.get("/webhooks?per_page=2", "administrator")
    assert [item["id"] for item in first.json] == ids[:2]
    assert first.headers["X-WP-Total"] == "3" and first.headers["X-WP-TotalPages"] == "2"
    assert 'rel="next"' in first.headers["Link"] and "page=2" in first.headers["Link"]
    second = hooks.get("/webhooks?per_page=2&page=2", "administrator")
    assert [item["id"] for item in second.json] == ids[2:]
    assert 'rel="prev"' in second.headers["Link"]
    deliveries = hooks.get(f"/webhooks/{ids[0]}/deliveries", "administrator")
    assert deliveries.status_code == 200 and deliveries.json == []
    assert deliveries.headers["X-WP-Total"] == "0"


# -- permissions -------------------------------------------------------------------------


@pytest.mark.parametrize("role", [role for role in ALL_ROLES if role != "administrator"])
def test_only_administrators_may_call_and_refusals_reveal_nothing(
    hooks: Api, app: Application, role: str | None
) -> None:
    existing = subscribe(hooks, TARGET)["id"]
    status = 401 if role is None else 403
    calls = [
        ("GET", "/webhooks", None),
        ("POST", "/webhooks", {"url": TARGET, "events": ["*"]}),
        ("POST", "/webhooks", {}),  # refused before it is validated
        ("POST", "/webhooks", {"url": "ftp://x", "events": "bogus"}),
    ]
    for record in (existing, 987654):
        calls += [
            ("GET", f"/webhooks/{record}", None),
            ("PATCH", f"/webhooks/{record}", {"active": False}),
            ("PUT", f"/webhooks/{record}", {"url": "not a url"}),
            ("POST", f"/webhooks/{record}", {"events": []}),
            ("DELETE", f"/webhooks/{record}", None),
            ("GET", f"/webhooks/{record}/deliveries", None),
        ]
    bodies = {}
    for method, path, body in calls:
        response = hooks.request(method, path, role, json=body)
        error = assert_wp_error(response, status, "rest_forbidden")
        bodies.setdefault((method, path.replace(str(existing), "ID").replace("987654", "ID")), [])
        bodies[(method, path.replace(str(existing), "ID").replace("987654", "ID"))].append(
            (error, response.headers.get("Allow"))
        )
    for answers in bodies.values():  # an existing and a missing ID answer alike
        assert all(answer == answers[0] for answer in answers)
    with app.database.connection_context():
        rows = list(WebhookSubscription.select())
    assert [(row.id, row.active, row.url) for row in rows] == [(existing, True, TARGET)]


def test_the_french_root_serves_the_same_routes(hooks: Api) -> None:
    created = hooks.post(
        f"/fr{NS}/webhooks", "administrator", json={"url": TARGET, "events": ["*"]}
    )
    assert created.status_code == 201
    assert created.headers["Location"].endswith(f"/fr{NS}/webhooks/{created.json['id']}")
    assert hooks.get(f"/fr{NS}/webhooks", "administrator").json[0]["id"] == created.json["id"]
    refused = hooks.get(f"/fr{NS}/webhooks", "editor")
    assert (
        refused.status_code == 403
        and refused.json["message"] != "Sorry, you are not allowed to do that."
    )


# -- validation --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "missing"),
    [({"events": ["*"]}, "url"), ({"url": TARGET}, "events"), ({}, "url, events")],
)
def test_a_create_without_a_required_field_is_refused(hooks: Api, body: Body, missing: str) -> None:
    response = hooks.post("/webhooks", "administrator", json=body)
    error = assert_wp_error(response, 400, "rest_missing_callback_param")
    assert missing in error["message"]


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"url": "ftp://example.com/x"}, "url"),
        ({"url": "/relative"}, "url"),
        ({"url": "http://user:pw@127.0.0.1/"}, "url"),
        ({"url": "http://@127.0.0.1/"}, "url"),
        ({"url": "http://127.0.0.1/" + "a" * 2040}, "url"),
        ({"url": "http://127.0.0.1:99999/"}, "url"),
        ({"url": "http://93.184.216.34:0/"}, "url"),
        ({"url": "http://93.184.216.34:00/"}, "url"),
        ({"url": "https://93.184.216.34:65536/"}, "url"),
        ({"url": "http://93.184.216.34:-1/"}, "url"),
        ({"url": "http://93.184.216.34:+80/"}, "url"),
        ({"url": 42}, "url"),
        ({"events": []}, "events"),
        ({"events": ["event.created", "event.renamed"]}, "events"),
        ({"events": [7]}, "events"),
        ({"active": "maybe"}, "active"),
    ],
)
def test_invalid_values_are_rest_invalid_param(hooks: Api, body: Body, param: str) -> None:
    full = {"url": TARGET, "events": ["*"], **body}
    error = assert_wp_error(
        hooks.post("/webhooks", "administrator", json=full), 400, "rest_invalid_param"
    )
    assert list(error["data"]["params"]) == [param]
    created = subscribe(hooks, TARGET)
    path = f"/webhooks/{created['id']}"
    assert_wp_error(hooks.patch(path, "administrator", json=body), 400, "rest_invalid_param")
    assert hooks.get(path, "administrator").json["url"] == TARGET


@pytest.mark.parametrize("port", ["0", "00", "65536", "70000"])
def test_a_public_address_on_an_unusable_port_is_refused(api: Api, port: str) -> None:
    """Where only public targets are allowed too: the address is public, the port is not
    one a connection can be made to."""
    url = f"http://{PUBLIC_IP}:{port}/hook"
    response = api.post("/webhooks", "administrator", json={"url": url, "events": ["*"]})
    error = assert_wp_error(response, 400, "rest_invalid_param")
    assert list(error["data"]["params"]) == ["url"]
    assert api.get("/webhooks", "administrator").json == []


@pytest.mark.parametrize("port", [1, 443, 8080, 65535])
def test_every_usable_port_is_accepted(hooks: Api, port: int) -> None:
    url = f"http://93.184.216.34:{port}/hook"
    assert subscribe(hooks, url)["url"] == url


def test_a_url_of_2048_characters_is_accepted(hooks: Api) -> None:
    url = "http://127.0.0.1/" + "a" * (2048 - len("http://127.0.0.1/"))
    assert subscribe(hooks, url)["url"] == url


# -- SSRF --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/hook",
        "http://localhost:8080/hook",
        "http://[::1]/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://10.1.2.3/",
        "http://192.168.0.10/",
        "http://172.16.0.1/",
        "http://100.64.0.1/",
        "http://0.0.0.0/",
        "http://224.0.0.1/",
        "http://240.0.0.1/",
        "http://[fd00::1]/",
        "http://[fe80::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://2130706433/",
        "http://no-such-host.invalid/",
    ],
)
def test_private_targets_are_refused_by_default(api: Api, url: str) -> None:
    response = api.post("/webhooks", "administrator", json={"url": url, "events": ["*"]})
    error = assert_wp_error(response, 400, "rest_invalid_param")
    assert list(error["data"]["params"]) == ["url"]


def test_loopback_is_allowed_with_the_setting_and_public_hosts_always(
    api: Api, hooks: Api, public_dns: None
) -> None:
    assert subscribe(hooks, "http://127.0.0.1:8080/hook")["url"] == "http://127.0.0.1:8080/hook"
    created = subscribe(api, "https://hooks.example.com/in")
    path = f"/webhooks/{created['id']}"
    refused = api.patch(path, "administrator", json={"url": "http://127.0.0.1/"})
    assert_wp_error(refused, 400, "rest_invalid_param")
    assert api.get(path, "administrator").json["url"] == "https://hooks.example.com/in"


def test_the_address_rules() -> None:
    import ipaddress

    public = ["93.184.216.34", "2606:4700::1111", "8.8.8.8"]
    refused = [
        "127.0.0.1",
        "10.0.0.1",
        "172.31.255.255",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "100.127.255.255",
        "0.0.0.0",
        "224.0.0.1",
        "255.255.255.255",
        "240.0.0.1",
        "::1",
        "::",
        "fc00::1",
        "fe80::1",
        "ff02::1",
        "::ffff:10.0.0.1",
        "::ffff:127.0.0.1",
        "64:ff9b::7f00:1",
        "2002:7f00:1::1",  # 6to4 of 127.0.0.1
    ]
    assert all(ssrf.is_public(ipaddress.ip_address(address)) for address in public)
    assert not any(ssrf.is_public(ipaddress.ip_address(address)) for address in refused)


# -- the outbox --------------------------------------------------------------------------


def test_one_event_create_enqueues_exactly_one_event_created(hooks: Api, app: Application) -> None:
    """Depends on the change log recording event writes."""
    everything = subscribe(hooks, TARGET, ["*"])
    created_only = subscribe(hooks, TARGET, ["event.created", "*"])
    venues_only = subscribe(hooks, TARGET, ["venue.created"])
    assert messages(app) == []  # subscription writes produce no messages
    event = hooks.create_event(title="Jazz night")
    for subscription in (everything, created_only):
        queued = messages(app, subscription["id"])
        assert [(m.type, m.state) for m in queued] == [("event.created", "pending")]
        assert queued[0].message_id.startswith("msg_")
    assert messages(app, venues_only["id"]) == []
    body = payload(messages(app, everything["id"])[0])
    assert body["type"] == "event.created"
    assert body["data"]["id"] == event["id"] and body["data"]["type"] == "event"
    assert body["data"]["action"] == "upsert"
    assert body["data"]["rest_url"] == f"http://localhost{NS}/events/{event['id']}"
    public = hooks.get(f"/events/{event['id']}").json
    assert body["data"]["record"] == public
    assert body["timestamp"].endswith("Z")
    keys = {m.message_id for m in messages(app)}
    assert len(keys) == 2


def test_venue_and_term_writes_enqueue_their_types(hooks: Api, app: Application) -> None:
    subscription = subscribe(hooks, TARGET, ["venue.created", "venue.deleted"])
    tags = subscribe(hooks, TARGET, ["tag.created", "tag.updated", "tag.deleted"])
    venue = hooks.post("/venues", "editor", json={"venue": "Blue Hall"}).json
    public_venue = hooks.get(f"/venues/{venue['id']}").json
    tag = hooks.post("/tags", "editor", json={"name": "Jazz"}).json
    hooks.patch(f"/tags/{tag['id']}", "editor", json={"description": "Swing"})
    hooks.delete(f"/tags/{tag['id']}", "editor")
    hooks.delete(f"/venues/{venue['id']}", "editor")
    assert [m.type for m in messages(app, subscription["id"])] == [
        "venue.created",
        "venue.deleted",
    ]
    assert [m.type for m in messages(app, tags["id"])] == [
        "tag.created",
        "tag.updated",
        "tag.deleted",
    ]
    created = payload(messages(app, subscription["id"])[0])
    assert created["data"]["record"] == public_venue
    trashed = payload(messages(app, subscription["id"])[1])
    assert trashed["data"] == {
        "id": venue["id"],
        "type": "venue",
        "action": "delete",
        "rest_url": f"http://localhost{NS}/venues/{venue['id']}",
    }
    updated = payload(messages(app, tags["id"])[1])
    assert updated["data"]["record"]["description"] == "Swing"
    deleted = payload(messages(app, tags["id"])[2])
    assert deleted["data"]["action"] == "delete" and "record" not in deleted["data"]


def test_a_private_record_travels_without_content(hooks: Api, app: Application) -> None:
    subscribe(hooks, TARGET, ["*"])
    venue = hooks.post(
        "/venues",
        "editor",
        json={"venue": "Secret bunker", "status": "draft", "description": "Hidden words"},
    ).json
    (message,) = messages(app)
    raw = bytes(message.payload)
    for hidden in (b"Secret bunker", b"Hidden words", venue["slug"].encode(), b"post_type"):
        assert hidden not in raw
    assert payload(message)["data"] == {
        "id": venue["id"],
        "type": "venue",
        "action": "delete",
        "rest_url": f"http://localhost{NS}/venues/{venue['id']}",
    }


def test_a_draft_event_message_carries_no_content(hooks: Api, app: Application) -> None:
    """Depends on the change log recording event writes."""
    subscribe(hooks, TARGET, ["event.created"])
    event = hooks.create_event(title="Surprise party", status="draft", description="Shh")
    (message,) = messages(app)
    raw = bytes(message.payload)
    assert b"Surprise" not in raw and b"Shh" not in raw and event["slug"].encode() not in raw
    assert payload(message)["data"]["action"] == "delete"


def test_no_backlog_and_deactivation_drops_pending(hooks: Api, app: Application) -> None:
    hooks.post("/tags", "editor", json={"name": "Before"})
    subscription = subscribe(hooks, TARGET, ["*"])
    assert messages(app) == []  # changes committed before the subscription: none
    hooks.post("/tags", "editor", json={"name": "After"})
    assert [m.state for m in messages(app)] == ["pending"]
    path = f"/webhooks/{subscription['id']}"
    hooks.patch(path, "administrator", json={"active": False})
    assert [m.state for m in messages(app)] == ["dropped"]
    hooks.post("/tags", "editor", json={"name": "While inactive"})
    assert len(messages(app)) == 1
    hooks.patch(path, "administrator", json={"active": True})
    hooks.post("/tags", "editor", json={"name": "Resumed"})
    assert [m.state for m in messages(app)] == ["dropped", "pending"]
    hooks.delete(path, "administrator")
    assert messages(app) == []


def test_payload_urls_use_the_default_root_and_site_url(api: Api, sibling_app: Build) -> None:
    french = api_for(sibling_app(webhook_allow_private=True), api)
    subscribe(french, TARGET, ["tag.created"])
    tag = french.post(f"/fr{NS}/tags", "editor", json={"name": "Chanson"}).json
    (message,) = messages(french.app)
    assert payload(message)["data"]["rest_url"] == f"http://localhost{NS}/tags/{tag['id']}"
    site = api_for(sibling_app(webhook_allow_private=True, site_url="https://cal.example.org"), api)
    other = site.post("/tags", "editor", json={"name": "Jazz"}).json
    rest_url = payload(messages(site.app)[-1])["data"]["rest_url"]
    assert rest_url == f"https://cal.example.org/{NS.lstrip('/')}/tags/{other['id']}"


# -- the response cache, the documents, the settings ------------------------------------


def test_webhook_answers_are_never_cached(hooks: Api, app: Application) -> None:
    created = subscribe(hooks, TARGET)
    path = f"/webhooks/{created['id']}"
    assert hooks.get(path, "administrator").json["active"] is True
    with app.database.connection_context():  # a worker's write: no generation bump
        WebhookSubscription.update(active=False, disabled_reason="endpoint answered 410").execute()
    for _ in range(2):
        body = hooks.get(path, "administrator").json
        assert body["active"] is False and body["disabled_reason"] == "endpoint answered 410"
        assert hooks.get("/webhooks", "administrator").json[0]["active"] is False


def test_the_index_and_the_document_describe_the_webhook_routes(api: Api) -> None:
    for root in ("", "/fr"):
        routes = api.client.get(f"{root}{NS}").json["routes"]
        for key in (
            f"{NS}/webhooks",
            f"{NS}/webhooks/(?P<id>\\d+)",
            f"{NS}/webhooks/(?P<id>\\d+)/deliveries",
        ):
            assert key.lstrip("/") in {route.lstrip("/") for route in routes}, key
    doc = api.client.get(f"{NS}/doc").json
    ids = {
        operation["operationId"]: operation
        for item in doc["paths"].values()
        for operation in item.values()
    }
    for name in (
        "get_webhooks_collection",
        "post_webhooks_collection",
        "get_webhooks_item",
        "put_webhooks_item",
        "patch_webhooks_item",
        "delete_webhooks_item",
        "get_webhooks_deliveries",
    ):
        assert ids[name]["tags"][0] == "webhooks"
        assert {} not in ids[name]["security"]  # never anonymous
    assert "201" in ids["post_webhooks_collection"]["responses"]


def test_the_webhook_settings_are_validated() -> None:
    assert Settings.build(
        environ={"CALENDAR_REST_WEBHOOK_ALLOW_PRIVATE": "yes"}
    ).webhook_allow_private
    assert not Settings.build(environ={}).webhook_allow_private
    defaults = Settings.build(environ={})
    assert (defaults.webhook_timeout, defaults.webhook_concurrency) == (15, 4)
    assert defaults.sync_retention_days == 30
    for bad in ({"webhook_timeout": 0}, {"webhook_timeout": 31}, {"webhook_concurrency": 0}):
        with pytest.raises(ValueError):
            Settings.build(environ={}, **bad)
    with pytest.raises(ValueError):
        Settings.build(environ={"CALENDAR_REST_SYNC_RETENTION_DAYS": "0"})
    with pytest.raises(ValueError):
        Settings.build(environ={"CALENDAR_REST_WEBHOOK_ALLOW_PRIVATE": "maybe"})


def test_each_event_of_a_series_write_travels_as_its_item_route_answers(
    api: Api, hooks: Api, app: Application, sql_statements: list[str]
) -> None:
    """A series write's events are read and rendered together, and its messages inserted
    together: each payload is still exactly what an anonymous ``GET`` of the event
    answers after the write, and the statements do not grow with the occurrences."""
    subscribe(hooks, TARGET, ["*"])
    subscribe(hooks, TARGET, ["event.created"])
    venue = api.post("/venues", "editor", json={"venue": "Hall"}).json
    start = dt.date.today() + dt.timedelta(days=3)
    sizes = []
    for count in (3, 30):
        sent = len(messages(app))
        sql_statements.clear()
        response = api.post(
            "/events",
            "editor",
            json={
                "title": f"Weekly {count}",
                "start_date": f"{start} 19:00:00",
                "end_date": f"{start} 21:00:00",
                "venue": venue["id"],
                "organizer": [{"organizer": f"Trio {count}"}],
                "categories": ["Jazz"],
                "recurrence": [f"RRULE:FREQ=DAILY;COUNT={count}"],
            },
        )
        assert response.status_code == 201, response.get_data(as_text=True)
        sizes.append(len(sql_statements))
        created = [payload(m) for m in messages(app)[sent:] if m.type == "event.created"]
        assert len(created) == 2 * count  # both subscriptions, every event
        for message in created:
            record = message["data"]["record"]
            assert record == api.get(f"/events/{message['data']['id']}").json
    assert sizes[1] <= sizes[0], sizes  # the first write also created the category
