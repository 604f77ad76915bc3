"""Run a WSGI app under waitress, the server of every ``serve`` process: the only one
with ``--workers 1``, and each worker's under gunicorn's arbiter (``prefork.py``).

waitress is imported on call, not at module import, so that importing the CLI (or the
package) for other commands never pays for, or depends on, a server.
"""

from __future__ import annotations

import functools
import json
import logging
import socket
import threading
import time
import typing as t

from ..errors import RestError
from ..settings import Settings
from .open_files import open_files_for
from .response_head import answer_task

if t.TYPE_CHECKING:  # pragma: no cover
    from _typeshed.wsgi import WSGIApplication

#: waitress's own default limit, used when the app states none
WAITRESS_BODY_LIMIT = 1024**3
#: how long an idle keep-alive connection is kept open, above the 60 s that reverse
#: proxies (nginx's ``keepalive_timeout``) keep theirs, so the proxy always closes first
KEEPALIVE_SECONDS = 75
#: what waitress answers itself, before the app sees the request, as the app's error
#: codes (``messages.py``): a malformed request, a body over the limit, headers over
#: theirs, a transfer coding it does not know; anything else is an internal error
WAITRESS_REFUSALS = {
    400: "rest_malformed_request",
    413: "rest_payload_too_large",
    431: "rest_headers_too_large",
    501: "rest_transfer_coding_not_implemented",
}

#: seconds between two passes of waitress's maintenance, which closes the connections idle
#: past the keep-alive time or late with their request head (waitress's default: 30)
MAINTENANCE_SECONDS = 1
#: connections a listening socket accepts on one turn of waitress's loop (waitress: 1)
ACCEPTS_PER_TURN = 64
#: waitress warns "Task queue depth is N" each time a request waits for a thread: on a
#: saturated server, once per request. It is passed on at most once per this many
#: seconds, with the count of those held back (:class:`QueueWarnings`).
QUEUE_WARNING_SECONDS = 60.0


def waitress_adjustments(
    threads: int,
    max_body_bytes: int | None,
    max_connections: int = Settings.max_connections,
) -> dict[str, t.Any]:
    """What ``serve`` tells waitress besides the address.

    waitress reads a whole body before calling the app; told the app's limit
    (``max_body_bytes``), it answers a larger declared ``Content-Length`` with 413 at
    once, without receiving the body. It closes a connection idle for
    :data:`KEEPALIVE_SECONDS`, looking every :data:`MAINTENANCE_SECONDS`.

    It holds ``max_connections`` connections (waitress's 100 let 100 idle clients stop
    a server): its threads serve only complete requests, so a connection that waits,
    idle or sending its head, costs descriptors and a turn of the main loop, not a
    thread. Past the limit waitress stops accepting and new connections wait in the
    listen queue (``backlog``, 1,024) until one closes: the header deadline
    (:func:`timed_channel`) frees the slots of the slow. Its loop watches the sockets
    with ``poll``: ``select`` fails on a descriptor above 1,023.

    It passes ``X-Forwarded-For`` and ``Forwarded`` on: the app decides whom they
    name (``trusted_proxies``, ``edge/client_address.py``), and, from a peer it does
    not trust, refuses them a scrape of its metrics. waitress 3 drops them by default
    when it trusts no proxy itself, which hid the client behind every proxy.
    """
    limit = WAITRESS_BODY_LIMIT if max_body_bytes is None else max_body_bytes + 1
    return {
        "threads": threads,
        "max_request_body_size": limit,
        "channel_timeout": KEEPALIVE_SECONDS,
        "cleanup_interval": MAINTENANCE_SECONDS,
        "connection_limit": max_connections,
        "asyncore_use_poll": True,
        "clear_untrusted_proxy_headers": False,
    }


