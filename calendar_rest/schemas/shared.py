"""What the argument sets share: their base, paging, the translation link and the
event password."""

from __future__ import annotations

from marshmallow import EXCLUDE, Schema

from . import fields as f
from .messages import N_


class Args(Schema):
    """The base of every argument set: a parameter it does not declare is ignored, as
    WordPress ignores unregistered arguments."""

    class Meta:
        unknown = EXCLUDE


def page() -> f.Integer:
    return f.Integer(positive=True, load_default=1, help=N_("The archive page to return"))


def per_page(help: str) -> f.Integer:
    """Defaults to the site's ``default_per_page`` (the index and ``/doc`` show it)."""
    return f.Integer(positive=True, help=help, metadata={"default_setting": "default_per_page"})


def translation_of() -> f.Integer:
    return f.Integer(positive=True, help=N_("The ID of the record this one translates"))


def password() -> f.String:
    return f.String(allow_empty=True, max_length=255, help=N_("The event password"))


def modified_after() -> f.ModifiedDate:
    return f.ModifiedDate(
        help=N_(
            "Limit results to those modified strictly after the date: YYYY-MM-DDTHH:MM:SS "
            "in the site time zone, or followed by Z or an offset such as +01:00"
        )
    )


def modified_before() -> f.ModifiedDate:
    return f.ModifiedDate(
        help=N_(
            "Limit results to those modified strictly before the date: YYYY-MM-DDTHH:MM:SS "
            "in the site time zone, or followed by Z or an offset such as +01:00"
        )
    )


def orderby() -> f.Choice:
    """Only ``modified`` (WordPress 5.7's sync order); without it a list keeps its own
    default order, so the choice has no default."""
    return f.Choice(
        ("modified",),
        help=N_("Sort by last modification time, ties broken by ID (default: the list's order)"),
    )


def order() -> f.Choice:
    """Read only with ``orderby``, where it defaults to ``desc`` (WordPress's default)."""
    return f.Choice(
        ("asc", "desc"), help=N_("Sort direction with orderby: asc, or desc (the default)")
    )
