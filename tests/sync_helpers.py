"""A sync client's walk of ``GET /changes`` (``sync.md`` §3), shared by the tests of
the change feed and of concurrent writes."""

from __future__ import annotations

import re
import typing as t

from conftest import Api

Body = dict[str, t.Any]
TOKEN = re.compile(r"^[A-Za-z0-9\-_.~]{1,64}$")


def walk(api: Api, as_: str | None = None, **query: t.Any) -> tuple[list[Body], str]:
    """Every page of one walk, following ``next_rest_url``; its entries and token."""
    response = api.get("/changes", as_, query_string=query)
    entries: list[Body] = []
    for _ in range(100):
        assert response.status_code == 200, response.json
        body = response.json
        entries += body["changes"]
        if "next_rest_url" not in body:
            token = body["sync_token"]
            assert TOKEN.match(token), token
            return entries, token
        assert "sync_token" not in body
        response = api.get(body["next_rest_url"], as_)
    raise AssertionError("the walk did not end")


def seen(entries: list[Body]) -> list[tuple[str, int, str]]:
    return [(entry["type"], entry["id"], entry["action"]) for entry in entries]