def waitress_server(
    app: WSGIApplication,
    host: str = "127.0.0.1",
    port: int = 8080,
    threads: int = 8,
    max_body_bytes: int | None = None,
    *,
    sockets: t.Sequence[socket.socket] = (),
    socket_map: dict[int, t.Any] | None = None,
    max_connections: int = Settings.max_connections,
    header_timeout: float = Settings.header_timeout,
) -> t.Any:
    """A waitress server for ``app``, bound but not running, whose connections are
    :func:`sending_channel` ones: on ``host`` and ``port``, or on ``sockets``, listening
    sockets bound already (a gunicorn worker's). Its dispatchers (listeners,
    connections) go in ``socket_map``, for a caller that runs the loop itself. It holds
    ``max_connections`` connections, each given ``header_timeout`` seconds per request
    head.

    When ``app`` runs one read at a time (its ``concurrent_reads``, SQLite's default),
    its anonymous reads get a thread of their own (``read_lane.py``); ``threads``
    serve the rest."""
    from waitress.server import BaseWSGIServer, create_server

    where: dict[str, t.Any] = (
        {"sockets": list(sockets)} if sockets else {"host": host, "port": port}
    )
    lane = None
    if getattr(app, "concurrent_reads", 0) == 1:
        from .read_lane import ReadLaneDispatcher

        lane = ReadLaneDispatcher()
        lane.set_thread_count(threads)  # what create_server does for its own
    socket_map = {} if socket_map is None else socket_map
    server = create_server(
        app,
        map=socket_map,
        _dispatcher=lane,
        **where,
        **waitress_adjustments(threads, max_body_bytes, max_connections),
    )
    # waitress counts its listening sockets and their triggers as connections
    server.adj.connection_limit = max_connections + len(socket_map)
    channel = sending_channel(header_timeout)
    listening = getattr(server, "map", {}).values()  # several addresses: one server each
    for dispatcher in (server, *listening):
        if isinstance(dispatcher, BaseWSGIServer):
            dispatcher.channel_class = channel
            # create_server builds the listeners itself: their accept is set here
            dispatcher.handle_accept = accepting_in_batches(dispatcher)  # type: ignore[method-assign]
    tasks = server.task_dispatcher  # one for all addresses
    t.cast(t.Any, tasks).queue_logger = QueueWarnings(tasks.queue_logger)
    return server


def accepting_in_batches(listener: t.Any) -> t.Callable[[], None]:
    """``listener``'s ``handle_accept``, taking up to :data:`ACCEPTS_PER_TURN` waiting
    connections at once, within the connection limit.

    waitress accepts one connection per turn of its loop, and a turn asks every
    connection whether it reads or writes: with 700 held open, a burst of 500 new ones
    (clients let go together, or reconnecting together) took 500 turns, and a normal
    client queued behind them waited up to half a second."""
    accept_one = listener.handle_accept
    socket_map = listener._map

    def handle_accept() -> None:
        for _ in range(ACCEPTS_PER_TURN):
            before = len(socket_map)
            accept_one()
            opened = len(socket_map)
            if opened == before or opened >= listener.adj.connection_limit:
                return  # none was waiting (or it failed), or the limit is reached

    return handle_accept


def serve(
    app: WSGIApplication,
    host: str = "127.0.0.1",
    port: int = 8080,
    threads: int = 8,
    max_body_bytes: int | None = None,
    max_connections: int = Settings.max_connections,
    header_timeout: float = Settings.header_timeout,
) -> None:
    """Serve ``app`` under waitress until interrupted; ``threads`` worker threads share
    its database (see :func:`waitress_server` and :func:`waitress_adjustments`), with
    descriptors for ``max_connections`` (:func:`open_files_for`)."""
    logging.basicConfig()  # as ``waitress.serve`` does (idempotent): warnings reach stderr
    server = waitress_server(
        app,
        host,
        port,
        threads,
        max_body_bytes,
        max_connections=open_files_for(max_connections, threads),
        header_timeout=header_timeout,
    )
    server.print_listen("Serving on http://{}:{}")
    server.run()


@functools.cache
def sending_channel(header_timeout: float = Settings.header_timeout) -> type:
    """waitress's connection class, without its busy loop, closing a connection slow
    to send its request head (:func:`timed_channel`).

    While a request runs, the thread serving it sends what it writes itself (waitress's
    ``send_bytes`` is 1). waitress's main loop still asks the socket whether it can
    write whenever output is pending, and a socket with room says yes at once, though
    there is nothing for the loop to do: the serving thread holds the buffer's lock
    (mid-``send``, or waiting for the interpreter lock right after it). So the loop
    spins, taking the interpreter lock on every turn from the very threads it waits
    for: measured under load, 50 to 170 ``select`` calls per request and a third of
    the throughput of a cold read. Here the loop waits for a running request's socket
    only once a send could not take everything (the socket is full: ``select`` then
    sleeps until it drains), and for a finished request's output or a closing
    connection as before.
    """

    class SendingChannel(timed_channel(header_timeout)):  # type: ignore[misc]
        task_class = answer_task()  # the same head, made by C loops
        error_task_class = json_error_task()
        #: the last send left output behind: the socket was full
        backed_up = False

        def send_continue(self) -> None:
            """No ``100 Continue`` for a request refused on its headers (a declared body
            over the limit): its client is not invited to send the body (RFC 9110
            §10.1.1), it gets the 413 at once."""
            if self.request is not None and self.request.error is not None:
                return
            super().send_continue()

        def _flush_some(self, do_close: bool = True) -> bool:
            sent = bool(super()._flush_some(do_close=do_close))
            self.backed_up = self.total_outbufs_len > 0
            return sent

        def writable(self) -> bool:
            if self.will_close or self.close_when_flushed:
                return True
            if not self.total_outbufs_len:
                return False
            if not self.requests:  # what a finished request left: the loop sends it
                return True
            return bool(self.backed_up and self.total_outbufs_len >= self.adj.send_bytes)

    return SendingChannel


