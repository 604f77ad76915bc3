"""Open files for the connections of a ``serve`` process: each needs a descriptor or
more, and a process out of them fails each ``accept`` (waitress logs it and tries again
on every turn of its loop while the client waits) and each body it would spool.

Start-up checks the soft limit (``ulimit -n``) against ``max_connections`` and raises
it to the hard limit when it is lower, as a server watching its sockets with ``poll``
(not ``select``) may; if the hard limit is lower still, fewer connections are held. A
worker forked afterwards inherits the limit.
"""

from __future__ import annotations

import logging

#: descriptors one connection may hold: its socket, and its request body and response
#: once waitress spools them to temporary files (past 512 KB and 1 MB)
DESCRIPTORS_PER_CONNECTION = 3
#: descriptors a process holds besides its connections (standard streams, listening
#: sockets, waitress's trigger, the write signal's file, spare), and per thread for its
#: database connections (SQLite: the database, its WAL and shared memory, and the same
#: of the login store)
DESCRIPTORS_BESIDES_CONNECTIONS = 64
DESCRIPTORS_PER_THREAD = 8

log = logging.getLogger("calendar_rest.server")


def descriptors_needed(max_connections: int, threads: int) -> int:
    """The open files a process serving ``max_connections`` with ``threads`` may need."""
    return (
        max_connections * DESCRIPTORS_PER_CONNECTION
        + DESCRIPTORS_BESIDES_CONNECTIONS
        + threads * DESCRIPTORS_PER_THREAD
    )


def open_files_for(max_connections: int, threads: int) -> int:
    """How many connections this process can hold: ``max_connections`` once the soft
    limit of open files allows their descriptors (raised to the hard limit if need
    be), else as many as the hard limit allows. What it changed is logged."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not a POSIX system: nothing to ask
        return max_connections
    needed = descriptors_needed(max_connections, threads)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return max_connections
    limit = needed if hard == resource.RLIM_INFINITY else hard
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
    except (ValueError, OSError):  # a hard limit above what the system allows
        limit = soft
    raised = f"raised from {soft} to {limit}" if limit > soft else f"{limit}, the hard limit"
    if limit >= needed:
        log.warning(
            "open files: soft limit (ulimit -n) %s for max_connections=%d",
            raised,
            max_connections,
        )
        return max_connections
    besides = needed - max_connections * DESCRIPTORS_PER_CONNECTION
    held = max(1, (limit - besides) // DESCRIPTORS_PER_CONNECTION)
    log.warning(
        "open files: soft limit (ulimit -n) %s holds %d connections, not "
        "max_connections=%d (%d descriptors): serving at most %d; raise the hard "
        "limit (ulimit -Hn, systemd's LimitNOFILE=) for more",
        raised,
        held,
        max_connections,
        needed,
        held,
    )
    return held
