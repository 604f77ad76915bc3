"""Who may do what to which event: a role x operation matrix, denials included.

Roles are WordPress's (``ANONYMOUS`` is a caller without credentials); ``contributor2``
and ``author2`` are the "somebody else" of ownership checks. Records are made through
the API by their owner (see ``make_event``), so every case starts from what a real
client could have produced. Where we deliberately differ from TEC 6.0.8, the tables say
what we do: contributors and authors do not list other people's drafts, ownership is
enforced on by-slug writes too, and a trashed event is unavailable to everyone.

Each table has one row per case; the test ID is generated from the row as a sentence.
"""

from __future__ import annotations

import base64
import typing as t

import pytest
from conftest import ALL_ROLES, ANONYMOUS, Api, Role, assert_wp_error
from werkzeug.test import TestResponse

PUBLISHERS = ("author", "author2", "editor", "administrator")
MISSING_ID = 999_999
PASSWORD = "open sesame"

#: what a caller without the password sees of a protected event (events.md §3.8)
REDACTED: dict[str, t.Any] = {
    "description": "",
    "excerpt": "",
    "image": False,
    "all_day": None,
    "cost": "",
    "cost_details": {
        "currency_symbol": "",
        "currency_position": "",
        "currency_code": "",
        "values": [],
    },
    "website": "",
    "show_map": None,
    "show_map_link": None,
    "hide_from_listings": None,
    "sticky": None,
    "featured": None,
    "categories": [],
    "tags": [],
    "venue": [],
    "organizer": [],
}


def who(role: Role) -> str:
    return "anonymous" if role is None else role


def rows(table: t.Iterable[tuple[t.Any, ...]], sentence: t.Callable[..., str]) -> list[t.Any]:
    """The table's rows as ``pytest.param``s, each named by ``sentence(*row)``."""
    return [pytest.param(*row, id=sentence(*row)) for row in table]


def outcome(status: int, code: str | None = None) -> str:
    return f"{status} {code}" if code else str(status)


def make_event(api: Api, owner: str, status: str, **fields: t.Any) -> dict[str, t.Any]:
    """An event owned by ``owner`` in ``status``, made the way a client would.

    Publishers create it in that status. Contributors cannot publish: their drafts are
    created as such, a requested ``publish`` gives ``pending``, and a published one is
    published by the editor afterwards (the author stays the contributor). A ``future``
    event is a publisher's publication dated in the future. Trashed
    events are created (published, or a draft for contributors) and deleted by their
    owner.
    """
    title = fields.pop("title", f"{owner} {status}")
    if status == "trash":
        first = "draft" if owner.startswith("contributor") else "publish"
        event = make_event(api, owner, first, title=title, **fields)
        trashed = api.delete(f"/events/{event['id']}", owner)
        assert trashed.status_code == 200, trashed.get_data(as_text=True)
        return t.cast(dict[str, t.Any], trashed.json)
    if status == "future":  # WordPress schedules a publication dated in the future
        fields.setdefault("date", "2030-01-01 10:00:00")
        event = api.create_event(as_=owner, title=title, status="publish", **fields)
    elif owner in PUBLISHERS:
        event = api.create_event(as_=owner, title=title, status=status, **fields)
    elif status == "publish":
        draft = api.create_event(as_=owner, title=title, **fields)
        response = api.patch(f"/events/{draft['id']}", "editor", json={"status": "publish"})
        assert response.status_code == 200, response.get_data(as_text=True)
        event = t.cast(dict[str, t.Any], response.json)
    else:
        requested = "publish" if status == "pending" else status
        event = api.create_event(as_=owner, title=title, status=requested, **fields)
    assert event["status"] == status, event
    assert event["author"] == str(api.users[owner].id), event
    return event


def send(
    api: Api, method: str, event: dict[str, t.Any], by: str, role: Role, **kwargs: t.Any
) -> TestResponse:
    """``method`` on the event, addressed by its ``id`` or by its ``slug``."""
    path = f"/events/{event['id']}" if by == "id" else f"/events/by-slug/{event['slug']}"
    return api.request(method, path, role, **kwargs)


