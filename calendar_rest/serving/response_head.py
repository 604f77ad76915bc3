"""The head of every answer, as waitress writes it, for a fraction of its cost.

waitress title-cases each header name in Python (``x-wp-total`` → ``X-Wp-Total``:
split, capitalise every part, join) and sorts and formats the lines with a Python
function a header: a few microseconds for each of the fifteen headers of a cached
read, as much again as the app's own work on it. :class:`answer_task`'s
``build_response_header`` writes the same bytes, each name's title worked out once and
the lines made by C loops (``map``, ``itemgetter``), so an extra header (a request ID,
the rate limits' two) costs little (``bench/operations.py``, ``bench/rate_limits.py``).
"""

from __future__ import annotations

import functools
import operator
import typing as t

#: the most header names whose titles are kept (an app sends a small set of names)
TITLES_KEPT = 512
_NAME = operator.itemgetter(0)
_VALUE = operator.itemgetter(1)


class _Titles(dict[str, str]):
    """Header names as waitress writes them, each worked out on first sight."""

    def __missing__(self, name: str) -> str:
        title = "-".join([part.capitalize() for part in name.split("-")])
        if len(self) < TITLES_KEPT:
            self[name] = title
        return title


_titles = _Titles()


@functools.cache
def answer_task() -> type:
    """waitress's WSGI task with the cheaper ``build_response_header``."""
    from waitress.task import WSGITask

    class AnswerTask(WSGITask):
        def build_response_header(self) -> bytes:
            """``WSGITask.build_response_header``, its per-header loop in C."""
            return response_head(self)

    return AnswerTask


def response_head(task: t.Any) -> bytes:
    """What waitress's ``build_response_header`` makes of ``task``'s status and headers
    (and what it sets on the task), step by step: the names title-cased, then
    waitress's own logic for the framing headers, ``Server`` and ``Date``."""
    from waitress.utilities import build_http_date

    given = task.response_headers
    headers = list(
        zip(map(_titles.__getitem__, map(_NAME, given)), map(_VALUE, given), strict=True)
    )
    last = dict(headers)  # waitress keeps the last of each name
    content_length = last.get("Content-Length")
    if content_length is not None and not task.has_body:
        headers = [header for header in headers if header[0] != "Content-Length"]
        content_length = None
    task.response_headers = headers
    framing(task, content_length)
    ident = task.channel.server.adj.ident
    if not last.get("Server"):
        if ident:
            headers.append(("Server", ident))
    else:
        headers.append(("Via", ident or "waitress"))
    if not last.get("Date"):
        headers.append(("Date", build_http_date(task.start_time)))
    # a stable sort keeps the order of the lines of one name (RFC 9110 §5.3)
    lines = [
        f"HTTP/{task.version} {task.status}",
        *map("%s: %s".__mod__, sorted(headers, key=_NAME)),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def framing(task: t.Any, content_length: str | None) -> None:
    """waitress's ``Content-Length``, ``Connection`` and ``Transfer-Encoding``, and
    whether the connection closes after the answer, as it decides them."""
    connection = task.request.headers.get("CONNECTION", "").lower()
    if content_length is None and task.content_length is not None and task.has_body:
        content_length = str(task.content_length)
        task.response_headers.append(("Content-Length", content_length))
    if task.version == "1.0":
        if connection == "keep-alive":
            if not content_length:
                task.set_close_on_finish()
            else:
                task.response_headers.append(("Connection", "Keep-Alive"))
        else:
            task.set_close_on_finish()
    elif task.version == "1.1":
        if connection == "close":
            task.set_close_on_finish()
        if not content_length:
            if task.has_body:
                task.response_headers.append(("Transfer-Encoding", "chunked"))
                task.chunked_response = True
            if not task.close_on_finish:
                task.set_close_on_finish()
    else:
        raise AssertionError("neither HTTP/1.0 or HTTP/1.1")
