"""Every answer's head (``serving/response_head.py``) is byte for byte the one
waitress's own ``build_response_header`` writes, and leaves the task as waitress does
(framing headers added, connection closed or kept), whatever the headers, versions,
statuses and ``Connection`` of the request."""

from __future__ import annotations

import itertools
import random
import types
import typing as t

import pytest
from waitress.task import WSGITask

from calendar_rest.serving.response_head import answer_task
from calendar_rest.serving.server import sending_channel

NAMES = (
    "content-type",
    "Content-Length",
    "X-WP-Total",
    "etag",
    "ETag",
    "Date",
    "server",
    "Server",
    "Link",
    "x-request-id",
    "RateLimit",
    "RateLimit-Policy",
    "Vary",
    "Connection",
    "WWW-Authenticate",
    "x--odd-",
    "x-b2b-id",
)
VALUES = ("", "10", "0", "close", "Keep-Alive", '"anon";r=5;t=1', "Sun, 29 Nov 2026 03:19:58 GMT")


def task(
    kind: type, version: str, connection: str | None, status: str, length: int | None
) -> t.Any:
    """A task of ``kind`` for a request of ``version`` and ``Connection``, answered
    ``status`` with a body of ``length`` bytes as far as the app told (None: not told)."""
    request = types.SimpleNamespace(
        version=version, headers={"CONNECTION": connection} if connection else {}
    )
    adjustments = types.SimpleNamespace(ident="waitress")
    channel = types.SimpleNamespace(server=types.SimpleNamespace(adj=adjustments))
    made = kind(channel, request)
    made.status, made.content_length, made.start_time = status, length, 1_790_000_000.0
    return made


def cases(count: int) -> t.Iterator[tuple[list[tuple[str, str]], str, str | None, str, int | None]]:
    chance = random.Random(34)
    framings = itertools.cycle(
        itertools.product(
            ("1.0", "1.1"),
            (None, "keep-alive", "close", "Keep-Alive"),
            ("200 OK", "204 No Content", "304 Not Modified", "101 Switching", "404 Not Found"),
            (None, 0, 37455),
        )
    )
    for _ in range(count):
        version, connection, status, length = next(framings)
        headers = [
            (chance.choice(NAMES), chance.choice(VALUES)) for _ in range(chance.randrange(0, 18))
        ]
        yield headers, version, connection, status, length


def outcome(made: t.Any, headers: list[tuple[str, str]]) -> tuple[t.Any, ...]:
    made.response_headers = list(headers)
    head = made.build_response_header()
    return head, made.response_headers, made.close_on_finish, made.chunked_response


def test_the_head_and_the_task_are_waitress_s_own() -> None:
    mine = answer_task()
    compared = 0
    for headers, version, connection, status, length in cases(3000):
        theirs = outcome(task(WSGITask, version, connection, status, length), headers)
        ours = outcome(task(mine, version, connection, status, length), headers)
        assert ours == theirs, (headers, version, connection, status, length)
        compared += 1
    assert compared == 3000


def test_a_name_s_title_is_waitress_s_even_past_the_titles_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from calendar_rest.serving import response_head

    monkeypatch.setattr(response_head, "_titles", response_head._Titles())
    monkeypatch.setattr(response_head, "TITLES_KEPT", 2)
    headers = [(f"x-name-{number}", "1") for number in range(5)]
    ours = outcome(task(answer_task(), "1.1", None, "200 OK", 1), headers)
    theirs = outcome(task(WSGITask, "1.1", None, "200 OK", 1), headers)
    assert ours == theirs
    assert b"X-Name-4: 1\r\n" in ours[0]
    assert len(response_head._titles) == 2


def test_the_served_connections_use_it() -> None:
    assert sending_channel().task_class is answer_task()