BY_ID_AND_BY_SLUG = pytest.mark.parametrize("by", ["id", "slug"], ids=["by id", "by slug"])


# -- listing ------------------------------------------------------------------------

# fmt: off
#: the records of the listing world: title → (owner, status)
WORLD: dict[str, tuple[str, str]] = {
    "admin published":       ("administrator", "publish"),
    "admin draft":           ("administrator", "draft"),
    "admin private":         ("administrator", "private"),
    "editor pending":        ("editor",        "pending"),
    "author published":      ("author",        "publish"),
    "author draft":          ("author",        "draft"),
    "author private":        ("author",        "private"),
    "author2 draft":         ("author2",       "draft"),
    "author2 future":        ("author2",       "future"),
    "contributor published": ("contributor",   "publish"),
    "contributor draft":     ("contributor",   "draft"),
    "contributor pending":   ("contributor",   "pending"),
    "contributor2 draft":    ("contributor2",  "draft"),
    "admin trashed":         ("administrator", "trash"),
    "contributor trashed":   ("contributor",   "trash"),
}
# fmt: on
PUBLISHED = {"admin published", "author published", "contributor published"}
ALL_BUT_TRASH = {title for title, (_, status) in WORLD.items() if status != "trash"}

# fmt: off
LISTING_CASES = [
    # role            the titles the default listing shows
    (ANONYMOUS,       PUBLISHED),
    ("subscriber",    PUBLISHED),
    ("contributor",   PUBLISHED | {"contributor draft", "contributor pending"}),
    ("contributor2",  PUBLISHED | {"contributor2 draft"}),
    ("author",        PUBLISHED | {"author draft", "author private"}),
    ("author2",       PUBLISHED | {"author2 draft", "author2 future"}),
    ("editor",        ALL_BUT_TRASH),
    ("administrator", ALL_BUT_TRASH),
]
# fmt: on


def listing_sentence(role: Role, sees: set[str]) -> str:
    if sees == PUBLISHED:
        return f"{who(role)} lists published events only"
    if sees == ALL_BUT_TRASH:
        return f"{who(role)} lists every event but trash"
    return f"{who(role)} lists published events and their own others cannot see"


@pytest.mark.parametrize(("role", "sees"), rows(LISTING_CASES, listing_sentence))
def test_the_default_listing_shows_each_role_what_it_may_read(
    api: Api, role: Role, sees: set[str]
) -> None:
    for title, (owner, status) in WORLD.items():
        make_event(api, owner, status, title=title)

    response = api.get("/events", role, query_string={"per_page": 50})

    assert response.status_code == 200, response.get_data(as_text=True)
    body = t.cast(dict[str, t.Any], response.json)
    assert sorted(event["title"] for event in body["events"]) == sorted(sees)
    assert body["total"] == len(sees)


# -- create -------------------------------------------------------------------------

VALID = {
    "title": "Permissions party",
    "start_date": "2030-06-01 19:00:00",
    "end_date": "2030-06-01 21:00:00",
}
BODIES: dict[str, dict[str, t.Any]] = {
    "a valid body": VALID,
    "an empty body": {},
    "an invalid start_date": {**VALID, "start_date": "not a date"},
}

# fmt: off
# an anonymous write is refused before its body is read (security.md C1); a logged-in
# caller gets WordPress's order, invalid parameters before the permission
CREATE_REFUSALS = [
    # role          body                     status  code
    (ANONYMOUS,     "a valid body",          401,    "rest_forbidden"),
    (ANONYMOUS,     "an empty body",         401,    "rest_forbidden"),
    (ANONYMOUS,     "an invalid start_date", 401,    "rest_forbidden"),
    ("subscriber",  "a valid body",          403,    "rest_forbidden"),
    ("subscriber",  "an empty body",         400,    "rest_missing_callback_param"),
    ("subscriber",  "an invalid start_date", 400,    "rest_invalid_param"),
]
# fmt: on


