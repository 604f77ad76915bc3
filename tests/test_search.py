"""The ``search`` parameter of ``GET /events``, ``/venues`` and ``/organizers`` (security.md
D5, A1): words of every script, folded (accents removed, case folded); every query word
required, as a prefix of a record word, in any order and however many; a query without
any word applies no filter; search narrows the archive without reordering it; a
password-protected event's content is only searched by who may read it; and the word
index is rebuilt when its format is older, so existing records stay searchable.
"""

from __future__ import annotations

import datetime as dt
import typing as t

import pytest
from conftest import ANONYMOUS, Api, Role, api_for
from werkzeug.test import TestResponse

import calendar_rest
from calendar_rest.app import Application
from calendar_rest.models import SearchWord, SiteState
from calendar_rest.queries.lookups.site_state import SEARCH_INDEX
from calendar_rest.repository.search_index import SEARCH_INDEX_VERSION

# -- helpers ---------------------------------------------------------------------------


def day(offset: int) -> dt.date:
    return dt.datetime.now(dt.timezone.utc).date() + dt.timedelta(days=offset)


def add(api: Api, title: str, offset: int = 30, as_: str = "administrator", **fields: t.Any) -> int:
    """An event ``offset`` days ahead (inside the default date window)."""
    start = f"{day(offset).isoformat()} 12:00:00"
    end = f"{day(offset).isoformat()} 13:00:00"
    event = api.create_event(as_=as_, title=title, start_date=start, end_date=end, **fields)
    return int(event["id"])


def body_of(response: TestResponse) -> dict[str, t.Any]:
    assert response.status_code == 200, response.get_data(as_text=True)
    return t.cast(dict[str, t.Any], response.json)


def found(api: Api, search: str, as_: Role = ANONYMOUS, collection: str = "events") -> list[int]:
    """The IDs a search lists, in the order listed (one large page)."""
    query = {"search": search, "per_page": 50}
    return [
        record["id"]
        for record in body_of(api.get(f"/{collection}", as_, query_string=query))[collection]
    ]


def everything(api: Api, collection: str = "events") -> list[int]:
    query = {"per_page": 50}
    return [
        record["id"]
        for record in body_of(api.get(f"/{collection}", query_string=query))[collection]
    ]


# -- words of every script ----------------------------------------------------------------


@pytest.fixture
def scripts(api: Api) -> dict[str, int]:
    """Events whose words come from several scripts, in title, description or excerpt."""
    return {
        "greek title": add(api, "Βραδιά για ξυλόφωνο", 10),
        "greek description": add(api, "Concert", 11, description="<p>ΞΥΛΟΦΩΝΟ και πιάνο</p>"),
        "greek excerpt": add(api, "Recital", 12, excerpt="ξυλοφωνο σόλο"),
        "cyrillic": add(api, "Концерт в Москве", 13, description="Ёлка и хор"),
        "japanese": add(api, "東京音楽祭 2026", 14),
        "supplementary": add(api, "𠮷野家 ランチ", 15),
        "korean": add(api, "서울 재즈 페스티벌", 16),
        "latin": add(api, "Café Müller an der Straße", 17, excerpt="Jazzy evening"),
    }


GREEK = {"greek title", "greek description", "greek excerpt"}
#: (search, the records it finds, a test id)
WORDS = [
    ("ξυλόφωνο", GREEK, "greek accented finds every spelling"),
    ("ξυλοφωνο", GREEK, "greek unaccented"),
    ("ΞΥΛΌΦΩΝΟ", GREEK, "greek upper case"),
    ("ξυλ", GREEK, "greek prefix"),
    ("ΠΙΆΝΟ", {"greek description"}, "greek description word"),
    ("σολο", {"greek excerpt"}, "greek excerpt word"),
    ("москве", {"cyrillic"}, "cyrillic"),
    ("МОСКВ", {"cyrillic"}, "cyrillic upper case prefix"),
    ("концерт москве", {"cyrillic"}, "cyrillic two words"),
    ("елка", {"cyrillic"}, "cyrillic yo folded"),
    ("東京音楽祭", {"japanese"}, "cjk run"),
    ("東京", {"japanese"}, "cjk run prefix"),
    ("東", {"japanese"}, "cjk one character"),
    ("音楽", set(), "cjk middle of a run is no word"),  # no segmentation
    ("東京音楽祭 2026", {"japanese"}, "cjk and digits"),
    ("𠮷野家", {"supplementary"}, "cjk beyond the bmp"),
    ("𠮷", {"supplementary"}, "cjk beyond the bmp prefix"),
    ("ランチ", {"supplementary"}, "katakana"),
    ("서울", {"korean"}, "hangul"),
    ("재즈 서", {"korean"}, "hangul two words"),
    ("cafe muller", {"latin"}, "accents removed"),
    ("CAFÉ", {"latin"}, "accented upper case"),
    ("MÜLL", {"latin"}, "accented prefix"),
    ("strasse", {"latin"}, "sharp s folded"),
    ("Straße", {"latin"}, "sharp s"),
]


