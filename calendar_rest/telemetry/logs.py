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
import threading
import time
import typing as t

import orjson

from . import request_ids
from .log_writer import BatchedStreamHandler

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
        attributes = self._TEMPLATE.copy()  # one copy, not one assignment a field
        if level != logging.INFO:
            attributes["levelno"], attributes["levelname"] = level, logging.getLevelName(level)
        attributes["created"] = created
        attributes["msecs"] = (created - int(created)) * 1000
        attributes["args"] = attributes["access"] = fields  # args: for a text message
        attributes["request_id"] = fields["request_id"]
        self.__dict__ = attributes


def write_access(fields: dict[str, t.Any], created: float, level: int = logging.INFO) -> None:
    """Log one request's access line at ``level`` (call only when ``access_log`` is
    enabled for it: the record is not made otherwise).

    When the line would reach only the JSON handler :func:`configure` installed, through
    none but its own filter (as under ``serve``), that handler's line is written here,
    without a record and the logging module's dispatch: the same line, for less than
    half the instructions (``bench/operations.py``). The checks are those of
    ``Logger.handle`` and ``Logger.callHandlers``' walk, inlined."""
    handler = _installed
    formatter = handler.formatter if handler is not None else None
    if (
        handler is not None
        and type(formatter) is JsonFormatter
        and level >= handler.level
        and handler.filters == _installed_filters
        and _root.handlers == [handler]
        and not access_log.handlers
        and not access_log.filters
        and access_log.propagate
    ):
        logger = access_log.parent
        while logger is not _root:
            if logger is None or logger.handlers or not logger.propagate:
                break
            logger = logger.parent
        else:
            line = formatter.access_line(fields, created) + handler.terminator
            try:
                with t.cast(threading.RLock, handler.lock):  # made by Handler.__init__
                    handler.add(line)
            except RecursionError:  # as logging.StreamHandler.emit
                raise
            except Exception:
                handler.handleError(AccessRecord(fields, created, level))
            return
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


#: ``.000Z`` to ``.999Z`` (and ``.1000Z``, as ``:03d`` would print a rounding to 1000)
_MILLISECONDS = tuple(f".{number:03d}Z" for number in range(1001))


class _Clock:
    """ISO 8601 UTC times to the millisecond, the second's part kept (a request log
    writes many lines a second)."""

    def __init__(self) -> None:
        self.second: tuple[int, str] = (-1, "")  # one attribute: threads read it whole

    def time_of(self, created: float) -> str:
        whole = int(created)
        second, prefix = self.second
        if whole != second:
            prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
            self.second = (whole, prefix)
        return prefix + _MILLISECONDS[int((created - whole) * 1000)]


class JsonFormatter(logging.Formatter):
    """One JSON object a line: an access record's fields, or a record's time, level,
    logger, message, request ID and traceback (one line, however long)."""

    def __init__(self) -> None:
        super().__init__()
        self.clock = _Clock().time_of

    def access_line(self, fields: dict[str, t.Any], created: float) -> str:
        """An access record's line, from its fields and time: ``{"time": ..., **fields}``,
        the fields' JSON spliced after the time rather than copied into a new dict."""
        if not fields or "time" in fields:
            return orjson.dumps({"time": self.clock(created), **fields}, default=str).decode()
        rest = orjson.dumps(fields, default=str).decode()
        return f'{{"time":"{self.clock(created)}",{rest[1:]}'

    def format(self, record: logging.LogRecord) -> str:
        access = getattr(record, "access", None)
        if access is not None:
            return self.access_line(access, record.created)
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
        self.clock = _Clock().time_of

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
_installed: BatchedStreamHandler | None = None
#: its filters as installed (another one added since: :func:`write_access` uses it not)
_installed_filters: list[t.Any] = []
_root = logging.getLogger()


def configure(
    log_format: str | None = None, stream: t.TextIO | None = None, level: int = logging.INFO
) -> logging.Handler:
    """Log every record at ``level`` or above to ``stream`` (standard error) in
    ``log_format`` (None: :func:`default_format`), with request IDs: what ``serve``
    and ``webhooks run`` do at start. Lines are written in batches, at most
    ``log_writer.FLUSH_SECONDS`` late (a WARNING or worse at once)."""
    global _installed, _installed_filters
    stream = stream or sys.stderr
    handler = BatchedStreamHandler(stream)
    handler.setFormatter(formatter_for(log_format or default_format(stream)))
    handler.addFilter(RequestIdFilter())
    root = logging.getLogger()
    unconfigure()
    root.addHandler(handler)
    root.setLevel(level)
    # Peewee logs every statement with its parameters at DEBUG: request bodies and
    # password hashes. Not even a DEBUG log may carry them (operations.md §3).
    logging.getLogger("peewee").setLevel(max(level, logging.INFO))
    _installed, _installed_filters = handler, list(handler.filters)
    return handler


def unconfigure() -> None:
    """Remove the handler :func:`configure` installed, if any, its lines written."""
    global _installed
    if _installed is not None:
        _installed.flush()
        logging.getLogger().removeHandler(_installed)
        _installed = None
