"""Log lines written in batches: one system call for many lines, not one each.

A served cached read costs the server about 100 µs of CPU; writing its access line
with a system call of its own cost 10 to 15 µs more on this project's machines, even
to ``/dev/null`` (``bench/operations.py``). :class:`BatchedStreamHandler` keeps the
lines of the last :data:`FLUSH_SECONDS` and writes them together, as nginx's
``access_log ... buffer= flush=`` does. What that costs: a process killed outright
(SIGKILL) loses its last fraction of a second of access lines. Nothing else waits: a
WARNING or worse is written at once with the lines before it, and so is everything at
exit (``logging.shutdown``) and whenever a batch reaches :data:`BATCH_BYTES`.

Each write holds whole lines and at most :data:`BATCH_BYTES` bytes: up to that size a
write to a pipe is atomic (POSIX's ``PIPE_BUF``), so the workers of ``serve --workers``
sharing one standard error never cut each other's lines.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import typing as t
import weakref

#: seconds a line may wait before it is written
FLUSH_SECONDS = 0.2
#: the most bytes one write holds (whole lines; ``PIPE_BUF`` on Linux)
BATCH_BYTES = 4096


class BatchedStreamHandler(logging.StreamHandler[t.TextIO]):
    """A ``StreamHandler`` that writes its lines in batches (see the module docstring)."""

    def __init__(self, stream: t.TextIO) -> None:
        super().__init__(stream)
        self.pending: list[str] = []
        self.pending_size = 0
        #: whether this process runs the thread that writes a batch once it is due
        self.writing = False
        _handlers.add(self)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record) + self.terminator
            self.add(line, urgent=record.levelno >= logging.WARNING)
        except RecursionError:  # as logging.StreamHandler.emit
            raise
        except Exception:  # noqa: BLE001 - a log line never fails its request
            self.handleError(record)

    def add(self, line: str, urgent: bool = False) -> None:
        """Keep ``line`` for the next batch (the caller holds :attr:`lock`, as
        ``Handler.handle`` does around ``emit``); write the batch now when it is
        ``urgent`` or full."""
        self.pending.append(line)
        self.pending_size += len(line)
        if urgent or self.pending_size >= BATCH_BYTES:
            self.write_pending()
        elif not self.writing:
            self.writing = True
            threading.Thread(
                target=self._write_while_alive, name="calendar-rest-log", daemon=True
            ).start()

    def write_pending(self) -> None:
        """Write what is pending, in writes of whole lines of at most
        :data:`BATCH_BYTES` (a longer line alone). The caller holds :attr:`lock`."""
        lines, self.pending, self.pending_size = self.pending, [], 0
        chunk: list[str] = []
        size = 0
        for line in lines:
            if chunk and size + len(line) > BATCH_BYTES:
                self.stream.write("".join(chunk))
                chunk, size = [], 0
            chunk.append(line)
            size += len(line)
        if chunk:
            self.stream.write("".join(chunk))
        self.stream.flush()

    def flush(self) -> None:
        with t.cast(threading.RLock, self.lock):
            if getattr(self.stream, "closed", False):  # nothing left to write to
                self.pending, self.pending_size = [], 0
            elif self.pending:
                self.write_pending()
            elif self.stream is not None and hasattr(self.stream, "flush"):
                self.stream.flush()

    def _write_while_alive(self) -> None:
        while True:
            time.sleep(FLUSH_SECONDS)
            try:
                self.flush()
            except Exception:  # noqa: BLE001 - a closed stream at exit: nothing to write to
                return


_handlers: weakref.WeakSet[BatchedStreamHandler] = weakref.WeakSet()


def _forked() -> None:
    """A forked worker inherits the lines but not the thread: it starts its own (the
    logging module renews the handlers' locks itself)."""
    for handler in list(_handlers):
        handler.writing = False


os.register_at_fork(after_in_child=_forked)
