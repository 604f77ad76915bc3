"""The app's responses (``answer.py``): the WSGI rules Werkzeug's responses follow,
without their cost."""

from __future__ import annotations

import typing as t

import pytest

from calendar_rest.edge.answer import Answer, HeaderList


def sent(answer: Answer, method: str = "GET") -> tuple[str, list[tuple[str, str]], bytes]:
    started: list[t.Any] = []
    body = answer(
        {"REQUEST_METHOD": method}, lambda status, headers: started.append((status, headers))
    )  # type: ignore[arg-type,return-value]
    ((status, headers),) = started
    return status, headers, b"".join(body)


def test_a_body_is_sent_with_its_length_and_the_headers_in_the_order_set() -> None:
    answer = Answer(b'{"a":1}', 200, [("X-One", "1")], "application/json")
    answer.headers["X-Two"] = 2
    status, headers, body = sent(answer)
    assert status == "200 OK" and body == b'{"a":1}'
    assert headers == [
        ("Content-Type", "application/json"),
        ("Content-Length", "7"),
        ("X-One", "1"),
        ("X-Two", "2"),
    ]


def test_head_keeps_the_length_and_sends_no_body() -> None:
    status, headers, body = sent(Answer(b"12345", 404), "HEAD")
    assert status == "404 NOT FOUND" and body == b""
    assert ("Content-Length", "5") in headers


@pytest.mark.parametrize("status", [204, 304])
def test_no_body_and_no_length_for_204_and_304(status: int) -> None:
    answer = Answer(status=status, headers=[("ETag", '"x"'), ("Last-Modified", "yesterday")])
    line, headers, body = sent(answer)
    assert line.startswith(str(status)) and body == b""
    assert headers == [("ETag", '"x"'), ("Last-Modified", "yesterday")]  # validators kept


def test_a_location_is_sent_as_a_uri() -> None:
    answer = Answer(b"", 201, [("Location", "https://exämple.test/caf\u00e9")])
    _, headers, _ = sent(answer)
    assert ("Location", "https://xn--exmple-cua.test/caf%C3%A9") in headers


def test_header_names_are_read_in_any_case_and_set_replaces_in_place() -> None:
    headers = HeaderList([("Vary", "Accept"), ("Link", "<a>"), ("vary", "Origin")])
    assert headers.get("VARY") == "Accept" and "link" in headers and "ETag" not in headers
    assert headers.getlist("Vary") == ["Accept", "Origin"]
    headers["vary"] = "Cookie"
    assert headers.items() == [("vary", "Cookie"), ("Link", "<a>")]
    assert headers.pop("Link") == "<a>" and headers.pop("Link", None) is None
    with pytest.raises(KeyError):
        headers.pop("Link")
    with pytest.raises(KeyError):
        headers["Link"]  # noqa: B018
    headers.add("Vary", "Accept")
    headers.remove("VARY")
    assert len(headers) == 0


@pytest.mark.parametrize("value", ["a\r\nSet-Cookie: x=1", "a\nb", "a\rb"])
def test_a_value_with_a_line_break_is_refused(value: str) -> None:
    headers = HeaderList()
    for write in (
        lambda: headers.add("X", value),
        lambda: headers.__setitem__("X", value),
        lambda: headers.extend([("X", value)]),
    ):
        with pytest.raises(ValueError):
            write()
    assert len(headers) == 0


def test_the_media_type_is_read_off_the_content_type() -> None:
    assert (
        Answer(b"", content_type="Application/JSON; charset=UTF-8").mimetype == "application/json"
    )
    assert Answer(b"").mimetype == ""


def test_a_replayed_answer_keeps_its_headers_and_adds_no_second_length() -> None:
    made = Answer(b"12345", 200, [("ETag", '"a"')], "text/calendar")
    replayed = Answer.replayed(made.body, made.status_code, tuple(made.headers))
    status, headers, body = sent(replayed)
    assert status == "200 OK" and body == b"12345"
    assert headers == [("Content-Type", "text/calendar"), ("Content-Length", "5"), ("ETag", '"a"')]