@pytest.mark.parametrize(
    ("search", "expected"),
    [pytest.param(search, expected, id=name) for search, expected, name in WORDS],
)
def test_words_of_every_script_match_folded_in_title_description_and_excerpt(
    api: Api, scripts: dict[str, int], search: str, expected: set[str]
) -> None:
    assert sorted(found(api, search)) == sorted(scripts[name] for name in expected)


def test_a_query_of_non_latin_words_matches_only_the_records_containing_them(
    api: Api, scripts: dict[str, int]
) -> None:
    """Regression: a Greek or CJK search word was dropped, so the query matched
    everything."""
    assert len(everything(api)) == len(scripts)
    assert found(api, "θάλασσα") == []
    assert found(api, "大阪") == []
    assert found(api, "Петербург") == []
    assert found(api, "ξυλόφωνο 大阪") == []
    assert found(api, "東京 ξυλόφωνο") == []
    assert found(api, "東京 jazz") == []
    assert found(api, "東京音楽祭") == [scripts["japanese"]]
    assert found(api, "Москве") == [scripts["cyrillic"]]


def test_a_word_longer_than_the_indexed_length_still_finds_its_record(api: Api) -> None:
    long_greek = "ξυλοφωνο" * 8  # 64 letters
    long_latin = "supercalifragilistic" * 3  # 60 letters
    greek = add(api, f"Festival {long_greek.upper()}", 10)
    latin = add(api, "Other", 11, description=f"<p>{long_latin}</p>")
    assert found(api, long_greek) == [greek]
    assert found(api, long_latin.upper()) == [latin]
    assert found(api, long_latin[:25]) == [latin]


# -- every word, as a prefix ---------------------------------------------------------------

TWELVE = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima".split()


@pytest.fixture
def worded(api: Api) -> dict[str, int]:
    return {
        "all": add(api, "Alpha bravo charlie", 10, description=" ".join(TWELVE[3:])),
        "eleven": add(api, "Alpha bravo charlie", 11, description=" ".join(TWELVE[3:-1])),
        "jazz": add(api, "Jazzy Night", 12),
        "both": add(api, "Night of jazz", 13),
    }


def test_every_word_must_match_in_any_order_however_many(api: Api, worded: dict[str, int]) -> None:
    assert found(api, " ".join(TWELVE)) == [worded["all"]]
    assert found(api, " ".join(reversed(TWELVE))) == [worded["all"]]
    assert found(api, " ".join(TWELVE[:11])) == [worded["all"], worded["eleven"]]
    assert found(api, " ".join(TWELVE[1:] + ["zulu"])) == []  # 11 of 12 match: nothing
    assert found(api, " ".join(["zulu", *TWELVE])) == []  # the unknown word first
    assert found(api, " ".join([*TWELVE, "zulu"])) == []  # the unknown word last
    assert found(api, " ".join(TWELVE * 3)) == [worded["all"]]  # 36 words, repeats
    assert found(api, "night jazz") == [worded["jazz"], worded["both"]]
    assert found(api, "jazz\tnight") == found(api, "NIGHT  jazz") == found(api, "night jazz")


def test_a_word_matches_as_a_prefix_of_a_record_word(api: Api, worded: dict[str, int]) -> None:
    assert found(api, "jazz") == [worded["jazz"], worded["both"]]
    assert found(api, "ja") == [worded["jazz"], worded["both"]]
    assert found(api, "jazzy") == [worded["jazz"]]
    assert found(api, "jazzyy") == []
    assert found(api, "azz") == []  # a prefix, never a substring
    assert found(api, "ight") == []


@pytest.mark.parametrize(
    "search",
    ["!!!", " - ", "…", "¿?", "_", "«»", " ", "\u3000", "\t \n"],
    ids=["bangs", "dash", "ellipsis", "questions", "underscore", "guillemets", "space",
         "ideographic space", "whitespace"],
)  # fmt: skip
def test_a_query_without_any_word_applies_no_filter(
    api: Api, worded: dict[str, int], search: str
) -> None:
    """Punctuation or whitespace only (security.md D5)."""
    assert found(api, search) == everything(api)
    assert len(found(api, search)) == len(worded)


def test_words_between_punctuation_are_still_words(api: Api, worded: dict[str, int]) -> None:
    assert found(api, "«jazz»!") == [worded["jazz"], worded["both"]]
    assert found(api, "night,jazzy") == [worded["jazz"]]
    assert found(api, "jazz_night") == [worded["jazz"], worded["both"]]  # "_" is no letter


# -- order and date window -----------------------------------------------------------------


def test_search_narrows_the_archive_but_never_reorders_it(api: Api) -> None:
    created = {
        40: add(api, "Jazz at forty", 40),
        10: add(api, "Jazz at ten", 10),
        25: add(api, "Rock at twenty-five", 25),
        30: add(api, "Jazz at thirty", 30),
        20: add(api, "Jazz at twenty", 20),
    }
    past = add(api, "Jazz long ago", -10)
    far = add(api, "Jazz far away", 800)  # after the default two-year window
    archive = everything(api)
    assert archive == [created[offset] for offset in sorted(created)]
    jazz = found(api, "jazz")
    assert jazz == [created[offset] for offset in (10, 20, 30, 40)]
    assert jazz == [event for event in archive if event in jazz]
    assert past not in jazz and far not in jazz
    assert found(api, "jazz at t") == [created[offset] for offset in (10, 20, 30)]
    page = body_of(api.get("/events", query_string={"search": "jazz", "per_page": 2, "page": 2}))
    assert [event["id"] for event in page["events"]] == [created[30], created[40]]
    assert page["total"] == 4