@pytest.mark.parametrize(
    ("role", "body", "status", "code"),
    rows(CREATE_REFUSALS, lambda r, b, s, c: f"{who(r)} posting {b} gets {outcome(s, c)}"),
)
def test_creating_is_refused_to_callers_who_may_not_write_after_validation(
    api: Api, role: Role, body: str, status: int, code: str
) -> None:
    assert_wp_error(api.post("/events", role, json=BODIES[body]), status, code)
    assert api.get("/events", "administrator").json["total"] == 0


# fmt: off
CREATE_STATUSES = [
    # role            requested   stored
    ("contributor",   None,       "draft"),
    ("contributor",   "publish",  "pending"),
    ("contributor",   "future",   "pending"),
    ("contributor",   "pending",  "pending"),
    ("contributor",   "draft",    "draft"),
    ("contributor",   "private",  "private"),
    ("author",        None,       "publish"),
    ("author",        "draft",    "draft"),
    ("author",        "private",  "private"),
    ("editor",        None,       "publish"),
    ("editor",        "pending",  "pending"),
    ("administrator", None,       "publish"),
]
# fmt: on


@pytest.mark.parametrize(
    ("role", "requested", "stored"),
    rows(CREATE_STATUSES, lambda r, q, s: f"{r} asking for {q or 'no status'} gets {s}"),
)
def test_creating_gives_the_status_the_role_may_set(
    api: Api, role: str, requested: str | None, stored: str
) -> None:
    body = VALID if requested is None else {**VALID, "status": requested}

    response = api.post("/events", role, json=body)

    assert response.status_code == 201, response.get_data(as_text=True)
    assert response.json["status"] == stored
    assert response.json["author"] == str(api.users[role].id)


# -- single read --------------------------------------------------------------------

# fmt: off
READ_CASES = [
    # reader          owner            status     HTTP  code
    *[(role,          "administrator", "publish", 200,  None) for role in ALL_ROLES],
    (ANONYMOUS,       "contributor",   "draft",   403,  "event-not-accessible"),
    ("subscriber",    "contributor",   "draft",   403,  "event-not-accessible"),
    ("contributor",   "contributor",   "draft",   200,  None),
    ("contributor",   "contributor",   "pending", 200,  None),
    ("contributor2",  "contributor",   "draft",   403,  "event-not-accessible"),
    ("contributor",   "administrator", "draft",   403,  "event-not-accessible"),
    ("author",        "author",        "draft",   200,  None),
    ("author2",       "author",        "draft",   403,  "event-not-accessible"),
    ("author",        "contributor",   "pending", 403,  "event-not-accessible"),
    ("editor",        "contributor",   "draft",   200,  None),
    ("editor",        "author",        "pending", 200,  None),
    ("administrator", "editor",        "draft",   200,  None),
    (ANONYMOUS,       "author",        "private", 403,  "event-not-accessible"),
    ("subscriber",    "author",        "private", 403,  "event-not-accessible"),
    ("contributor",   "author",        "private", 403,  "event-not-accessible"),
    ("author",        "author",        "private", 200,  None),
    ("author2",       "author",        "private", 403,  "event-not-accessible"),
    ("editor",        "author",        "private", 200,  None),
    ("administrator", "author",        "private", 200,  None),
    (ANONYMOUS,       "author",        "future",  403,  "event-not-accessible"),
    ("subscriber",    "author",        "future",  403,  "event-not-accessible"),
    ("author",        "author",        "future",  200,  None),
    ("author2",       "author",        "future",  403,  "event-not-accessible"),
    ("editor",        "author",        "future",  200,  None),
    *[(role,          "administrator", "trash",   403,  "event-no-longer-available")
      for role in ALL_ROLES],
    ("author",        "author",        "trash",   403,  "event-no-longer-available"),
    ("contributor",   "contributor",   "trash",   403,  "event-no-longer-available"),
]
# fmt: on


