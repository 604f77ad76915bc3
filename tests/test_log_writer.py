"""Log lines written in batches (``telemetry/log_writer.py``): one write for many
lines, whole lines in writes of at most ``PIPE_BUF`` bytes, a WARNING at once, the
rest within ``FLUSH_SECONDS``, everything at exit."""

from __future__ import annotations

import io
import logging
import time
import typing as t

import pytest

from calendar_rest.telemetry import log_writer, logs


class Writes(io.StringIO):
    """A stream that remembers each write."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return super().write(text)


@pytest.fixture
def stream() -> t.Iterator[Writes]:
    sink = Writes()
    root = logging.getLogger()
    level = root.level
    logs.configure("json", sink)
    try:
        yield sink
    finally:
        logs.unconfigure()
        root.setLevel(level)
        logging.getLogger("peewee").setLevel(logging.NOTSET)


def access(number: int) -> None:
    fields = {
        "request_id": f"r-{number}", "method": "GET", "route": "/x", "path": "/x",
        "status": 200, "bytes": 10, "duration_ms": 0.1, "client": "127.0.0.1",
    }  # fmt: skip
    logs.write_access(fields, time.time())


def test_lines_wait_for_the_batch_and_come_within_the_flush_interval(stream: Writes) -> None:
    for number in range(20):
        access(number)
    assert stream.writes == []  # nothing written yet: one batch to come
    deadline = time.monotonic() + 5 * log_writer.FLUSH_SECONDS + 2
    while not stream.writes and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(stream.writes) == 1
    lines = stream.getvalue().splitlines()
    assert [line.split('"request_id":"')[1].split('"')[0] for line in lines] == [
        f"r-{number}" for number in range(20)
    ]


def test_a_warning_is_written_at_once_with_the_lines_before_it(stream: Writes) -> None:
    access(1)
    logging.getLogger("calendar_rest").warning("look")
    assert len(stream.writes) == 1
    assert stream.writes[0].count("\n") == 2 and '"look"' in stream.writes[0]


def test_each_write_holds_whole_lines_and_at_most_pipe_buf_bytes(stream: Writes) -> None:
    for number in range(200):  # ~ 100 bytes a line: 20,000 bytes
        access(number)
    logs.unconfigure()  # writes what is left
    assert stream.getvalue().count("\n") == 200
    assert len(stream.writes) >= 5
    for text in stream.writes:
        assert text.endswith("\n") and len(text.encode()) <= log_writer.BATCH_BYTES


def test_a_line_longer_than_a_batch_is_written_alone(stream: Writes) -> None:
    logging.getLogger("calendar_rest").info("x" * (2 * log_writer.BATCH_BYTES))
    access(1)
    logs.unconfigure()
    assert [text.count("\n") for text in stream.writes] == [1, 1]


def test_logging_shutdown_writes_what_is_pending(stream: Writes) -> None:
    access(7)
    handler = logs._installed
    assert handler is not None
    handler.flush()  # what logging.shutdown calls on every handler at exit
    assert '"r-7"' in stream.getvalue()