# -- venues and organizers ---------------------------------------------------------------

LINKED = {"venues": "venue", "organizers": "organizer"}


@pytest.mark.parametrize("collection", list(LINKED))
def test_venue_and_organizer_search_follows_the_same_word_rules(api: Api, collection: str) -> None:
    name = LINKED[collection]

    def create(title: str, **fields: t.Any) -> int:
        response = api.post(f"/{collection}", "administrator", json={name: title, **fields})
        assert response.status_code == 201, response.get_data(as_text=True)
        return int(response.json["id"])

    greek = create("Αίθουσα ξυλόφωνο")
    cjk = create("東京ホール", description="<p>音楽 ライブ</p>")
    accents = create("Théâtre Müller", description="Jazzy stage")
    plain = create("Blue Note")

    def search(text: str) -> set[int]:
        return set(found(api, text, collection=collection))

    assert search("ξυλοφωνο") == search("ΞΥΛΌΦΩΝΟ") == {greek}
    assert search("αιθουσα ξυλ") == {greek}
    assert search("東京") == {cjk}
    assert search("ライブ 音楽") == {cjk}
    assert search("ホール") == set()
    assert search("θάλασσα") == set()
    assert search("theatre MULLER") == {accents}
    assert search("jazz") == {accents}
    assert search("note blue") == {plain}
    assert search("note blue green") == set()
    assert search("!!!") == {greek, cjk, accents, plain}


# -- A1: password-protected content ----------------------------------------------------

#: (caller, whether it may read the author's protected content)
PROTECTED_READERS = [
    (ANONYMOUS, False),
    ("subscriber", False),
    ("contributor", False),
    ("author2", False),
    ("author", True),
    ("editor", True),
    ("administrator", True),
]


@pytest.mark.parametrize(
    ("caller", "reads_content"),
    PROTECTED_READERS,
    ids=["anonymous" if caller is None else caller for caller, _ in PROTECTED_READERS],
)
def test_a_protected_events_content_is_searched_only_by_who_may_read_it(
    api: Api, caller: Role, reads_content: bool
) -> None:
    protected = add(
        api,
        "Locked gala",
        10,
        as_="author",
        description="<p>Hidden treasure</p>",
        excerpt="Secret passage",
        password="s3cret",
    )
    public = add(api, "Open gala", 11, as_="author", description="<p>Public treasure</p>")
    assert found(api, "gala", caller) == [protected, public]
    assert found(api, "locked", caller) == [protected]
    content = [protected] if reads_content else []
    for search in ("hidden", "hid", "secret", "sec", "passage", "locked treasure"):
        assert found(api, search, caller) == content, search
    assert found(api, "treasure", caller) == [*content, public]


# -- re-indexing -------------------------------------------------------------------------


def test_existing_records_are_reindexed_when_the_index_format_is_older(
    api: Api, app: Application, sibling_app: t.Callable[..., Application]
) -> None:
    event = add(api, "Βραδιά ξυλόφωνο", 10, description="<p>東京音楽祭 𠮷野家</p>")
    protected = add(api, "Locked", 11, description="Treasure", password="s3cret")
    venue = api.post("/venues", "administrator", json={"venue": "Αίθουσα Μουσικής"}).json["id"]
    organizer = api.post("/organizers", "administrator", json={"organizer": "Оркестр"}).json["id"]
    with app.database.connection_context():
        SearchWord.delete().execute()  # an outdated index: no word of these records
        SiteState.update(value=0).where(SiteState.key == SEARCH_INDEX).execute()
    before = api_for(sibling_app(), api)  # a process of its own (its own response cache)
    assert found(before, "ξυλοφωνο") == []
    assert found(before, "Αίθουσα", collection="venues") == []

    calendar_rest.create_schema(app.database)

    with app.database.connection_context():
        version = SiteState.get(SiteState.key == SEARCH_INDEX).value
        words = SearchWord.select().count()
    assert version == SEARCH_INDEX_VERSION and words > 0
    assert found(api, "ξυλοφωνο") == [event]
    assert found(api, "東京 𠮷") == [event]
    assert found(api, "treasure") == []  # protected content stays protected
    assert found(api, "treasure", "administrator") == [protected]
    assert found(api, "αιθουσα μουσ", collection="venues") == [venue]
    assert found(api, "ОРКЕСТР", collection="organizers") == [organizer]
    with app.database.connection_context():
        SearchWord.delete().execute()
    calendar_rest.create_schema(app.database)  # the format is current: no second rebuild
    with app.database.connection_context():
        assert SearchWord.select().count() == 0