def read_sentence(reader: Role, owner: str, status: str, http: int, code: str | None) -> str:
    return f"{who(reader)} reading {owner}'s {status} event gets {outcome(http, code)}"


@pytest.mark.parametrize(
    ("reader", "owner", "status", "http", "code"), rows(READ_CASES, read_sentence)
)
def test_reading_one_event_depends_on_its_status_and_owner(
    api: Api, reader: Role, owner: str, status: str, http: int, code: str | None
) -> None:
    event = make_event(api, owner, status)

    response = api.get(f"/events/{event['id']}", reader)

    if code is None:
        assert response.status_code == http, response.get_data(as_text=True)
        assert response.json["id"] == event["id"]
        assert "json_ld" in response.json
    else:
        assert_wp_error(response, http, code)


# fmt: off
READ_BY_SLUG_CASES = [
    # reader          owner            status     HTTP  code
    (ANONYMOUS,       "contributor",   "publish", 200,  None),
    (ANONYMOUS,       "contributor",   "draft",   403,  "event-not-accessible"),
    ("contributor",   "contributor",   "draft",   200,  None),
    ("contributor2",  "contributor",   "draft",   403,  "event-not-accessible"),
    ("author2",       "author",        "private", 403,  "event-not-accessible"),
    ("editor",        "author",        "private", 200,  None),
]
# fmt: on


@pytest.mark.parametrize(
    ("reader", "owner", "status", "http", "code"), rows(READ_BY_SLUG_CASES, read_sentence)
)
def test_reading_by_slug_applies_the_same_rules(
    api: Api, reader: Role, owner: str, status: str, http: int, code: str | None
) -> None:
    event = make_event(api, owner, status)

    response = api.get(f"/events/by-slug/{event['slug']}", reader)

    if code is None:
        assert response.status_code == http, response.get_data(as_text=True)
        assert response.json["id"] == event["id"]
    else:
        assert_wp_error(response, http, code)


# -- update and delete --------------------------------------------------------------

# fmt: off
#: shared by update and delete: 401/403 are ``rest_forbidden``
OWNERSHIP_CASES = [
    # actor           owner            status     HTTP
    (ANONYMOUS,       "administrator", "publish", 401),
    (ANONYMOUS,       "contributor",   "draft",   401),
    ("subscriber",    "administrator", "publish", 403),
    ("subscriber",    "contributor",   "draft",   403),
    ("contributor",   "contributor",   "draft",   200),
    ("contributor",   "contributor",   "pending", 200),
    ("contributor",   "contributor",   "publish", 403),
    ("contributor",   "contributor2",  "draft",   403),
    ("contributor",   "administrator", "publish", 403),
    ("author",        "author",        "draft",   200),
    ("author",        "author",        "publish", 200),
    ("author",        "author",        "private", 200),
    ("author",        "author2",       "draft",   403),
    ("author",        "author2",       "publish", 403),
    ("author",        "contributor",   "pending", 403),
    ("author",        "author",        "future",  200),
    ("author2",       "author",        "future",  403),
    ("editor",        "contributor",   "draft",   200),
    ("editor",        "author",        "publish", 200),
    ("editor",        "author",        "private", 200),
    ("editor",        "author",        "future",  200),
    ("editor",        "administrator", "publish", 200),
    ("administrator", "editor",        "publish", 200),
    ("administrator", "contributor",   "pending", 200),
    ("administrator", "author",        "private", 200),
]
# fmt: on


def ownership_sentence(actor: Role, owner: str, status: str, http: int) -> str:
    verdict = "may" if http == 200 else f"may not ({http})"
    return f"{who(actor)} {verdict} write {owner}'s {status} event"


OWNERSHIP = pytest.mark.parametrize(
    ("actor", "owner", "status", "http"), rows(OWNERSHIP_CASES, ownership_sentence)
)


