"""Multilingual content as WPML makes it: records in a language, translation groups.

Every record has the language of the request that created it; ``translation_of`` makes
a new (or updated) record the translation of another of the same type, and every
representation ends with ``language`` and ``translations`` ({language: id} of the
whole group). Most tests run for the five kinds of record (``KIND``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import re
import typing as t

import pytest
from conftest import Api, assert_wp_error
from werkzeug.test import TestResponse

from calendar_rest.app import Application
from calendar_rest.models import Event, EventOrganizer, EventTerm, Organizer, Term, Venue
from calendar_rest.repository.translations import translation_root

FR = "/fr/calendar/events/v1"
ADDITIVE_KEYS = ["language", "translations"]


@dataclasses.dataclass(frozen=True)
class Kind:
    collection: str
    #: the parameter holding the record's name
    name: str
    #: whether the record has a slug route (posts) or not (terms)
    by_slug: bool = True

    def body(self, title: str, **fields: t.Any) -> dict[str, t.Any]:
        body = {self.name: title, **fields}
        if self.collection == "events":
            start = dt.datetime.now().replace(microsecond=0) + dt.timedelta(days=30)
            body.setdefault("start_date", start.strftime("%Y-%m-%d 19:00:00"))
            body.setdefault("end_date", start.strftime("%Y-%m-%d 21:00:00"))
        return body

    def list_query(self) -> str:
        return "hide_empty=0&per_page=50" if not self.by_slug else "per_page=50"


EVENTS = Kind("events", "title")
VENUES = Kind("venues", "venue")
ORGANIZERS = Kind("organizers", "organizer")
CATEGORIES = Kind("categories", "name", by_slug=False)
TAGS = Kind("tags", "name", by_slug=False)
KINDS = [EVENTS, VENUES, ORGANIZERS, CATEGORIES, TAGS]
KIND = pytest.mark.parametrize("kind", KINDS, ids=[kind.collection for kind in KINDS])


# -- helpers ---------------------------------------------------------------------------


def body_of(response: TestResponse, status: int = 200) -> dict[str, t.Any]:
    assert response.status_code == status, response.get_data(as_text=True)
    return t.cast(dict[str, t.Any], response.json)


def create(
    api: Api, kind: Kind, title: str, *, french: bool = False, **fields: t.Any
) -> dict[str, t.Any]:
    """A record created in English, or in French through the French root."""
    path = f"{FR}/{kind.collection}" if french else f"/{kind.collection}"
    return body_of(api.post(path, "administrator", json=kind.body(title, **fields)), 201)


def read(api: Api, kind: Kind, record_id: int) -> dict[str, t.Any]:
    return body_of(api.get(f"/{kind.collection}/{record_id}", "administrator"))


def listed(api: Api, kind: Kind, root: str = "") -> list[dict[str, t.Any]]:
    path = (
        f"{root}/{kind.collection}?{kind.list_query()}"
        if root
        else (f"/{kind.collection}?{kind.list_query()}")
    )
    return t.cast(list[dict[str, t.Any]], body_of(api.get(path))[kind.collection])


def bad_params(response: TestResponse) -> list[str]:
    return list(assert_wp_error(response, 400, "rest_invalid_param")["data"]["params"])


def row_counts(app: Application) -> dict[str, int]:
    models = (Event, Venue, Organizer, Term, EventTerm, EventOrganizer)
    with app.database.connection_context():
        return {model.__name__: model.select().count() for model in models}


def translated_pair(api: Api, kind: Kind) -> tuple[int, int]:
    """An English record and its French translation: their IDs."""
    english = create(api, kind, "Concert")
    french = create(api, kind, "Concert du soir", french=True, translation_of=english["id"])
    return english["id"], french["id"]


# -- the language of a record ----------------------------------------------------------


@pytest.mark.parametrize("how", ["french root", "i18n_language"])
def test_an_event_created_in_french_is_french(api: Api, how: str) -> None:
    if how == "french root":
        event = create(api, EVENTS, "Concert", french=True)
    else:
        event = body_of(
            api.post("/events?i18n_language=fr", "administrator", json=EVENTS.body("Concert")), 201
        )

    assert event["language"] == "fr"
    assert event["translations"] == {"fr": event["id"]}
    assert list(event)[-2:] == ADDITIVE_KEYS


@KIND
def test_a_record_alone_in_its_group_lists_only_itself(api: Api, kind: Kind) -> None:
    record = create(api, kind, "Alone")

    assert (record["language"], record["translations"]) == ("en", {"en": record["id"]})
    assert list(record)[-2:] == ADDITIVE_KEYS
    assert read(api, kind, record["id"])["translations"] == {"en": record["id"]}


@KIND
def test_an_unknown_i18n_language_is_a_400(api: Api, app: Application, kind: Kind) -> None:
    path = f"/{kind.collection}?i18n_language=de"
    assert bad_params(api.get(path)) == ["i18n_language"]
    assert bad_params(api.post(path, "administrator", json=kind.body("Konzert"))) == [
        "i18n_language"
    ]
    assert all(count == 0 for count in row_counts(app).values())


# -- creating translations -------------------------------------------------------------


@KIND
def test_a_french_translation_joins_the_group_of_its_original(api: Api, kind: Kind) -> None:
    english = create(api, kind, "Concert")
    french = create(api, kind, "Concert du soir", french=True, translation_of=english["id"])

    group = {"en": english["id"], "fr": french["id"]}
    assert (french["language"], french["translations"]) == ("fr", group)
    assert list(french["translations"]) == ["en", "fr"]
    assert (
        read(api, kind, english["id"])["language"],
        read(api, kind, english["id"])["translations"],
    ) == ("en", group)
    assert read(api, kind, french["id"])["translations"] == group


@KIND
def test_the_first_translation_shows_at_once_after_reads_that_found_none(
    api: Api, kind: Kind
) -> None:
    """Reads learn, once per write generation, that a table holds no translation and
    skip reading groups there; the write adding the first one, and every read after
    it, must show the group."""
    english = create(api, kind, "Concert")
    alone = {"en": english["id"]}
    assert read(api, kind, english["id"])["translations"] == alone
    assert [item["translations"] for item in listed(api, kind)] == [alone]

    french = create(api, kind, "Concert du soir", french=True, translation_of=english["id"])

    group = {"en": english["id"], "fr": french["id"]}
    assert french["translations"] == group
    assert read(api, kind, english["id"])["translations"] == group
    assert [item["translations"] for item in listed(api, kind)] == [group]
    assert body_of(api.get(f"/{kind.collection}/{english['id']}"))["translations"] == group


@pytest.mark.parametrize(
    "kind", [VENUES, ORGANIZERS, CATEGORIES, TAGS], ids=lambda kind: kind.collection
)
def test_an_embedded_record_shows_its_first_translation_at_once(api: Api, kind: Kind) -> None:
    linked = create(api, kind, "Linked")
    field = {"venues": "venue", "organizers": "organizer"}.get(kind.collection, kind.collection)
    event = create(
        api, EVENTS, "Concert", **{field: linked["id"] if field == "venue" else [linked["id"]]}
    )

    def embedded() -> dict[str, int]:
        shown = read(api, EVENTS, event["id"])[field]
        return t.cast(dict[str, int], (shown if field == "venue" else shown[0])["translations"])

    assert embedded() == {"en": linked["id"]}
    french = create(api, kind, "Fiche", french=True, translation_of=linked["id"])
    assert embedded() == {"en": linked["id"], "fr": french["id"]}


@KIND
def test_translation_of_is_accepted_with_i18n_language_on_the_default_root(
    api: Api, kind: Kind
) -> None:
    english = create(api, kind, "Concert")
    response = api.post(
        f"/{kind.collection}?i18n_language=fr",
        "administrator",
        json=kind.body("Concert FR", translation_of=english["id"]),
    )

    assert body_of(response, 201)["translations"] == {
        "en": english["id"],
        "fr": t.cast(dict[str, t.Any], response.json)["id"],
    }


def test_a_translation_of_a_translation_is_stored_against_the_root(
    api: Api, app: Application
) -> None:
    # the service speaks two languages, so the third member of a group is written here
    # through the repository, in a language the API does not offer
    english, french = translated_pair(api, EVENTS)
    with app.database.connection_context():
        assert Event.get_by_id(french).translation_of == english
        assert Event.get_by_id(english).translation_of is None
        admin = api.users["administrator"]
        assert translation_root(Event, french, "de", None, admin).root == english
        assert translation_root(Event, english, "de", None, admin).root == english


@KIND
def test_a_second_translation_in_a_taken_language_is_refused(
    api: Api, app: Application, kind: Kind
) -> None:
    english, french = translated_pair(api, kind)
    before = row_counts(app)

    for target in (english, french):
        response = api.post(
            f"{FR}/{kind.collection}",
            "administrator",
            json=kind.body("Encore", translation_of=target),
        )
        body = assert_wp_error(response, 400, "rest_invalid_param")
        assert list(body["data"]["params"]) == ["translation_of"]
        assert "translation_of" in body["data"]["params"]["translation_of"]
    assert bad_params(
        api.post(
            f"/{kind.collection}", "administrator", json=kind.body("Again", translation_of=french)
        )
    ) == ["translation_of"]
    assert row_counts(app) == before


@pytest.mark.parametrize(
    ("kind", "other"),
    [
        (EVENTS, VENUES),
        (VENUES, ORGANIZERS),
        (ORGANIZERS, EVENTS),
        (CATEGORIES, TAGS),
        (TAGS, CATEGORIES),
    ],
    ids=lambda kind: kind.collection,
)
def test_an_id_of_another_type_is_refused(
    api: Api, app: Application, kind: Kind, other: Kind
) -> None:
    mine = {create(api, kind, "Mine")["id"]}
    foreign = create(api, other, "Foreign 0")["id"]
    number = 1
    while foreign in mine:  # IDs are per table: find one that is not of ``kind``
        foreign = create(api, other, f"Foreign {number}")["id"]
        number += 1
    before = row_counts(app)

    response = api.post(
        f"{FR}/{kind.collection}",
        "administrator",
        json=kind.body("Traduction", translation_of=foreign),
    )

    assert bad_params(response) == ["translation_of"]
    assert row_counts(app) == before


@KIND
@pytest.mark.parametrize("value", [999_999, 2**40, 0, -3, "abc"])
def test_an_unknown_or_invalid_id_is_refused(
    api: Api, app: Application, kind: Kind, value: t.Any
) -> None:
    before = row_counts(app)
    response = api.post(
        f"{FR}/{kind.collection}",
        "administrator",
        json=kind.body("Traduction", translation_of=value),
    )

    assert bad_params(response) == ["translation_of"]
    assert row_counts(app) == before


def test_a_refused_translation_leaves_no_inline_venue_organizer_or_term_behind(
    api: Api, app: Application
) -> None:
    english = create(api, EVENTS, "Concert")["id"]
    create(api, EVENTS, "Concert FR", french=True, translation_of=english)
    before = row_counts(app)

    response = api.post(
        f"{FR}/events",
        "administrator",
        json=EVENTS.body(
            "Encore",
            translation_of=english,
            venue={"venue": "Salle neuve"},
            organizer=[{"organizer": "Nouvel organisateur"}],
            categories=["Nouvelle"],
            tags=["neuf"],
        ),
    )

    assert bad_params(response) == ["translation_of"]
    assert row_counts(app) == before


def test_a_translation_is_a_new_record_even_with_the_name_of_its_original(api: Api) -> None:
    english = create(api, VENUES, "Olympia")
    french = create(api, VENUES, "Olympia", french=True, translation_of=english["id"])

    assert french["id"] != english["id"]
    assert french["translations"] == {"en": english["id"], "fr": french["id"]}


# -- reading -----------------------------------------------------------------------------


@KIND
def test_lists_hold_the_request_language_with_every_translation(api: Api, kind: Kind) -> None:
    english, french = translated_pair(api, kind)
    group = {"en": english, "fr": french}

    french_items = listed(api, kind, FR)
    english_items = listed(api, kind)

    assert [item["id"] for item in french_items] == [french]
    assert [item["id"] for item in english_items] == [english]
    assert french_items[0]["translations"] == english_items[0]["translations"] == group
    assert french_items[0]["language"] == "fr"
    assert list(french_items[0])[-2:] == ADDITIVE_KEYS


@KIND
def test_the_french_record_is_read_through_the_english_root(api: Api, kind: Kind) -> None:
    english, french = translated_pair(api, kind)

    record = read(api, kind, french)
    assert (record["language"], record["translations"]) == ("fr", {"en": english, "fr": french})
    if kind.by_slug:
        by_slug = body_of(api.get(f"/{kind.collection}/by-slug/{record['slug']}"))
        assert by_slug["id"] == french and by_slug["language"] == "fr"


@pytest.mark.parametrize("single", [False, True], ids=["list", "single"])
def test_embedded_venue_organizer_and_terms_carry_language_and_translations(
    api: Api, single: bool
) -> None:
    pairs = {
        kind.collection: translated_pair(api, kind)
        for kind in (VENUES, ORGANIZERS, CATEGORIES, TAGS)
    }
    event = create(
        api,
        EVENTS,
        "Concert",
        french=True,
        venue=pairs["venues"][1],
        organizer=[pairs["organizers"][1]],
        categories=[pairs["categories"][1]],
        tags=[pairs["tags"][1]],
    )

    if single:  # in French: through the English root, the English translations show
        event = body_of(api.get(f"{FR}/events/{event['id']}", "administrator"))
    else:
        event = listed(api, EVENTS, FR)[0]

    embedded = {
        "venues": event["venue"],
        "organizers": event["organizer"][0],
        "categories": event["categories"][0],
        "tags": event["tags"][0],
    }
    for collection, data in embedded.items():
        english, french = pairs[collection]
        assert data["id"] == french, collection
        assert list(data)[-2:] == ADDITIVE_KEYS, collection
        assert (data["language"], data["translations"]) == ("fr", {"en": english, "fr": french}), (
            collection
        )
    assert list(event)[-2:] == ADDITIVE_KEYS


def test_a_password_protected_event_keeps_its_language_keys_when_redacted(api: Api) -> None:
    english = create(api, EVENTS, "Concert")["id"]
    french = create(api, EVENTS, "Secret", french=True, password="s3cret", translation_of=english)[
        "id"
    ]

    item = body_of(api.get(f"{FR}/events"))["events"][0]

    assert (item["id"], item["description"], item["venue"]) == (french, "", [])
    assert list(item)[-2:] == ADDITIVE_KEYS
    assert item["translations"] == {"en": english, "fr": french}


# -- updates -------------------------------------------------------------------------------


@KIND
def test_an_update_moves_a_record_into_a_group(api: Api, kind: Kind) -> None:
    english = create(api, kind, "Concert")["id"]
    french = create(api, kind, "Concert FR", french=True)["id"]

    # the English root, but the French record: its own language is what counts
    updated = body_of(
        api.patch(f"/{kind.collection}/{french}", "administrator", json={"translation_of": english})
    )

    group = {"en": english, "fr": french}
    assert (updated["language"], updated["translations"]) == ("fr", group)
    assert read(api, kind, english)["translations"] == group
    again = api.patch(
        f"/{kind.collection}/{french}", "administrator", json={"translation_of": english}
    )
    assert body_of(again)["translations"] == group


@KIND
def test_an_update_moving_a_member_leaves_its_old_group(api: Api, kind: Kind) -> None:
    first, french = translated_pair(api, kind)
    second = create(api, kind, "Second")["id"]

    updated = body_of(
        api.patch(f"/{kind.collection}/{french}", "administrator", json={"translation_of": second})
    )

    assert updated["translations"] == {"en": second, "fr": french}
    assert read(api, kind, first)["translations"] == {"en": first}


@KIND
def test_updates_that_would_break_a_group_are_refused(api: Api, kind: Kind) -> None:
    english, french = translated_pair(api, kind)
    other_french = create(api, kind, "Autre", french=True)["id"]
    other_english = create(api, kind, "Other")["id"]

    def refused(record: int, target: int) -> None:
        response = api.patch(
            f"/{kind.collection}/{record}", "administrator", json={"translation_of": target}
        )
        assert bad_params(response) == ["translation_of"], (record, target)

    refused(french, french)  # itself
    refused(english, french)  # the original of its own translation: a cycle
    refused(english, english)
    refused(english, other_french)  # the original of a group cannot join another
    refused(other_english, english)  # English is taken in that group
    refused(other_english, french)
    assert read(api, kind, english)["translations"] == {"en": english, "fr": french}
    assert read(api, kind, other_french)["translations"] == {"fr": other_french}


@pytest.mark.parametrize("kind", [CATEGORIES, TAGS], ids=["categories", "tags"])
def test_deleting_the_original_term_keeps_its_translation_whole(api: Api, kind: Kind) -> None:
    english, french = translated_pair(api, kind)

    body_of(api.delete(f"/{kind.collection}/{english}", "administrator"))
    newcomer = create(api, kind, "Newcomer")["id"]
    rejoined = create(api, kind, "Concert", translation_of=french)["id"]

    assert read(api, kind, french)["translations"] == {"en": rejoined, "fr": french}
    assert read(api, kind, newcomer)["translations"] == {"en": newcomer}


# -- cost ----------------------------------------------------------------------------------


def test_a_translated_event_list_costs_the_same_statements_whatever_the_page_size(
    api: Api, sql_statements: list[str]
) -> None:
    linked = {
        kind.collection: translated_pair(api, kind)
        for kind in (VENUES, ORGANIZERS, CATEGORIES, TAGS)
    }
    for number in range(24):
        english = create(
            api,
            EVENTS,
            f"Event {number}",
            venue=linked["venues"][0],
            organizer=[linked["organizers"][0]],
            categories=[linked["categories"][0]],
            tags=[linked["tags"][0]],
        )
        if number % 2:
            create(api, EVENTS, f"Concert {number}", french=True, translation_of=english["id"])
    api.get("/")  # the first request after writes also reads the next publication date
    api.get("/events?per_page=1")  # and the first list, the longest event (once per write)
    counts = {}
    for per_page in (2, 20):
        sql_statements.clear()
        events = body_of(api.get(f"/events?per_page={per_page}"))["events"]
        assert len(events) == per_page
        assert any(len(event["translations"]) == 2 for event in events)
        assert all(len(event["venue"]["translations"]) == 2 for event in events)
        counts[per_page] = len(sql_statements)
    assert counts[2] == counts[20], counts
    translation_reads = [sql for sql in sql_statements if re.search(r"translation_of\W* IN", sql)]
    assert len(translation_reads) == 1, translation_reads


@pytest.mark.parametrize(
    "kind", [VENUES, ORGANIZERS, CATEGORIES, TAGS], ids=lambda kind: kind.collection
)
def test_a_translated_list_costs_the_same_statements_whatever_the_page_size(
    api: Api, kind: Kind, sql_statements: list[str]
) -> None:
    for number in range(12):
        english = create(api, kind, f"Record {number}")
        create(api, kind, f"Fiche {number}", french=True, translation_of=english["id"])
    api.get("/")  # the first request after writes also reads the next publication date
    counts = {}
    for per_page in (2, 10):
        sql_statements.clear()
        query = f"per_page={per_page}" + ("&hide_empty=0" if not kind.by_slug else "")
        items = body_of(api.get(f"/{kind.collection}?{query}"))[kind.collection]
        assert len(items) == per_page
        assert all(len(item["translations"]) == 2 for item in items)
        counts[per_page] = len(sql_statements)
    assert counts[2] == counts[10], counts


# -- embedding in the request's language (WPML's integration) ---------------------------


LINKED_NAMES = itertools.count()


def event_with_translated_linked_posts(
    api: Api, *, french_status: str = "publish", french_event: bool = False
) -> tuple[int, dict[str, tuple[int, int]]]:
    """An event (English, or French with ``french_event``) linked to the English venue
    and organizer, which have French translations (in ``french_status``)."""
    pairs = {}
    number = next(LINKED_NAMES)  # same-named venues would be one venue (TEC's duplicates)
    for kind in (VENUES, ORGANIZERS):
        english = create(api, kind, f"{kind.name} EN {number}")["id"]
        french = create(
            api,
            kind,
            f"{kind.name} FR {number}",
            french=True,
            translation_of=english,
            status=french_status,
        )["id"]
        pairs[kind.collection] = (english, french)
    event = create(
        api,
        EVENTS,
        "Concert",
        french=french_event,
        venue=pairs["venues"][0],
        organizer=[pairs["organizers"][0]],
    )
    return event["id"], pairs


@pytest.mark.parametrize("single", [True, False], ids=["single", "list"])
def test_an_event_read_in_french_embeds_the_french_venue_and_organizer(
    api: Api, single: bool
) -> None:
    event_id, pairs = event_with_translated_linked_posts(api, french_event=not single)

    if single:
        french_view = body_of(api.get(f"{FR}/events/{event_id}"))
    else:
        french_view = body_of(api.get(f"{FR}/events"))["events"][0]
    english_view = body_of(api.get(f"/events/{event_id}"))

    assert french_view["id"] == english_view["id"] == event_id
    assert french_view["venue"]["id"] == pairs["venues"][1]
    assert french_view["venue"]["venue"].startswith("venue FR")
    assert [o["id"] for o in french_view["organizer"]] == [pairs["organizers"][1]]
    assert french_view["venue"]["translations"] == {
        "en": pairs["venues"][0],
        "fr": pairs["venues"][1],
    }
    assert english_view["venue"]["id"] == pairs["venues"][0]
    assert [o["id"] for o in english_view["organizer"]] == [pairs["organizers"][0]]


def test_an_unpublished_translation_is_never_embedded(api: Api) -> None:
    event_id, pairs = event_with_translated_linked_posts(api, french_status="draft")

    for user in (None, "administrator"):
        french_view = body_of(api.get(f"{FR}/events/{event_id}", user))
        assert french_view["venue"]["id"] == pairs["venues"][0]
        assert [o["id"] for o in french_view["organizer"]] == [pairs["organizers"][0]]


def test_embedding_translations_costs_a_fixed_number_of_statements(
    api: Api, sql_statements: list[str]
) -> None:
    for _ in range(12):
        event_with_translated_linked_posts(api, french_event=True)
    api.get("/")  # the first request after writes also reads the next publication date
    api.get(f"{FR}/events?per_page=1")  # and the first list, the longest event (once per write)
    counts = {}
    for per_page in (2, 10):
        sql_statements.clear()
        events = body_of(api.get(f"{FR}/events?per_page={per_page}"))["events"]
        assert len(events) == per_page
        assert all(event["venue"]["language"] == "fr" for event in events)
        counts[per_page] = len(sql_statements)
    assert counts[2] == counts[10], counts


@pytest.mark.parametrize(
    "kind", [EVENTS, VENUES, ORGANIZERS, CATEGORIES, TAGS], ids=lambda kind: kind.collection
)
def test_public_links_follow_the_records_own_language(api: Api, kind: Kind) -> None:
    """WPML: a post's permalink is in its own language, whatever root asked for it."""
    english = create(api, kind, "Concert")
    french = create(api, kind, "Concert FR", french=True, translation_of=english["id"])

    english_through_fr = body_of(api.get(f"{FR}/{kind.collection}/{english['id']}"))
    french_through_en = body_of(api.get(f"/{kind.collection}/{french['id']}"))

    key = "link" if "link" in english_through_fr else "url"
    assert not english_through_fr[key].startswith("http://localhost/fr/")
    assert french_through_en[key].startswith("http://localhost/fr/")