def timed_channel(header_timeout: float) -> type:
    """waitress's connection class, owing each request head within ``header_timeout``.

    waitress closes a connection silent for ``channel_timeout``, which a client sending
    its head a byte every few seconds never is: 200 of them held every slot. Here a
    connection must complete a request head within ``header_timeout`` seconds of its
    opening while it has sent nothing, else of the head's first byte (or of the end of
    the answer before it, for a head that came early and waited: waitress reads
    nothing while it answers). waitress's maintenance pass closes the late ones (see
    ``last_activity``); between requests the keep-alive time applies, and a body
    being received is not timed.
    """
    from waitress.channel import HTTPChannel

    class TimedChannel(HTTPChannel):
        #: what waitress records as the last activity (reading, sending, answering)
        active_at = 0.0
        #: when the first byte after the last answer came (0: none yet)
        heard_at = 0.0
        #: when the connection last sent bytes of an answer (0: never)
        answered_at = 0.0

        @property
        def last_activity(self) -> float:
            """What waitress's maintenance pass compares with ``channel_timeout``: the
            last activity, or, while a head is owed, its deadline less that timeout,
            so that the pass closes the connection once the deadline is past."""
            deadline = self.head_deadline()
            if deadline is None:
                return self.active_at
            return min(self.active_at, deadline - self.adj.channel_timeout)

        @last_activity.setter
        def last_activity(self, when: float) -> None:
            self.active_at = when

        def head_deadline(self) -> float | None:
            """When the request head this connection owes must be complete (waitress's
            clock, ``time.time``); None while it owes none: it is being answered, a
            body is being received, or it is idle after an answer. Blank lines
            (waitress skips them as empty requests) do not stop the clock."""
            if self.requests or self.total_outbufs_len:
                return None
            head = self.request
            if head is not None and head.headers_finished:
                return None
            if head is None and self.heard_at <= self.answered_at:
                return None if self.heard_at else self.creation_time + header_timeout
            return max(self.heard_at, self.answered_at) + header_timeout

        def received(self, data: bytes) -> bool:
            if self.heard_at <= self.answered_at:
                self.heard_at = time.time()
            return bool(super().received(data))

        def _flush_some(self, do_close: bool = True) -> bool:
            sent = bool(t.cast(t.Any, super())._flush_some(do_close=do_close))
            if sent:
                self.answered_at = time.time()
            return sent

    return TimedChannel


@functools.cache
def json_error_task() -> type:
    """waitress's error answer (a request it refuses before the app sees it), as every
    other error: a WordPress-style JSON error, in English (the request was not read far
    enough to know its language), on a connection closed after it."""
    from waitress.task import ErrorTask

    class JsonErrorTask(ErrorTask):
        def execute(self) -> None:
            refusal = t.cast(t.Any, self.request).error  # a waitress.utilities.Error
            error = RestError(
                WAITRESS_REFUSALS.get(refusal.code, "rest_internal_error"), refusal.code
            )
            body = json.dumps(error.body()).encode()
            self.status = f"{refusal.code} {refusal.reason}"
            json_type = ("Content-Type", "application/json; charset=UTF-8")
            self.response_headers = [*self.response_headers, json_type]
            self.set_close_on_finish()
            self.content_length = len(body)
            self.write(body)

    return JsonErrorTask


class QueueWarnings:
    """Stands in for waitress's queue logger: passes one warning on per ``interval``
    seconds, the next one passed saying how many were held back since.

    It decides before a log record exists. A logging filter would come too late: by then
    ``Logger.warning`` has looked up its caller and built the record, and waitress warns
    from the main loop while holding the lock every serving thread takes its next task
    under. On a saturated server py-spy found 7 % of the interpreter lock's samples
    there (throughput gained nothing measurable: the lock waits were elsewhere).
    """

    def __init__(
        self,
        logger: logging.Logger,
        interval: float = QUEUE_WARNING_SECONDS,
        clock: t.Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.interval = interval
        self.clock = clock
        self.next_pass = float("-inf")
        self.held_back = 0
        self.lock = threading.Lock()

    def warning(self, message: str, *args: object) -> None:
        now = self.clock()
        with self.lock:
            if now < self.next_pass:
                self.held_back += 1
                return
            held_back, self.held_back = self.held_back, 0
            self.next_pass = now + self.interval
        if held_back:
            message, args = f"{message} (%d more held back since the last one)", (*args, held_back)
        self.logger.warning(message, *args)