def assert_updated_or_refused(
    api: Api, response: TestResponse, event: dict[str, t.Any], status: str, http: int
) -> None:
    """200 with the change and the owner kept, or ``rest_forbidden`` and nothing changed."""
    if http == 200:
        assert response.status_code == 200, response.get_data(as_text=True)
        assert response.json["title"] == "Renamed"
        assert response.json["status"] == status
        assert response.json["author"] == event["author"]
    else:
        assert_wp_error(response, http, "rest_forbidden")
        stored = api.get(f"/events/{event['id']}", "administrator").json
        assert stored["title"] == event["title"]


@BY_ID_AND_BY_SLUG
@OWNERSHIP
def test_updating_an_event_needs_the_right_to_edit_that_record(
    api: Api, by: str, actor: Role, owner: str, status: str, http: int
) -> None:
    event = make_event(api, owner, status)

    response = send(api, "PATCH", event, by, actor, json={"title": "Renamed"})

    assert_updated_or_refused(api, response, event, status, http)


# fmt: off
EDIT_METHOD_CASES = [
    # actor           owner            status     HTTP
    (ANONYMOUS,       "contributor",   "draft",   401),
    ("subscriber",    "contributor",   "draft",   403),
    ("contributor",   "contributor",   "draft",   200),
    ("contributor",   "contributor2",  "draft",   403),
    ("author",        "author",        "publish", 200),
    ("author",        "author2",       "publish", 403),
    ("editor",        "author",        "publish", 200),
]
# fmt: on


@BY_ID_AND_BY_SLUG
@pytest.mark.parametrize("method", ["POST", "PUT"])
@pytest.mark.parametrize(
    ("actor", "owner", "status", "http"), rows(EDIT_METHOD_CASES, ownership_sentence)
)
def test_post_and_put_updates_check_ownership_like_patch(
    api: Api, by: str, method: str, actor: Role, owner: str, status: str, http: int
) -> None:
    event = make_event(api, owner, status)

    response = send(api, method, event, by, actor, json={"title": "Renamed"})

    assert_updated_or_refused(api, response, event, status, http)


@BY_ID_AND_BY_SLUG
@OWNERSHIP
def test_deleting_an_event_needs_the_right_to_delete_that_record(
    api: Api, by: str, actor: Role, owner: str, status: str, http: int
) -> None:
    event = make_event(api, owner, status)

    response = send(api, "DELETE", event, by, actor)

    if http == 200:
        assert response.status_code == 200, response.get_data(as_text=True)
        assert response.json["status"] == "trash"
        assert response.json["slug"] == f"{event['slug']}__trashed"
        assert response.json["author"] == event["author"]
    else:
        assert_wp_error(response, http, "rest_forbidden")
        assert api.get(f"/events/{event['id']}", "administrator").json["status"] == status


# fmt: off
MISSING_ID_CASES = [
    # actor           HTTP  code
    (ANONYMOUS,       401,  "rest_forbidden"),
    ("subscriber",    403,  "rest_forbidden"),
    ("contributor",   404,  "rest-event-not-found"),
    ("administrator", 404,  "rest-event-not-found"),
]
# fmt: on


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
@pytest.mark.parametrize(
    ("actor", "http", "code"),
    rows(MISSING_ID_CASES, lambda a, h, c: f"{who(a)} gets {outcome(h, c)}"),
)
def test_writing_to_a_missing_event_id_checks_permission_before_the_404(
    api: Api, method: str, actor: Role, http: int, code: str
) -> None:
    kwargs = {} if method == "DELETE" else {"json": {"title": "x"}}

    response = api.request(method, f"/events/{MISSING_ID}", actor, **kwargs)

    body = assert_wp_error(response, http, code)
    if code == "rest-event-not-found":
        assert body["message"] == f"Event with ID {MISSING_ID} does not exist."


