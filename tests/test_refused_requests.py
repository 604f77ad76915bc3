"""Requests waitress refuses itself, sent with a raw socket to a real ``calendar-rest
serve`` (operations.md §4; issue 30, finding 7).

A header line waitress cannot parse (no colon, a NUL byte, a space before the colon)
leaves its request without a method; on SQLite the read lane asked for it, raised
``AttributeError`` in waitress's main loop, and the connection was dropped without an
answer, the exception logged. Each refusal must be a WordPress-style JSON error with
the status waitress gives it, an anonymous ``GET`` (the read lane's requests) as any
other, under one process and ``--workers 2``, with nothing logged as an error.
"""

from __future__ import annotations

import json
import socket
import typing as t
from pathlib import Path

import pytest
from conftest import NS
from serve_process import HOST, serving

pytestmark = pytest.mark.server

#: what breaks the request: a header line, what waitress answers and the app's code
REFUSED: list[tuple[str, bytes, int, str]] = [
    ("a line without a colon", b"X-No-Colon", 400, "rest_malformed_request"),
    ("a NUL byte", b"X-Nul: a\x00b", 400, "rest_malformed_request"),
    ("a space before the colon", b"Content-Length : 0", 400, "rest_malformed_request"),
    ("a length that is no number", b"Content-Length: ten", 400, "rest_malformed_request"),
    ("an unknown coding", b"Transfer-Encoding: gzip", 501, "rest_transfer_coding_not_implemented"),
    ("a body over the limit", b"Content-Length: 2000000", 413, "rest_payload_too_large"),
    ("headers over the limit", b"X-Big: " + b"b" * 300_000, 431, "rest_headers_too_large"),
]


def refusal(port: int, line: bytes) -> tuple[str, dict[str, str], t.Any, bool]:
    """Send an anonymous ``GET /events`` with ``line`` among its headers; the status
    line, headers and JSON body of the answer, and whether the server then closed."""
    with socket.create_connection((HOST, port), timeout=5) as sock:
        head = f"GET {NS}/events HTTP/1.1\r\nHost: {HOST}\r\n".encode() + line + b"\r\n\r\n"
        sock.sendall(head)
        data = b""
        try:
            while chunk := sock.recv(65536):
                data += chunk
        except ConnectionResetError:  # closed with the rest of a long head unread
            pass
    assert data, f"no answer to {line[:40]!r}: the connection was dropped"
    top, _, body = data.partition(b"\r\n\r\n")
    status, *lines = top.decode("latin-1").split("\r\n")
    headers = {}
    for header in lines:
        name, _, value = header.partition(":")
        headers[name.strip().lower()] = value.strip()
    assert len(body) == int(headers["content-length"])
    return status, headers, json.loads(body), headers.get("connection") == "close"


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_every_refused_request_is_answered_with_a_json_error(tmp_path: Path, workers: int) -> None:
    if workers > 1:
        pytest.importorskip("gunicorn", reason="the 'workers' extra (gunicorn) is not installed")
    answered = []
    with serving(tmp_path, workers) as served:
        for name, line, status, code in REFUSED:
            answered.append((name, *refusal(served.port, line), status, code))
        output = served.output()
    for name, status_line, headers, body, closed, status, code in answered:
        assert status_line.split()[1] == str(status), (name, status_line)
        assert headers["content-type"] == "application/json; charset=UTF-8", name
        assert set(body) == {"code", "message", "data"} and body["message"], (name, body)
        assert (body["code"], body["data"]["status"]) == (code, status), name
        assert closed, name
    assert "Traceback" not in output and "exception" not in output.lower(), output
    assert "ERROR" not in output, output
