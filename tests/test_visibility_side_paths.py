"""Visibility and ownership on the side paths (security.md 0 and A1-A7).

The main read paths (single reads, lists) have their own suites; this file protects
the paths an audit found leaking or misattributing records, one regression test per
finding, each denial tested as carefully as the success and for every role concerned:

- A1 (H1): search never matches the description or excerpt of a password-protected
  event for callers who cannot edit it (title only, whole words and prefixes);
- A2 (H2): an event write links only the venues and organizers its caller can read; a
  hidden one is refused exactly like an unknown ID, leaving nothing behind, and an
  embedded record that became hidden is not shown;
- A3 (H3): duplicate detection only reuses records the caller can read;
- A4: inline venues and organizers belong to the caller unless it may act for others;
- A5 (H4): ``translation_of`` needs the right to edit its target, ``translations`` lists
  only readable members, and an unpublished member never blocks the real translation;
- A6: ``event=`` / ``post=`` filters answer for a hidden event as for a missing one;
- A7: ``global_id`` is unique across events, venues and organizers;
- one readable rule: a record hidden from a caller appears in none of its lists,
  searches, single reads or embeds.

Everything goes through HTTP, so that these tests also run against older code.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import typing as t

import pytest
from conftest import ALL_ROLES, ANONYMOUS, Api, Role, assert_wp_error
from werkzeug.test import TestResponse

from calendar_rest.db import backend_name

FR = "/fr/calendar/events/v1"
ROOTS = ("", FR)
MISSING_ID = 999_999
PASSWORD = "open sesame"
PUBLISHERS = ("author", "author2", "editor", "administrator")
MAY_ACT_FOR_OTHERS = ("editor", "administrator")


@dataclasses.dataclass(frozen=True)
class Kind:
    collection: str
    #: the parameter holding the record's name
    name: str

    def body(self, name: str, **fields: t.Any) -> dict[str, t.Any]:
        body = {self.name: name, **fields}
        if self.collection == "events":
            start = dt.datetime.now().replace(microsecond=0) + dt.timedelta(days=30)
            body.setdefault("start_date", start.strftime("%Y-%m-%d 19:00:00"))
            body.setdefault("end_date", start.strftime("%Y-%m-%d 21:00:00"))
        return body

    def link(self, value: t.Any) -> t.Any:
        """``value`` as the event parameter linking this kind takes it."""
        return value if self is VENUES else [value]


EVENTS = Kind("events", "title")
VENUES = Kind("venues", "venue")
ORGANIZERS = Kind("organizers", "organizer")
LINKED = pytest.mark.parametrize("kind", [VENUES, ORGANIZERS], ids=["venue", "organizer"])
POSTS = pytest.mark.parametrize(
    "kind", [EVENTS, VENUES, ORGANIZERS], ids=["events", "venues", "organizers"]
)
#: what a hidden venue / organizer holds, none of which may reach whoever cannot read it
SECRETS = {
    VENUES: {
        "venue": "Zanzibar Hideout",
        "address": "7 Clandestine Lane",
        "city": "Quixotica",
        "phone": "555-0199",
        "description": "Knock twice on the blue door",
    },
    ORGANIZERS: {
        "organizer": "Shadowmere Promotions",
        "phone": "555-0198",
        "email": "shadowmere@example.test",
        "website": "https://shadowmere.example",
        "description": "Whispered bookings only",
    },
}


# -- helpers -----------------------------------------------------------------------------


def who(role: Role) -> str:
    return "anonymous" if role is None else role


def body_of(response: TestResponse, status: int = 200) -> dict[str, t.Any]:
    assert response.status_code == status, response.get_data(as_text=True)
    return t.cast(dict[str, t.Any], response.json)


def create(
    api: Api, kind: Kind, as_: str, name: str, *, root: str = "", **fields: t.Any
) -> dict[str, t.Any]:
    """A record created by ``as_`` through ``root`` (French records through ``FR``)."""
    response = api.post(f"{root}/{kind.collection}", as_, json=kind.body(name, **fields))
    return body_of(response, 201)


def make(
    api: Api, kind: Kind, owner: str, status: str, name: str, *, root: str = "", **fields: t.Any
) -> dict[str, t.Any]:
    """A record of ``owner`` in ``status``, made the way a client would: publishers ask
    for it, a contributor's ``pending`` comes from asking to publish and its published
    record is published by the editor, ``future`` is a publication dated in the future,
    a trashed record is deleted by its owner."""
    if status == "trash":
        first = "draft" if owner.startswith("contributor") else "publish"
        record = make(api, kind, owner, first, name, root=root, **fields)
        record = body_of(api.delete(f"/{kind.collection}/{record['id']}", owner))
    elif status == "future":
        fields.setdefault("date", "2030-01-01 10:00:00")
        record = create(api, kind, owner, name, root=root, status="publish", **fields)
    elif owner in PUBLISHERS or status in ("draft", "pending"):
        requested = "publish" if status == "pending" and owner not in PUBLISHERS else status
        record = create(api, kind, owner, name, root=root, status=requested, **fields)
    else:
        draft = create(api, kind, owner, name, root=root, **fields)
        response = api.patch(f"/{kind.collection}/{draft['id']}", "editor", json={"status": status})
        record = body_of(response)
    assert record["status"] == status, record
    assert record["author"] == str(api.users[owner].id), record
    return record


def make_hidden(api: Api, kind: Kind, owner: str, status: str) -> dict[str, t.Any]:
    """A venue or organizer holding ``SECRETS``."""
    fields = dict(SECRETS[kind])
    return make(api, kind, owner, status, fields.pop(kind.name), **fields)


def text_of(response: TestResponse) -> str:
    """Everything the caller receives: headers and body."""
    headers = "\n".join(f"{name}: {value}" for name, value in response.headers.items())
    return f"{headers}\n{response.get_data(as_text=True)}"


def assert_nothing_of(response: TestResponse, secrets: t.Iterable[str]) -> None:
    text = text_of(response).lower()
    leaked = [secret for secret in secrets if secret.lower() in text]
    assert not leaked, f"{leaked} in {response.get_data(as_text=True)}"


ALL_COLLECTIONS = ("events", "venues", "organizers", "categories", "tags")


def totals(api: Api, *collections: str, roots: t.Sequence[str] = ROOTS) -> dict[str, int]:
    """How many records of each of ``collections`` (default: all) exist, trash aside,
    in the languages of ``roots`` (lists hold the records of the request's language)."""
    counts: dict[str, int] = {}
    for collection in collections or ALL_COLLECTIONS:
        query: dict[str, t.Any] = {"per_page": 1}
        if collection in ("categories", "tags"):
            query["hide_empty"] = 0
        for root in roots:
            response = api.get(f"{root}/{collection}", "administrator", query_string=query)
            counts[f"{root}/{collection}"] = body_of(response)["total"]
    return counts


def with_value_as(body: t.Any, value: t.Any, placeholder: str = "<ID>") -> t.Any:
    """``body`` with the caller's own ``value`` replaced in every text, so that the
    refusals of two IDs compare."""
    if isinstance(body, dict):
        return {key: with_value_as(item, value, placeholder) for key, item in body.items()}
    if isinstance(body, list):
        return [with_value_as(item, value, placeholder) for item in body]
    if isinstance(body, str):
        return body.replace(str(value), placeholder)
    return body


def ids_of(response: TestResponse, collection: str) -> set[int]:
    return {item["id"] for item in body_of(response)[collection]}


def integer_map(translations: t.Any) -> dict[str, int]:
    """A ``translations`` map, checked to be an object of JSON integers."""
    assert isinstance(translations, dict) and translations, translations
    assert all(type(value) is int for value in translations.values()), translations
    return translations


# -- A7: global IDs --------------------------------------------------------------------------


def next_id_from(api: Api, table: str, next_id: int) -> None:  # table: event, venue...
    """Make PostgreSQL's sequence or MariaDB's counter of ``table`` give ``next_id``
    next (IDs are never reused there: emptied tables keep their counters). SQLite
    gives the largest ID plus one, and its emptied tables start at 1 together."""
    database = api.app.database
    backend = backend_name(database)
    with database.connection_context():
        if backend == "postgresql":
            sequence = f"pg_get_serial_sequence('{table}', 'id')"
            database.execute_sql(f"SELECT setval({sequence}, %s)", (next_id - 1,))
        elif backend == "mysql":
            database.execute_sql(f"ALTER TABLE `{table}` AUTO_INCREMENT = {int(next_id)}")


def records_with_one_id(api: Api) -> dict[Kind, dict[str, t.Any]]:
    """An event, a venue and an organizer with the same numeric ID (IDs are per table:
    records are created in the tables that lag until the three meet)."""
    number = iter(range(10_000))

    def add(kind: Kind) -> dict[str, t.Any]:
        return create(api, kind, "administrator", f"{kind.name} {next(number)}")

    latest = {kind: add(kind) for kind in (EVENTS, VENUES, ORGANIZERS)}
    highest = max(record["id"] for record in latest.values())
    for kind, record in latest.items():  # earlier tests leave the counters far apart
        if record["id"] < highest:
            next_id_from(api, kind.collection[:-1], highest)
            latest[kind] = add(kind)
    for _ in range(2_000):
        highest = max(record["id"] for record in latest.values())
        if all(record["id"] == highest for record in latest.values()):
            return latest
        for kind, record in latest.items():
            if record["id"] < highest:
                latest[kind] = add(kind)
    raise AssertionError("the three tables' IDs never met")


def test_an_event_a_venue_and_an_organizer_with_the_same_id_have_three_different_global_ids(
    api: Api,
) -> None:
    number = records_with_one_id(api)[EVENTS]["id"]
    for kind in (VENUES, ORGANIZERS):  # a name to find them by in lists
        body_of(
            api.patch(
                f"/{kind.collection}/{number}", "administrator", json={kind.name: "Coincident"}
            )
        )
    event = body_of(
        api.patch(
            f"/events/{number}",
            "administrator",
            json={"title": "Coincident", "venue": number, "organizer": [number]},
        )
    )
    site = event["global_id"].rsplit("?", 1)[0]
    expected = {
        EVENTS: f"{site}?id={number}",
        VENUES: f"{site}?id={number}&type=venue",
        ORGANIZERS: f"{site}?id={number}&type=organizer",
    }
    assert len(set(expected.values())) == 3

    embedded = {EVENTS: event, VENUES: event["venue"], ORGANIZERS: event["organizer"][0]}
    for kind in (EVENTS, VENUES, ORGANIZERS):
        single = body_of(api.get(f"/{kind.collection}/{number}"))
        french = body_of(api.get(f"{FR}/{kind.collection}/{number}"))
        items = body_of(api.get(f"/{kind.collection}", query_string={"search": "coincident"}))
        [item] = items[kind.collection]
        for where, record in (
            ("single", single),
            ("french single", french),
            ("list item", item),
            ("embedded", embedded[kind]),
        ):
            assert record["id"] == number
            assert record["global_id"] == expected[kind], (kind.collection, where)
            assert record["global_id_lineage"][0] == expected[kind], (kind.collection, where)


# -- A1: search and password-protected content ---------------------------------------------

SECRET_WORD = "zebra4711"
#: readers who cannot edit the author's protected event
CANNOT_EDIT = (ANONYMOUS, "subscriber", "contributor", "contributor2", "author2")
#: readers who can: its author, editors and administrators
CAN_EDIT = ("author", "editor", "administrator")


@pytest.fixture
def protected_search_world(api: Api) -> dict[str, int]:
    """The author's published events: one protected by a password, one open, whose
    contents share some words."""
    protected = make(
        api,
        EVENTS,
        "author",
        "publish",
        "Moonlight serenade",
        description=f"<p>The door code is {SECRET_WORD}.</p>",
        excerpt="Bring quokkas",
        password=PASSWORD,
    )
    plain = make(
        api,
        EVENTS,
        "author",
        "publish",
        "Daylight matinee",
        description="<p>The door code is walrus8812.</p>",
        excerpt="Bring wombats",
    )
    return {"protected": protected["id"], "open": plain["id"]}


def searched(api: Api, reader: Role, words: str, **query: t.Any) -> TestResponse:
    return api.get("/events", reader, query_string={"search": words, "per_page": 50, **query})


@pytest.mark.parametrize("reader", CANNOT_EDIT, ids=who)
def test_search_never_matches_the_words_of_a_protected_description_for_those_who_cannot_edit_it(
    api: Api, protected_search_world: dict[str, int], reader: Role
) -> None:
    """H1: one could recover a secret one prefix at a time; now only the title counts."""
    protected, plain = protected_search_world["protected"], protected_search_world["open"]
    prefixes = [SECRET_WORD[:length] for length in range(1, len(SECRET_WORD) + 1)]
    for words in [*prefixes, "quokkas", "quok", "moonlight zebra", "serenade quokka"]:
        response = searched(api, reader, words)
        assert protected not in ids_of(response, "events"), words
        listed = json.dumps(body_of(response)["events"]).lower()
        assert SECRET_WORD not in listed and "quokka" not in listed, words
    # the same words in an open event are found: only the password hides them
    assert ids_of(searched(api, reader, "door code"), "events") == {plain}
    assert ids_of(searched(api, reader, "walrus8"), "events") == {plain}
    assert ids_of(searched(api, reader, "wombats"), "events") == {plain}


@pytest.mark.parametrize("reader", ALL_ROLES, ids=who)
def test_search_matches_the_title_of_a_protected_event_by_whole_words_and_prefixes(
    api: Api, protected_search_world: dict[str, int], reader: Role
) -> None:
    protected = protected_search_world["protected"]
    for words in ("moonlight", "moonl", "serenade moon", "SEREN"):
        assert ids_of(searched(api, reader, words), "events") == {protected}, words


@pytest.mark.parametrize("reader", CAN_EDIT, ids=who)
def test_search_matches_the_content_of_a_protected_event_for_its_author_and_editors(
    api: Api, protected_search_world: dict[str, int], reader: Role
) -> None:
    protected, plain = protected_search_world["protected"], protected_search_world["open"]
    for words in (SECRET_WORD, "zeb", "z", "quokkas", "quok", "moonlight zebra"):
        assert ids_of(searched(api, reader, words), "events") == {protected}, words
    assert ids_of(searched(api, reader, "door code"), "events") == {protected, plain}


def test_the_right_password_in_a_list_does_not_open_the_content_to_search(
    api: Api, protected_search_world: dict[str, int]
) -> None:
    """The password opens the content of a single read only (security.md 0)."""
    response = searched(api, ANONYMOUS, "zebra", password=PASSWORD)

    assert protected_search_world["protected"] not in ids_of(response, "events")


def test_a_password_set_or_removed_later_changes_what_search_matches(api: Api) -> None:
    event = make(
        api, EVENTS, "author", "publish", "Harbour gig", description="Meet at pier nineteen"
    )
    assert ids_of(searched(api, ANONYMOUS, "nineteen"), "events") == {event["id"]}

    body_of(api.patch(f"/events/{event['id']}", "author", json={"password": PASSWORD}))
    for reader in CANNOT_EDIT:
        assert ids_of(searched(api, reader, "ninete"), "events") == set(), who(reader)
        assert ids_of(searched(api, reader, "harbour"), "events") == {event["id"]}, who(reader)
    for reader in CAN_EDIT:
        assert ids_of(searched(api, reader, "ninete"), "events") == {event["id"]}, reader

    body_of(api.patch(f"/events/{event['id']}", "author", json={"password": ""}))
    assert ids_of(searched(api, ANONYMOUS, "nineteen"), "events") == {event["id"]}


def test_a_contributor_searches_the_content_of_its_own_protected_draft_and_nobody_else_finds_it(
    api: Api,
) -> None:
    draft = make(
        api,
        EVENTS,
        "contributor",
        "draft",
        "Rehearsal",
        description="Bring the xylophone",
        password=PASSWORD,
    )
    for reader, expected in (
        ("contributor", {draft["id"]}),
        ("editor", {draft["id"]}),
        ("contributor2", set()),
        ("author", set()),
        (ANONYMOUS, set()),
    ):
        for words in ("xylophone", "xylo", "rehearsal"):
            assert ids_of(searched(api, reader, words), "events") == expected, (who(reader), words)


# -- A2: linking venues and organizers ---------------------------------------------------------

# fmt: off
#: (the writer, the owner and status of a record it cannot read)
HIDDEN_FROM_WRITER = [
    ("author",      "author2",       "draft"),
    ("author",      "contributor",   "pending"),
    ("author",      "administrator", "future"),
    ("author",      "administrator", "trash"),
    ("contributor", "contributor2",  "draft"),
    ("contributor", "author",        "private"),
]
# fmt: on
FORMS: dict[str, t.Callable[[int], t.Any]] = {
    "bare id": lambda record_id: record_id,
    "id as text": str,
    "id object": lambda record_id: {"id": record_id},
}


def hidden_sentence(writer: str, owner: str, status: str) -> str:
    return f"{writer} linking a {status} record of {owner}"


HIDDEN_CASES = pytest.mark.parametrize(
    ("writer", "owner", "status"),
    [pytest.param(*row, id=hidden_sentence(*row)) for row in HIDDEN_FROM_WRITER],
)


def event_write(api: Api, writer: str, kind: Kind, value: t.Any) -> TestResponse:
    return api.post("/events", writer, json=EVENTS.body("Linked gig", **{kind.name: value}))


def linked_in(event: dict[str, t.Any], kind: Kind) -> dict[str, t.Any]:
    """The venue, or the first organizer, an event embeds."""
    return t.cast(dict[str, t.Any], event["venue"] if kind is VENUES else event["organizer"][0])


def assert_refused_like_an_unknown_id(
    kind: Kind, refused: TestResponse, hidden_id: int, unknown: TestResponse
) -> None:
    """400 naming the parameter, the body of an unknown ID (but for the ID the caller
    sent), and nothing of the hidden record."""
    body = assert_wp_error(refused, 400, "rest_invalid_param")
    assert list(body["data"]["params"]) == [kind.name]
    assert with_value_as(body, hidden_id) == with_value_as(unknown.json, MISSING_ID)
    assert_nothing_of(refused, SECRETS[kind].values())


@LINKED
@HIDDEN_CASES
def test_linking_a_venue_or_organizer_the_writer_cannot_read_is_refused_like_an_unknown_id(
    api: Api, kind: Kind, writer: str, owner: str, status: str
) -> None:
    """H2: the event would have embedded and published the hidden record."""
    hidden = make_hidden(api, kind, owner, status)
    before = totals(api, "events", "venues", "organizers", roots=[""])

    for value in FORMS.values():
        refused = event_write(api, writer, kind, kind.link(value(hidden["id"])))
        unknown = event_write(api, writer, kind, kind.link(value(MISSING_ID)))
        assert_refused_like_an_unknown_id(kind, refused, hidden["id"], unknown)

    assert totals(api, "events", "venues", "organizers", roots=[""]) == before


@LINKED
@pytest.mark.parametrize(
    ("writer", "owner"), [("author", "author2"), ("contributor", "contributor2")]
)
def test_an_event_update_cannot_link_a_hidden_venue_or_organizer_by_any_method(
    api: Api, kind: Kind, writer: str, owner: str
) -> None:
    event = make(api, EVENTS, writer, "draft", "My gig")
    hidden = make_hidden(api, kind, owner, "draft")

    for method in ("POST", "PUT", "PATCH"):
        for path in (f"/events/{event['id']}", f"/events/by-slug/{event['slug']}"):
            for value in (hidden["id"], {"id": hidden["id"]}):
                refused = api.request(method, path, writer, json={kind.name: kind.link(value)})
                unknown = api.request(method, path, writer, json={kind.name: kind.link(MISSING_ID)})
                assert_refused_like_an_unknown_id(kind, refused, hidden["id"], unknown)

    stored = body_of(api.get(f"/events/{event['id']}", writer))
    assert (stored["venue"], stored["organizer"]) == ([], [])


@pytest.mark.parametrize("writer", ["author", "contributor"])
def test_a_refused_link_leaves_no_event_inline_record_or_term_behind(api: Api, writer: str) -> None:
    hidden = make_hidden(api, ORGANIZERS, "contributor2", "draft")
    category = create(api, Kind("categories", "name"), "administrator", "Existing category")
    before = totals(api)

    response = api.post(
        "/events",
        writer,
        json=EVENTS.body(
            "Everything at once",
            venue={"venue": "Brand new hall", "city": "Newtown"},
            organizer=[{"organizer": "Brand new promoter"}, hidden["id"]],
            categories=[category["id"], "Brand new category"],
            tags=["brand-new-tag"],
        ),
    )

    assert "organizer" in assert_wp_error(response, 400, "rest_invalid_param")["data"]["params"]
    assert_nothing_of(response, SECRETS[ORGANIZERS].values())
    assert totals(api) == before


# fmt: off
READABLE_TO_WRITER = [
    ("author",        "author",       "draft"),
    ("author",        "author",       "private"),
    ("author",        "contributor",  "publish"),
    ("contributor",   "contributor",  "draft"),
    ("contributor",   "contributor",  "pending"),
    ("contributor",   "administrator", "publish"),
    ("editor",        "contributor",  "draft"),
    ("editor",        "author",       "private"),
    ("administrator", "author2",      "future"),
]
# fmt: on


@pytest.mark.parametrize(
    ("writer", "owner", "status"),
    [
        pytest.param(*row, id=f"{row[0]} linking a {row[2]} record of {row[1]}")
        for row in READABLE_TO_WRITER
    ],
)
def test_a_writer_links_the_venues_and_organizers_it_can_read(
    api: Api, writer: str, owner: str, status: str
) -> None:
    for kind in (VENUES, ORGANIZERS):
        record = make_hidden(api, kind, owner, status)

        for form, value in FORMS.items():
            event = body_of(event_write(api, writer, kind, kind.link(value(record["id"]))), 201)
            linked = linked_in(event, kind)
            assert (linked["id"], linked[kind.name]) == (record["id"], record[kind.name]), form


@pytest.mark.parametrize("hiding", ["draft", "private"])
def test_an_embedded_venue_or_organizer_that_became_hidden_is_shown_only_to_those_who_can_read_it(
    api: Api, hiding: str
) -> None:
    venue = make_hidden(api, VENUES, "author", "publish")
    organizer = make_hidden(api, ORGANIZERS, "author", "publish")
    event = make(
        api, EVENTS, "author", "publish", "Open air", venue=venue["id"], organizer=[organizer["id"]]
    )
    for kind, record in ((VENUES, venue), (ORGANIZERS, organizer)):
        path = f"/{kind.collection}/{record['id']}"
        body_of(api.patch(path, "author", json={"status": hiding}))
    secrets = [*SECRETS[VENUES].values(), *SECRETS[ORGANIZERS].values()]

    for reader in (*ALL_ROLES, "author2", "contributor2"):
        sees = reader in CAN_EDIT
        for response in (
            api.get(f"/events/{event['id']}", reader),
            api.get("/events", reader, query_string={"search": "open air"}),
            api.get(f"{FR}/events/{event['id']}", reader),
        ):
            shown = body_of(response)
            shown = shown["events"][0] if "events" in shown else shown
            if sees:
                assert shown["venue"]["id"] == venue["id"], who(reader)
                assert [item["id"] for item in shown["organizer"]] == [organizer["id"]]
            else:
                assert (shown["venue"], shown["organizer"]) == ([], []), who(reader)
                assert_nothing_of(response, secrets)


# -- A3: duplicates --------------------------------------------------------------------------

# fmt: off
#: (the writer, the owner and status of a same-named record it cannot read)
HIDDEN_DUPLICATES = [
    ("author",      "author2",       "draft"),
    ("author",      "contributor",   "pending"),
    ("author",      "author2",       "private"),
    ("contributor", "contributor2",  "draft"),
    ("contributor", "author",        "private"),
    ("contributor", "administrator", "future"),
]
# fmt: on
DUPLICATE_CASES = pytest.mark.parametrize(
    ("writer", "owner", "status"),
    [
        pytest.param(*row, id=f"{row[0]} naming a {row[2]} record of {row[1]}")
        for row in HIDDEN_DUPLICATES
    ],
)


def secrets_but_the_name(kind: Kind) -> list[str]:
    """What a hidden record holds besides the name the writer sent itself."""
    return [value for key, value in SECRETS[kind].items() if key != kind.name]


@DUPLICATE_CASES
def test_posting_the_name_of_a_record_the_writer_cannot_read_creates_a_new_record(
    api: Api, writer: str, owner: str, status: str
) -> None:
    """H3: duplicate detection returned the hidden record."""
    for kind in (VENUES, ORGANIZERS):
        hidden = make_hidden(api, kind, owner, status)

        response = api.post(f"/{kind.collection}", writer, json={kind.name: hidden[kind.name]})

        created = body_of(response, 201)
        assert created["id"] != hidden["id"]
        assert created["author"] == str(api.users[writer].id)
        assert_nothing_of(response, secrets_but_the_name(kind))
        again = body_of(api.get(f"/{kind.collection}/{hidden['id']}", "administrator"))
        assert (again["status"], again["author"]) == (hidden["status"], hidden["author"])
        assert again.get("phone") == hidden.get("phone")


@DUPLICATE_CASES
def test_an_inline_record_named_like_one_the_writer_cannot_read_is_a_new_record(
    api: Api, writer: str, owner: str, status: str
) -> None:
    for kind in (VENUES, ORGANIZERS):
        hidden = make_hidden(api, kind, owner, status)

        response = event_write(api, writer, kind, kind.link({kind.name: hidden[kind.name]}))

        linked = linked_in(body_of(response, 201), kind)
        assert linked["id"] != hidden["id"]
        assert linked["author"] == str(api.users[writer].id)
        assert_nothing_of(response, secrets_but_the_name(kind))


@pytest.mark.parametrize(
    ("writer", "owner", "status"),
    [
        ("author", "author", "draft"),
        ("contributor", "contributor", "draft"),
        ("contributor", "administrator", "publish"),
        ("editor", "contributor", "draft"),
        ("administrator", "author", "private"),
    ],
)
def test_duplicate_detection_still_reuses_a_record_the_writer_can_read(
    api: Api, writer: str, owner: str, status: str
) -> None:
    for kind in (VENUES, ORGANIZERS):
        record = make_hidden(api, kind, owner, status)

        posted = create(api, kind, writer, record[kind.name].upper())
        inline = kind.link({kind.name: record[kind.name]})
        event = body_of(event_write(api, writer, kind, inline), 201)

        assert posted["id"] == linked_in(event, kind)["id"] == record["id"], kind.name


@pytest.mark.parametrize("writer", ["author", "contributor"])
def test_duplicate_detection_passes_over_a_hidden_twin_to_the_readable_one(
    api: Api, writer: str
) -> None:
    """The hidden record is older (found first by ID); the readable one is reused."""
    for kind in (VENUES, ORGANIZERS):
        hidden = make_hidden(api, kind, "contributor2", "draft")
        readable = make(api, kind, "administrator", "publish", "Another name")
        path = f"/{kind.collection}/{readable['id']}"  # renaming checks no duplicates
        body_of(api.patch(path, "administrator", json={kind.name: hidden[kind.name]}))

        posted = create(api, kind, writer, hidden[kind.name])
        inline = kind.link({kind.name: hidden[kind.name]})
        response = event_write(api, writer, kind, inline)

        assert posted["id"] == linked_in(body_of(response, 201), kind)["id"] == readable["id"]
        assert_nothing_of(response, secrets_but_the_name(kind))


# -- A4: inline records belong to the caller ---------------------------------------------------


@pytest.mark.parametrize("writer", ["author", "contributor"])
@pytest.mark.parametrize("write", ["create", "update"])
def test_an_inline_venue_or_organizer_belongs_to_the_writer_whatever_author_it_names(
    api: Api, writer: str, write: str
) -> None:
    """An author could create records in an administrator's name."""
    mine = str(api.users[writer].id)
    for number, named in enumerate(("administrator", "editor", "author2", "an unknown user")):
        author_id = api.users[named].id if named in api.users else MISSING_ID
        links = {
            "venue": {"venue": f"Inline hall {number}", "author": author_id},
            "organizer": [{"organizer": f"Inline promoter {number}", "author": str(author_id)}],
        }

        if write == "create":
            response = api.post("/events", writer, json=EVENTS.body("Inline gig", **links))
            event = body_of(response, 201)
        else:
            draft = make(api, EVENTS, writer, "draft", "Inline gig")
            event = body_of(api.patch(f"/events/{draft['id']}", writer, json=links))

        assert event["venue"]["author"] == event["organizer"][0]["author"] == mine, named
        venue = body_of(api.get(f"/venues/{event['venue']['id']}", "administrator"))
        organizer = body_of(api.get(f"/organizers/{event['organizer'][0]['id']}", "administrator"))
        assert venue["author"] == organizer["author"] == mine, named


@pytest.mark.parametrize("writer", MAY_ACT_FOR_OTHERS)
def test_editors_and_administrators_create_inline_records_in_the_name_they_give(
    api: Api, writer: str
) -> None:
    other = api.users["contributor"].id
    event = body_of(
        api.post(
            "/events",
            writer,
            json=EVENTS.body(
                "Inline gig",
                venue={"venue": "Inline hall", "author": other},
                organizer=[{"organizer": "Inline promoter", "author": other}],
            ),
        ),
        201,
    )

    assert event["author"] == str(api.users[writer].id)
    assert event["venue"]["author"] == event["organizer"][0]["author"] == str(other)


@pytest.mark.parametrize("writer", ["author", "contributor"])
def test_the_top_level_author_of_a_create_still_needs_the_right_to_act_for_others(
    api: Api, writer: str
) -> None:
    before = totals(api, "events", "venues", "organizers", roots=[""])

    for kind in (EVENTS, VENUES, ORGANIZERS):
        response = api.post(
            f"/{kind.collection}",
            writer,
            json=kind.body("In your name", author=api.users["administrator"].id),
        )
        assert_wp_error(response, 403, "rest_forbidden")

    assert totals(api, "events", "venues", "organizers", roots=[""]) == before
    for kind in (EVENTS, VENUES, ORGANIZERS):
        mine = api.post(
            f"/{kind.collection}", writer, json=kind.body("Mine", author=api.users[writer].id)
        )
        assert body_of(mine, 201)["author"] == str(api.users[writer].id)


# -- A5: translations --------------------------------------------------------------------------

# fmt: off
#: (the translator, the owner and status of the record to translate, the refusal)
TRANSLATION_REFUSALS = [
    ("author",      "author2",       "publish", 403),
    ("contributor", "administrator", "publish", 403),
    ("contributor", "contributor",   "publish", 403),
    ("author",      "author2",       "draft",   400),
    ("author",      "contributor",   "pending", 400),
    ("author",      "author2",       "private", 400),
    ("author",      "administrator", "future",  400),
    ("contributor", "contributor2",  "draft",   400),
]
# fmt: on


def refusal_sentence(translator: str, owner: str, status: str, http: int) -> str:
    why = "readable, not editable" if http == 403 else "hidden"
    return f"{translator} translating a {status} record of {owner} ({why}) gets {http}"


def translation_refusal(response: TestResponse, http: int) -> dict[str, t.Any]:
    if http == 403:
        return assert_wp_error(response, 403, "rest_cannot_edit")
    body = assert_wp_error(response, 400, "rest_invalid_param")
    assert list(body["data"]["params"]) == ["translation_of"]
    return body


@POSTS
@pytest.mark.parametrize(
    ("translator", "owner", "status", "http"),
    [pytest.param(*row, id=refusal_sentence(*row)) for row in TRANSLATION_REFUSALS],
)
def test_attaching_a_translation_needs_the_right_to_edit_the_record_translated(
    api: Api, kind: Kind, translator: str, owner: str, status: str, http: int
) -> None:
    """H4: translation_of attached translations to other users' records. Through the
    French root the new record is French (translating an English one), through the
    default root English (translating a French one); an update is refused the same."""
    targets = {
        root: make(api, kind, owner, status, "Secret original", root=translated_from)
        for root, translated_from in ((FR, ""), ("", FR))
    }
    own = make(api, kind, translator, "draft", "Own record", root=FR)
    before = totals(api, kind.collection)

    def attempts(unknown: bool) -> list[TestResponse]:
        """Creating through either root, and updating, each naming its target (or an
        ID that does not exist)."""
        ids = {root: MISSING_ID if unknown else record["id"] for root, record in targets.items()}
        creates = [
            api.post(
                f"{root}/{kind.collection}",
                translator,
                json=kind.body("Traduction", translation_of=ids[root]),
            )
            for root in targets
        ]
        path = f"/{kind.collection}/{own['id']}"
        return [*creates, api.patch(path, translator, json={"translation_of": ids[FR]})]

    for refused, unknown in zip(attempts(False), attempts(True), strict=True):
        body = translation_refusal(refused, http)
        if http == 400:  # the answer for an ID that does not exist
            assert body == unknown.json
        assert_nothing_of(refused, ["Secret original", "secret-original"])
    assert totals(api, kind.collection) == before
    own_now = body_of(api.get(f"/{kind.collection}/{own['id']}", translator))
    assert integer_map(own_now["translations"]) == {"fr": own["id"]}


# fmt: off
TRANSLATIONS_ALLOWED = [
    ("author",        "author",       "publish"),
    ("author",        "author",       "draft"),
    ("contributor",   "contributor",  "draft"),
    ("contributor",   "contributor",  "pending"),
    ("editor",        "contributor",  "draft"),
    ("administrator", "author2",      "private"),
]
# fmt: on


@pytest.mark.parametrize(
    ("translator", "owner", "status"),
    [
        pytest.param(*row, id=f"{row[0]} translating a {row[2]} record of {row[1]}")
        for row in TRANSLATIONS_ALLOWED
    ],
)
def test_a_translator_who_can_edit_the_record_attaches_a_translation(
    api: Api, translator: str, owner: str, status: str
) -> None:
    for kind in (EVENTS, VENUES, ORGANIZERS):
        for root, translated_from in ((FR, ""), ("", FR)):
            target = make(api, kind, owner, status, f"Original {root}", root=translated_from)

            created = body_of(
                api.post(
                    f"{root}/{kind.collection}",
                    translator,
                    json=kind.body(f"Traduction {root}", translation_of=target["id"]),
                ),
                201,
            )

            language = "fr" if root == FR else "en"
            group = {target["language"]: target["id"], language: created["id"]}
            assert created["language"] == language, kind.collection
            assert integer_map(created["translations"]) == group, kind.collection


@POSTS
def test_the_translations_map_lists_only_the_members_the_caller_can_read(
    api: Api, kind: Kind
) -> None:
    """H4: a draft translation was shown to anonymous readers. Readers alternate, so the
    response cache is exercised too (it keeps the map per user)."""
    original = make(api, kind, "author", "publish", "Harbour lights")
    draft = make(
        api,
        kind,
        "author",
        "draft",
        "Brouillon confidentiel",
        root=FR,
        translation_of=original["id"],
    )
    event = None
    if kind is not EVENTS:
        event = make(
            api,
            EVENTS,
            "administrator",
            "publish",
            "Host",
            **{kind.name: kind.link(original["id"])},
        )
    both = {"en": original["id"], "fr": draft["id"]}

    for reader in (*ALL_ROLES, "author2", ANONYMOUS, "author", "subscriber"):
        sees = reader in CAN_EDIT
        expected = both if sees else {"en": original["id"]}
        responses = {
            "single": api.get(f"/{kind.collection}/{original['id']}", reader),
            "list": api.get(f"/{kind.collection}", reader, query_string={"per_page": 50}),
            "search": api.get(f"/{kind.collection}", reader, query_string={"search": "harbour"}),
        }
        if event is not None:
            responses["embedded"] = api.get(f"/events/{event['id']}", reader)
        for where, response in responses.items():
            shown = body_of(response)
            if where == "embedded":
                shown = shown[kind.name] if kind is VENUES else shown[kind.name][0]
            elif where != "single":
                shown = next(
                    item for item in shown[kind.collection] if item["id"] == original["id"]
                )
            assert integer_map(shown["translations"]) == expected, (who(reader), where)
            if not sees:
                assert_nothing_of(response, ["Brouillon confidentiel"])
        own = api.get(f"/{kind.collection}/{draft['id']}", reader)
        if sees:
            assert integer_map(body_of(own)["translations"]) == both
        else:
            assert own.status_code in (401, 403), who(reader)


def unpublished_member(
    api: Api, kind: Kind, member_owner: str, member_status: str
) -> tuple[dict[str, t.Any], dict[str, t.Any]]:
    """A published English record and an unpublished French translation of it made by
    ``member_owner``: a contributor translates its own draft, which the editor then
    publishes; otherwise the author's published record is translated by its author or
    by an editor."""
    if member_owner.startswith("contributor"):
        original = make(api, kind, member_owner, "draft", "Original")
    else:
        original = make(api, kind, "author", "publish", "Original")
    member = make(
        api,
        kind,
        member_owner,
        member_status,
        "Brouillon",
        root=FR,
        translation_of=original["id"],
    )
    if original["status"] != "publish":
        path = f"/{kind.collection}/{original['id']}"
        original = body_of(api.patch(path, "editor", json={"status": "publish"}))
    return original, member


# fmt: off
NEVER_BLOCKING = [
    # the unpublished member: owner, status; who attaches the real translation
    ("contributor", "draft",   "editor"),
    ("contributor", "pending", "administrator"),
    ("editor",      "draft",   "author"),
    ("author",      "pending", "author"),
]
# fmt: on


@POSTS
@pytest.mark.parametrize(
    ("member_owner", "member_status", "translator"),
    [
        pytest.param(*row, id=f"a {row[1]} of {row[0]} and {row[2]} attaching")
        for row in NEVER_BLOCKING
    ],
)
def test_a_draft_or_pending_translation_never_blocks_the_real_one(
    api: Api, kind: Kind, member_owner: str, member_status: str, translator: str
) -> None:
    """H4: a contributor's draft translation blocked the real one."""
    original, member = unpublished_member(api, kind, member_owner, member_status)
    before = body_of(api.get(f"/{kind.collection}/{original['id']}", "administrator"))
    assert integer_map(before["translations"]) == {"en": original["id"], "fr": member["id"]}

    real = body_of(
        api.post(
            f"{FR}/{kind.collection}",
            translator,
            json=kind.body("Traduction", status="publish", translation_of=original["id"]),
        ),
        201,
    )

    group = {"en": original["id"], "fr": real["id"]}
    assert integer_map(real["translations"]) == group
    for reader in (ANONYMOUS, translator, member_owner, "administrator"):
        shown = body_of(api.get(f"/{kind.collection}/{original['id']}", reader))
        assert integer_map(shown["translations"]) == group, who(reader)
    detached = body_of(api.get(f"/{kind.collection}/{member['id']}", member_owner))
    assert (detached["status"], detached["author"]) == (member["status"], member["author"])
    assert integer_map(detached["translations"]) == {"fr": member["id"]}


@POSTS
def test_an_unpublished_root_is_detached_and_the_group_keeps_its_other_members(
    api: Api, kind: Kind
) -> None:
    root = make(api, kind, "administrator", "draft", "Brouillon racine", root=FR)
    english = make(api, kind, "administrator", "publish", "English", translation_of=root["id"])

    real = body_of(
        api.post(
            f"{FR}/{kind.collection}",
            "administrator",
            json=kind.body("Traduction", translation_of=english["id"]),
        ),
        201,
    )

    group = {"en": english["id"], "fr": real["id"]}
    assert integer_map(real["translations"]) == group
    assert (
        integer_map(body_of(api.get(f"/{kind.collection}/{english['id']}"))["translations"])
        == group
    )
    alone = body_of(api.get(f"/{kind.collection}/{root['id']}", "administrator"))
    assert integer_map(alone["translations"]) == {"fr": root["id"]}


@POSTS
@pytest.mark.parametrize("member_status", ["publish", "future", "private"])
def test_a_published_scheduled_or_private_translation_holds_its_language(
    api: Api, kind: Kind, member_status: str
) -> None:
    """Even when the translator (the author of the original) cannot read it."""
    original = make(api, kind, "author", "publish", "Original")
    make(api, kind, "editor", member_status, "Tenue", root=FR, translation_of=original["id"])
    before = totals(api, kind.collection)

    for translator in ("author", "administrator"):
        response = api.post(
            f"{FR}/{kind.collection}",
            translator,
            json=kind.body("Traduction", translation_of=original["id"]),
        )
        assert translation_refusal(response, 400), translator

    assert totals(api, kind.collection) == before


# -- A6: event= and post= filters ---------------------------------------------------------------

#: the filters listing what one event links: path, parameter, the name of what it links
EVENT_FILTERS = [
    ("/venues", "event", "Lantern hall"),
    ("/organizers", "event", "Lantern promoter"),
    ("/categories", "post", "Lantern category"),
    ("/categories", "event", "Lantern category"),
    ("/tags", "post", "lantern-tag"),
    ("/tags", "event", "lantern-tag"),
]
LINKED_NAMES = sorted({name for _, _, name in EVENT_FILTERS})
TERM_PATHS = ("/categories", "/tags")


def linking_event(api: Api, owner: str, status: str) -> dict[str, t.Any]:
    """An event of ``owner`` in ``status`` linking a venue, an organizer, a category and
    a tag (all published)."""
    venue = create(api, VENUES, "administrator", "Lantern hall")
    organizer = create(api, ORGANIZERS, "administrator", "Lantern promoter")
    category = create(api, Kind("categories", "name"), "administrator", "Lantern category")
    tag = create(api, Kind("tags", "name"), "administrator", "lantern-tag")
    return make(
        api,
        EVENTS,
        owner,
        status,
        "Lantern night",
        venue=venue["id"],
        organizer=[organizer["id"]],
        categories=[category["id"]],
        tags=[tag["id"]],
    )


def filter_queries(path: str, parameter: str, event_id: int) -> list[dict[str, t.Any]]:
    """The filter alone, and for terms with every ``hide_empty``."""
    if path not in TERM_PATHS:
        return [{parameter: event_id}]
    return [{parameter: event_id, **extra} for extra in ({}, {"hide_empty": 0}, {"hide_empty": 1})]


# fmt: off
HIDDEN_EVENTS = [
    (ANONYMOUS,     "administrator", "draft"),
    ("subscriber",  "author",        "private"),
    ("contributor", "contributor2",  "draft"),
    ("contributor", "administrator", "future"),
    ("author",      "contributor",   "pending"),
    ("author2",     "author",        "draft"),
    (ANONYMOUS,     "administrator", "trash"),
]
# fmt: on


@pytest.mark.parametrize(
    ("reader", "owner", "status"),
    [
        pytest.param(*row, id=f"{who(row[0])} filtering by a {row[2]} event of {row[1]}")
        for row in HIDDEN_EVENTS
    ],
)
def test_filtering_by_an_event_the_caller_cannot_read_answers_as_for_a_missing_event(
    api: Api, reader: Role, owner: str, status: str
) -> None:
    event = linking_event(api, owner, status)

    for path, parameter, _ in EVENT_FILTERS:
        for query in filter_queries(path, parameter, event["id"]):
            hidden = api.get(path, reader, query_string=query)
            missing = api.get(path, reader, query_string={**query, parameter: MISSING_ID})
            assert (hidden.status_code, hidden.json) == (missing.status_code, missing.json), (
                path,
                query,
            )
            assert hidden.status_code != 200
            assert_nothing_of(hidden, LINKED_NAMES)


@pytest.mark.parametrize(
    ("reader", "owner", "status"),
    [
        ("contributor", "contributor", "draft"),
        ("author", "author", "private"),
        ("editor", "contributor", "pending"),
        ("administrator", "author2", "draft"),
    ],
)
def test_filtering_by_an_event_the_caller_can_read_lists_what_it_links(
    api: Api, reader: str, owner: str, status: str
) -> None:
    event = linking_event(api, owner, status)

    for path, parameter, linked in EVENT_FILTERS:
        query: dict[str, t.Any] = {parameter: event["id"]}
        if path in TERM_PATHS:  # the event is not published: its terms count no event
            query["hide_empty"] = 0
        shown = body_of(api.get(path, reader, query_string=query))
        name = "name" if path in TERM_PATHS else path[1:-1]
        assert [item[name] for item in shown[path[1:]]] == [linked], (path, parameter)


# -- one readable rule -----------------------------------------------------------------------------


@pytest.fixture
def hidden_drafts(api: Api) -> dict[str, t.Any]:
    """contributor2's drafts (an event, a venue, an organizer) named with one marker
    word, and an administrator's published event linking the venue and organizer."""
    venue = make(api, VENUES, "contributor2", "draft", "Quillfeather hall", city="Quillton")
    organizer = make(api, ORGANIZERS, "contributor2", "draft", "Quillfeather promoter")
    event = make(
        api,
        EVENTS,
        "contributor2",
        "draft",
        "Quillfeather rehearsal",
        venue=venue["id"],
        organizer=[organizer["id"]],
    )
    host = make(
        api,
        EVENTS,
        "administrator",
        "publish",
        "Public concert",
        venue=venue["id"],
        organizer=[organizer["id"]],
    )
    return {"venue": venue, "organizer": organizer, "event": event, "host": host}


def every_read(api: Api, reader: Role, world: dict[str, t.Any]) -> dict[str, TestResponse]:
    """The reads that could show the drafts: single reads, lists, searches, embeds and
    the filters naming them."""
    reads: dict[str, str] = {}
    for kind, key in ((EVENTS, "event"), (VENUES, "venue"), (ORGANIZERS, "organizer")):
        record = world[key]
        reads[f"{key} by id"] = f"/{kind.collection}/{record['id']}"
        reads[f"{key} by slug"] = f"/{kind.collection}/by-slug/{record['slug']}"
        reads[f"{key} list"] = f"/{kind.collection}?per_page=50"
        reads[f"{key} search"] = f"/{kind.collection}?search=quillfeather"
        reads[f"{key} french list"] = f"{FR}/{kind.collection}?per_page=50"
    reads["embedding event"] = f"/events/{world['host']['id']}"
    reads["events of the venue"] = f"/events?venue={world['venue']['id']}"
    reads["events of the organizer"] = f"/events?organizer={world['organizer']['id']}"
    reads["venues with events"] = "/venues?has_events=1"
    reads["organizers with events"] = "/organizers?has_events=1"
    return {name: api.get(path, reader) for name, path in reads.items()}


DRAFT_TEXTS = ["quillfeather hall", "quillfeather promoter", "quillfeather rehearsal", "quillton"]


@pytest.mark.parametrize(
    "reader", [ANONYMOUS, "subscriber", "contributor", "author", "author2"], ids=who
)
def test_a_draft_the_caller_cannot_read_appears_in_no_list_search_single_read_or_embed(
    api: Api, hidden_drafts: dict[str, t.Any], reader: Role
) -> None:
    """A contributor does not see another contributor's draft anywhere (nor does anyone
    who cannot edit it)."""
    for name, response in every_read(api, reader, hidden_drafts).items():
        if name.endswith(("by id", "by slug")):
            assert response.status_code == 403, name
        assert_nothing_of(response, DRAFT_TEXTS)
        if name == "embedding event":
            embedded = body_of(response)
            assert (embedded["venue"], embedded["organizer"]) == ([], []), name


@pytest.mark.parametrize("reader", ["contributor2", "editor", "administrator"])
def test_whoever_can_read_the_drafts_finds_them_everywhere(
    api: Api, hidden_drafts: dict[str, t.Any], reader: str
) -> None:
    for name, response in every_read(api, reader, hidden_drafts).items():
        if "french" in name:  # the drafts are English
            continue
        assert response.status_code == 200, (name, response.get_data(as_text=True))
        assert "quillfeather" in response.get_data(as_text=True).lower(), name