@pytest.mark.parametrize("actor", [ANONYMOUS, "contributor"], ids=who)
@pytest.mark.parametrize("method", ["PATCH", "DELETE"])
def test_writing_to_an_unknown_slug_is_an_invalid_slug_for_everyone(
    api: Api, method: str, actor: Role
) -> None:
    response = api.request(method, "/events/by-slug/no-such-event", actor, json={"title": "x"})

    body = assert_wp_error(response, 400, "rest_invalid_param")
    assert list(body["data"]["params"]) == ["slug"]


@BY_ID_AND_BY_SLUG
@pytest.mark.parametrize("actor", [ANONYMOUS, "subscriber"], ids=who)
def test_an_invalid_update_is_refused_before_the_permission_check(
    api: Api, by: str, actor: Role
) -> None:
    """Except for anonymous callers, refused before their body is read (security.md C1)."""
    event = make_event(api, "administrator", "publish")

    response = send(api, "PATCH", event, by, actor, json={"start_date": "not a date"})

    if actor is ANONYMOUS:
        assert_wp_error(response, 401, "rest_forbidden")
    else:
        body = assert_wp_error(response, 400, "rest_invalid_param")
        assert list(body["data"]["params"]) == ["start_date"]


@BY_ID_AND_BY_SLUG
def test_trashing_twice_is_410_by_id_and_an_unknown_slug_by_slug(api: Api, by: str) -> None:
    event = make_event(api, "author", "publish")

    first = send(api, "DELETE", event, by, "author")
    again = send(api, "DELETE", event, by, "author")

    assert first.status_code == 200, first.get_data(as_text=True)
    assert first.json["status"] == "trash"
    assert first.json["slug"] == f"{event['slug']}__trashed"
    if by == "id":
        assert_wp_error(again, 410, "event-is-in-trash")
    else:
        assert_wp_error(again, 400, "rest_invalid_param")
    by_id_again = api.delete(f"/events/{event['id']}", "administrator")
    assert_wp_error(by_id_again, 410, "event-is-in-trash")


# fmt: off
CONTRIBUTOR_UPDATES = [
    # requested   stored
    ("publish",   "pending"),
    ("future",    "pending"),
    ("pending",   "pending"),
    ("draft",     "draft"),
]
# fmt: on


@BY_ID_AND_BY_SLUG
@pytest.mark.parametrize(
    ("requested", "stored"), rows(CONTRIBUTOR_UPDATES, lambda q, s: f"{q} becomes {s}")
)
def test_a_contributor_cannot_publish_their_draft_by_updating_it(
    api: Api, by: str, requested: str, stored: str
) -> None:
    event = make_event(api, "contributor", "draft")

    response = send(api, "PATCH", event, by, "contributor", json={"status": requested})

    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.json["status"] == stored


def test_an_editor_publishing_a_contributors_draft_keeps_the_contributor_as_author(
    api: Api,
) -> None:
    draft = make_event(api, "contributor", "draft")

    response = api.patch(f"/events/{draft['id']}", "editor", json={"status": "publish"})

    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.json["status"] == "publish"
    assert response.json["author"] == str(api.users["contributor"].id)


# -- changing the author ------------------------------------------------------------

# fmt: off
CREATE_IN_A_NAME = [
    # actor           author named      HTTP
    ("contributor",   "contributor2",   403),
    ("contributor",   "contributor",    201),
    ("author",        "author2",        403),
    ("author",        "author",         201),
    ("editor",        "author",         201),
    ("administrator", "contributor",    201),
]
# fmt: on


@pytest.mark.parametrize(
    ("actor", "named", "http"),
    rows(CREATE_IN_A_NAME, lambda a, n, h: f"{a} creating as {n} gets {h}"),
)
def test_creating_in_someone_elses_name_needs_an_editor(
    api: Api, actor: str, named: str, http: int
) -> None:
    response = api.post("/events", actor, json={**VALID, "author": api.users[named].id})

    if http == 201:
        assert response.status_code == 201, response.get_data(as_text=True)
        assert response.json["author"] == str(api.users[named].id)
    else:
        assert_wp_error(response, http, "rest_forbidden")
        assert api.get("/events", "administrator").json["total"] == 0


