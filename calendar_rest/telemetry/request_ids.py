"""The ID of the request a thread serves (``operations.md`` §3).

A client's or a proxy's ``X-Request-ID`` is kept when it is a safe token, so that one
ID follows a request through every service it crosses; anything else is replaced by
an ID made here: this process's random prefix and a counter, unique across processes
and restarts at the cost of one counter step (a UUID would cost a system call).
"""

from __future__ import annotations

import contextvars
import itertools
import os
import re
import typing as t

HEADER = "X-Request-ID"
ENVIRON_KEY = "HTTP_X_REQUEST_ID"
#: what a request ID may be (longer or other characters: a new one is made)
SAFE = re.compile(r"[A-Za-z0-9._-]{1,64}")

#: the ID of the request this thread (or task) serves, None outside a request
current: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "calendar_rest_request_id", default=None
)


class _Maker:
    """Makes IDs: ``<8 random hex digits>-<counter in hex>``, the prefix new in every
    forked process (a worker must not repeat its parent's IDs)."""

    def __init__(self) -> None:
        self.renew()

    def renew(self) -> None:
        self.prefix = os.urandom(4).hex() + "-"
        self.counter = itertools.count(1)

    def __call__(self) -> str:
        return f"{self.prefix}{next(self.counter):x}"


new_id = _Maker()
os.register_at_fork(after_in_child=new_id.renew)


def request_id_of(environ: t.Mapping[str, t.Any]) -> str:
    """The request's ID: its ``X-Request-ID`` when that is a safe token, else a new one."""
    given = environ.get(ENVIRON_KEY)
    if given and SAFE.fullmatch(given):
        return str(given)
    return new_id()
