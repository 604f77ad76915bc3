"""The featured-image object shared by events, venues and organizers."""

from __future__ import annotations

import typing as t

from ..models import Attachment


def image_data(attachment: Attachment | None) -> dict[str, t.Any] | t.Literal[False]:
    """``false`` without an image; otherwise url, id, extension and known dimensions."""
    if attachment is None:
        return False
    data: dict[str, t.Any] = {
        "url": attachment.url,
        "id": attachment.id,
        "extension": attachment.extension,
    }
    if attachment.width and attachment.height:
        data["width"] = attachment.width
        data["height"] = attachment.height
    return {key: value for key, value in data.items() if value not in ("", None)}
