"""A copy kept in sync the way "Keeping a copy in sync" (``docs/sync-and-webhooks.md``)
tells a client to keep one, step by step, and the event list it must end up equal to."""

from __future__ import annotations

import typing as t
from urllib.parse import urlencode

from conftest import Api, Role
from sync_helpers import Body, walk

#: a window holding every event the tests make (``GET /events`` defaults to upcoming ones)
EVERY_DATE = {"start_date": "2000-01-01", "end_date": "2099-12-31"}


class Mirror:
    """The docs' recipe, literally: walk ``/changes`` (the first time without a token,
    then with the last one) and apply each entry in order. On ``upsert`` fetch
    ``rest_url`` and store the record, or, for an entry saying ``protected`` of an event
    whose password this client does not hold, fetch ``listed_url`` and store the one
    event it lists (with the password: ``rest_url?password=…``); on ``delete`` drop it.
    Every fetch must succeed: nothing writes while the client applies a walk."""

    def __init__(self, api: Api, as_: Role, password: str | None = None) -> None:
        """``password``: the one this client holds, for every protected event."""
        self.api = api
        self.as_ = as_
        self.password = password
        self.token: str | None = None
        self.records: dict[tuple[str, int], Body] = {}
        #: how each stored event was fetched: ``rest_url``, ``listed_url`` or ``password``
        self.fetched_by: dict[int, str] = {}

    def sync(self) -> list[Body]:
        """One walk, applied; its entries."""
        query = {} if self.token is None else {"sync_token": self.token}
        entries, self.token = walk(self.api, self.as_, **query)
        for entry in entries:
            self.apply(entry)
        return entries

    def apply(self, entry: Body) -> None:
        key = (entry["type"], entry["id"])
        if entry["action"] == "delete":
            self.records.pop(key, None)
            return
        assert entry["action"] == "upsert", entry
        if entry.get("protected") and self.password is None:
            listed = self.fetch(entry["listed_url"])["events"]
            assert len(listed) <= 1 and all(event["id"] == entry["id"] for event in listed)
            if listed:
                self.store(key, listed[0], "listed_url")
            else:
                self.records.pop(key, None)
        elif entry.get("protected"):
            url = f"{entry['rest_url']}?{urlencode({'password': self.password})}"
            self.store(key, self.fetch(url), "password")
        else:
            self.store(key, self.fetch(entry["rest_url"]), "rest_url")

    def store(self, key: tuple[str, int], record: Body, how: str) -> None:
        self.records[key] = record
        if key[0] == "event":
            self.fetched_by[key[1]] = how

    def fetch(self, url: str) -> Body:
        response = self.api.get(url, self.as_)
        assert response.status_code == 200, (url, response.get_data(as_text=True))
        return t.cast(Body, response.json)

    @property
    def events(self) -> dict[int, Body]:
        return {number: body for (kind, number), body in self.records.items() if kind == "event"}


def listed_events(api: Api, as_: Role, **query: str) -> dict[int, Body]:
    """Every event ``GET /events`` lists to ``as_`` over every date, all pages."""
    response = api.get("/events", as_, query_string={**EVERY_DATE, "per_page": "50", **query})
    events: dict[int, Body] = {}
    for _ in range(100):
        assert response.status_code == 200, response.get_data(as_text=True)
        events |= {event["id"]: event for event in response.json["events"]}
        if "next_rest_url" not in response.json:
            return events
        response = api.get(response.json["next_rest_url"], as_)
    raise AssertionError("the list did not end")


def comparable(value: t.Any) -> t.Any:
    """A representation without what a single read of an unchanged event may show
    differently from its listing: the ``json_ld`` keys single reads add to the event,
    its venue and organizers (TEC §3.7), and the ``count`` of its embedded terms, which
    moves when other events join or leave the term and logs no entry for this one."""
    if isinstance(value, dict):
        is_term = "taxonomy" in value and "term_taxonomy_id" in value
        return {
            key: comparable(item)
            for key, item in value.items()
            if key != "json_ld" and not (is_term and key == "count")
        }
    if isinstance(value, list):
        return [comparable(item) for item in value]
    return value
