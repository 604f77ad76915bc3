"""Sync tokens and snapshots: a change-log position, named with its database.

A token is ``<database ID>-<position>`` in lower-case hex: at most 30 characters of
the unreserved URL set (never percent-encoded), the same string for the same
position, and refused by any other database (``sync.md`` §3.7). Whether the
position is still usable is the change feed's question, not the codec's.
"""

from __future__ import annotations

import re

TOKEN_RE = re.compile(r"^([0-9a-f]{1,16})-([0-9a-f]{1,16})$")


def encode_token(database_id: int, position: int) -> str:
    return f"{database_id:x}-{position:x}"


def decode_token(token: str, database_id: int) -> int | None:
    """The position ``token`` names on this database; None when it is malformed or
    comes from another database."""
    match = TOKEN_RE.match(token)
    if match is None or int(match.group(1), 16) != database_id:
        return None
    return int(match.group(2), 16)
