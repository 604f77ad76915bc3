"""Log lines: one JSON object (or one text line) per record, the request ID on each.

``serve`` and ``webhooks run`` call :func:`configure` (``--log-format json|text``);
an app embedded in another stack logs through that stack's handlers, and may give
them :class:`RequestIdFilter` and either formatter. The access log line of each
request is an :class:`AccessRecord` on the ``calendar_rest.access`` logger, made
only when that logger is enabled for INFO: its fields are in ``record.access``, and
it never holds a password, a token, a query string or a body (``operations.md`` §3).
"""

from __future__ import annotations

import logging
import os
import sys
import time
import typing as t

import orjson

from . import request_ids

ACCESS_LOGGER = "calendar_rest.access"
access_log = logging.getLogger(ACCESS_LOGGER)
FORMATS = ("json", "text")


class AccessRecord(logging.LogRecord):
    """The access line of one request, made in a fraction of a ``LogRecord``'s usual
    time: it skips the caller lookup and the per-record process and thread names
    (an access line's origin is always the same), which would cost a cached read
    more than the rest of its logging (``bench/operations.py``)."""

    _TEMPLATE: t.ClassVar[dict[str, t.Any]] = {
        "name": ACCESS_LOGGER,
        "levelno": logging.INFO,
        "levelname": "INFO",
        "pathname": __file__,
        "filename": os.path.basename(__file__),
        "module": __name__.rsplit(".", 1)[-1],
        "lineno": 0,
        "funcName": "access",
        "exc_info": None,
        "exc_text": None,
        "stack_info": None,
        "thread": None,
        "threadName": None,
        "process": None,
        "processName": None,
        "taskName": None,
        "relativeCreated": 0.0,
        "msg": '%(client)s "%(method)s %(path)s" %(status)s %(bytes)s %(duration_ms)sms',
    }

    def __init__(self, fields: dict[str, t.Any], created: float, level: int = logging.INFO) -> None:
        self.__dict__.update(self._TEMPLATE)
        if level != logging.INFO:
            self.levelno, self.levelname = level, logging.getLevelName(level)
        self.created = created
        self.msecs = (created - int(created)) * 1000
        self.args = fields  # the text message, when a formatter asks for it
        self.access = fields
        self.request_id = fields["request_id"]


def write_access(fields: dict[str, t.Any], created: float, level: int = logging.INFO) -> None:
    """Log one request's access line at ``level`` (call only when ``access_log`` is
    enabled for it: the record is not made otherwise)."""
    access_log.handle(AccessRecord(fields, created, level))


class RequestIdFilter(logging.Filter):
    """Gives every record the ID of the request its thread serves (``request_id``,
    None outside a request), for handlers that format elsewhere (a queue's)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_ids.current.get()
        return True


def request_id_of(record: logging.LogRecord) -> str | None:
    """The request ID a record carries, else the one of the request being served."""
    given = getattr(record, "request_id", None)
    return str(given) if given else request_ids.current.get()


class _Clock:
    """ISO 8601 UTC times to the millisecond, the second's part kept (a request log
    writes many lines a second)."""

    def __init__(self) -> None:
        self.second = -1
        self.prefix = ""

    def __call__(self, created: float) -> str:
        second = int(created)
        if second != self.second:
            self.prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
            self.second = second
        return f"{self.prefix}.{int((created - second) * 1000):03d}Z"


class JsonFormatter(logging.Formatter):
    """One JSON object a line: an access record's fields, or a record's time, level,
    logger, message, request ID and traceback (one line, however long)."""

    def __init__(self) -> None:
        super().__init__()
        self.clock = _Clock()

    def format(self, record: logging.LogRecord) -> str:
        access = getattr(record, "access", None)
        if access is not None:
            document = {"time": self.clock(record.created), **access}
        else:
            document = {
                "time": self.clock(record.created),
                "level": record.levelname,
                "logger": record.name,
                "message": record.getMessage(),
                "request_id": request_id_of(record),
            }
            if record.exc_info:
                document["traceback"] = self.formatException(record.exc_info)
            if record.stack_info:
                document["stack"] = self.formatStack(record.stack_info)
        return orjson.dumps(document, default=str).decode()


class TextFormatter(logging.Formatter):
    """Time, level, logger and ``[request ID]`` before the message; every further
    line (a traceback's) starts with the request ID too, so a search for it finds
    the whole record."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s")
        self.clock = _Clock()

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802
        return self.clock(record.created)

    def format(self, record: logging.LogRecord) -> str:
        request_id = request_id_of(record) or "-"
        record.request_id = request_id
        text = super().format(record)
        if "\n" not in text:
            return text
        first, *rest = text.split("\n")
        return "\n".join([first, *(f"[{request_id}] {line}" for line in rest)])


def formatter_for(log_format: str) -> logging.Formatter:
    if log_format not in FORMATS:
        raise ValueError(f"log format must be one of {', '.join(FORMATS)}")
    return JsonFormatter() if log_format == "json" else TextFormatter()


def default_format(stream: t.TextIO) -> str:
    """``text`` on a terminal, ``json`` otherwise (a file, a pipe, a collector)."""
    isatty = getattr(stream, "isatty", None)
    return "text" if isatty is not None and isatty() else "json"


#: the handler :func:`configure` installed on the root logger, replaced by the next call
_installed: logging.Handler | None = None


def configure(
    log_format: str | None = None, stream: t.TextIO | None = None, level: int = logging.INFO
) -> logging.Handler:
    """Log every record at ``level`` or above to ``stream`` (standard error) in
    ``log_format`` (None: :func:`default_format`), with request IDs: what ``serve``
    and ``webhooks run`` do at start."""
    global _installed
    stream = stream or sys.stderr
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter_for(log_format or default_format(stream)))
    handler.addFilter(RequestIdFilter())
    root = logging.getLogger()
    unconfigure()
    root.addHandler(handler)
    root.setLevel(level)
    # Peewee logs every statement with its parameters at DEBUG: request bodies and
    # password hashes. Not even a DEBUG log may carry them (operations.md §3).
    logging.getLogger("peewee").setLevel(max(level, logging.INFO))
    _installed = handler
    return handler


def unconfigure() -> None:
    """Remove the handler :func:`configure` installed, if any."""
    global _installed
    if _installed is not None:
        logging.getLogger().removeHandler(_installed)
        _installed = None