# fmt: off
CHANGE_AUTHOR = [
    # actor           owner           new author      HTTP
    ("author",        "author",       "author2",      403),
    ("contributor",   "contributor",  "contributor2", 403),
    ("author",        "author",       "author",       200),
    ("editor",        "author",       "author2",      200),
    ("administrator", "contributor",  "editor",       200),
]
# fmt: on


@BY_ID_AND_BY_SLUG
@pytest.mark.parametrize(
    ("actor", "owner", "new_author", "http"),
    rows(CHANGE_AUTHOR, lambda a, o, n, h: f"{a} giving {o}'s draft to {n} gets {h}"),
)
def test_changing_the_author_of_an_event_needs_an_editor(
    api: Api, by: str, actor: str, owner: str, new_author: str, http: int
) -> None:
    event = make_event(api, owner, "draft")

    response = send(api, "PATCH", event, by, actor, json={"author": api.users[new_author].id})

    if http == 200:
        assert response.status_code == 200, response.get_data(as_text=True)
        assert response.json["author"] == str(api.users[new_author].id)
    else:
        assert_wp_error(response, http, "rest_forbidden")
        stored = api.get(f"/events/{event['id']}", "administrator").json
        assert stored["author"] == event["author"]


# -- password-protected events ------------------------------------------------------


def protected_event(api: Api) -> dict[str, t.Any]:
    """A published, password-protected event owned by the editor, with everything set."""
    return make_event(
        api,
        "editor",
        "publish",
        title="Secret gig",
        password=PASSWORD,
        description="The band plays in the cellar.",
        excerpt="A cellar gig",
        cost="15",
        website="https://secret.example",
        categories=["Music"],
        tags=["Cellar"],
        venue={"venue": "The Cellar", "city": "Springfield"},
        organizer=[{"organizer": "Alice Events"}],
        featured=True,
    )


#: what the reader adds to the request, by name
QUERIES: dict[str, dict[str, str]] = {
    "nothing": {},
    "the password": {"password": PASSWORD},
    "a wrong password": {"password": "wrong"},
    "the edit context": {"context": "edit"},
}

# fmt: off
PROTECTED_READS = [
    # reader          adding              HTTP  code
    (ANONYMOUS,       "nothing",          403,  "event-password-protected"),
    (ANONYMOUS,       "a wrong password", 403,  "event-password-protected"),
    (ANONYMOUS,       "the password",     200,  None),
    (ANONYMOUS,       "the edit context", 403,  "event-password-protected"),
    ("subscriber",    "the edit context", 403,  "event-password-protected"),
    ("author",        "nothing",          403,  "event-password-protected"),
    ("author",        "the edit context", 403,  "event-password-protected"),
    ("author",        "the password",     200,  None),
    ("editor",        "nothing",          403,  "event-password-protected"),
    ("editor",        "a wrong password", 403,  "event-password-protected"),
    ("editor",        "the edit context", 200,  None),
    ("administrator", "the edit context", 200,  None),
]
# fmt: on


def protected_sentence(reader: Role, adding: str, http: int, code: str | None) -> str:
    return f"{who(reader)} adding {adding} gets {outcome(http, code)}"


@pytest.mark.parametrize(
    ("reader", "adding", "http", "code"), rows(PROTECTED_READS, protected_sentence)
)
def test_reading_a_password_protected_event_needs_the_password_or_edit_rights(
    api: Api, reader: Role, adding: str, http: int, code: str | None
) -> None:
    event = protected_event(api)

    response = api.get(f"/events/{event['id']}", reader, query_string=QUERIES[adding])

    if code is None:
        assert response.status_code == 200, response.get_data(as_text=True)
        body = response.json
        assert body["description"] == "<p>The band plays in the cellar.</p>"
        assert body["excerpt"] == "<p>A cellar gig</p>"
        assert body["cost"] == "$15"
        assert [term["name"] for term in body["categories"]] == ["Music"]
        assert [term["name"] for term in body["tags"]] == ["Cellar"]
        assert body["venue"]["venue"] == "The Cellar"
        assert [organizer["organizer"] for organizer in body["organizer"]] == ["Alice Events"]
        assert body["featured"] is True
    else:
        assert_wp_error(response, http, code)


