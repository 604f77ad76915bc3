"""The site's static files, named by the hash of their content (``site.md`` §1, §5):
a new stylesheet gets a new name, so browsers may keep each one for a year."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from ..errors import RestError
from ..responders import Call, Resource
from ..wire.reply import Reply

STATIC_DIR = Path(__file__).resolve().parent / "static"
IMMUTABLE = "public, max-age=31536000, immutable"
#: the files served, by their unhashed name, and their content type
FILES = {"site.css": "text/css; charset=utf-8"}


@functools.cache
def _content(name: str) -> bytes:
    return (STATIC_DIR / name).read_bytes()


@functools.cache
def hashed_name(name: str) -> str:
    """``site.css`` → ``site.3f2a9c1b7d20.css``."""
    stem, _, extension = name.rpartition(".")
    digest = hashlib.sha256(_content(name)).hexdigest()[:12]
    return f"{stem}.{digest}.{extension}"


def stylesheet_name() -> str:
    return hashed_name("site.css")


@functools.cache
def _by_hashed_name() -> dict[str, str]:
    return {hashed_name(name): name for name in FILES}


class StaticFiles(Resource):
    """``/static/{name}.{hash}.{ext}``: the current file of that name, for a year; any
    other name (an old hash included) is a 404."""

    def on_get_file(self, call: Call, name: str) -> Reply:
        plain = _by_hashed_name().get(name)
        if plain is None:
            raise RestError("rest_no_route", 404)
        headers = [("Cache-Control", IMMUTABLE)]
        return Reply(_content(plain), headers=headers, content_type=FILES[plain])