# fmt: off
PROTECTED_LISTINGS = [
    # reader          adding              redacted
    (ANONYMOUS,       "nothing",          True),
    (ANONYMOUS,       "a wrong password", True),
    (ANONYMOUS,       "the password",     False),
    ("subscriber",    "the password",     False),
    ("editor",        "nothing",          True),
    ("administrator", "the password",     False),
]
# fmt: on


def listing_redaction_sentence(reader: Role, adding: str, redacted: bool) -> str:
    return f"{who(reader)} adding {adding} lists it {'redacted' if redacted else 'whole'}"


@pytest.mark.parametrize(
    ("reader", "adding", "redacted"), rows(PROTECTED_LISTINGS, listing_redaction_sentence)
)
def test_a_password_protected_event_is_listed_redacted_unless_the_password_matches(
    api: Api, reader: Role, adding: str, redacted: bool
) -> None:
    event = protected_event(api)
    plain = make_event(api, "editor", "publish", title="Open gig", description="Everyone in.")

    response = api.get("/events", reader, query_string=QUERIES[adding])

    assert response.status_code == 200, response.get_data(as_text=True)
    listed = {item["id"]: item for item in response.json["events"]}
    assert listed[plain["id"]]["description"] == "<p>Everyone in.</p>"
    item = listed[event["id"]]
    kept = ("id", "title", "slug", "status", "author", "start_date", "end_date", "timezone")
    assert {key: item[key] for key in kept} == {key: event[key] for key in kept}
    assert list(item) == list(event)
    if redacted:
        assert {key: item[key] for key in REDACTED} == REDACTED
        assert list(item["cost_details"]) == list(REDACTED["cost_details"])
    else:
        assert {key: item[key] for key in REDACTED} == {key: event[key] for key in REDACTED}


def test_the_creator_of_a_protected_event_gets_it_whole_in_the_create_response(
    api: Api,
) -> None:
    event = protected_event(api)

    assert event["description"] == "<p>The band plays in the cellar.</p>"
    assert event["venue"]["venue"] == "The Cellar"
    assert [organizer["organizer"] for organizer in event["organizer"]] == ["Alice Events"]


# -- credentials --------------------------------------------------------------------


def basic(credentials: bytes) -> str:
    return "Basic " + base64.b64encode(credentials).decode()


# fmt: off
BAD_CREDENTIALS = [
    # Authorization header                         code                  what it is
    (basic(b"administrator:wrong-password"),       "incorrect_password", "a wrong password"),
    (basic(b"nobody:whatever"),                    "invalid_username",   "an unknown user"),
    ("Basic !!!not-base64!!!",                     "invalid_username",   "malformed base64"),
    (basic(b"administrator"),                      "incorrect_password", "no password part"),
]
# fmt: on


@pytest.mark.parametrize(
    ("authorization", "code", "what"),
    rows(BAD_CREDENTIALS, lambda a, c, w: f"{w} is 401 {c}"),
)
@pytest.mark.parametrize("path", ["/events", "/events/{id}", "/events/by-slug/{slug}"])
def test_bad_credentials_on_a_public_read_are_401_not_anonymous(
    api: Api, path: str, authorization: str, code: str, what: str
) -> None:
    event = make_event(api, "administrator", "publish")
    url = path.format(id=event["id"], slug=event["slug"])
    assert api.get(url).status_code == 200

    response = api.get(url, headers={"Authorization": authorization})

    assert_wp_error(response, 401, code)


def test_bad_credentials_on_a_write_are_401_even_before_validation(api: Api) -> None:
    headers = {"Authorization": basic(b"administrator:wrong-password")}

    response = api.post("/events", json={}, headers=headers)

    assert_wp_error(response, 401, "incorrect_password")
