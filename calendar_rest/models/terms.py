"""Terms, the categories and tags events carry, and the links to them.

Terms and posts are the records that join a translation group (``Translatable``).
"""

from __future__ import annotations

import peewee as pw

from .base import BaseModel
from .links import EventLink, keyed_by_pair
from .posts import PostModel


class Term(BaseModel):
    """A category (hierarchical) or tag; WordPress's terms + term_taxonomy merged."""

    id: pw.AutoField[int]
    parent_id: pw.ForeignKeyField[int | None]
    taxonomy = pw.CharField(max_length=32)
    name = pw.CharField(max_length=200)
    slug = pw.CharField(max_length=200)
    description = pw.TextField(default="")
    parent = pw.ForeignKeyField("self", null=True, on_delete="SET NULL", backref="children")
    #: published events carrying the term, maintained by every write that can change it
    count = pw.IntegerField(default=0)
    language = pw.CharField(max_length=5, default="en")
    translation_of = pw.IntegerField(null=True, index=True)

    class Meta:
        indexes = (
            (("taxonomy", "slug"), True),
            (("taxonomy", "name"), False),
            (("taxonomy", "parent"), False),
        )


class EventTerm(EventLink):
    """Ordered link between events and terms."""

    term_id: pw.ForeignKeyField[int]
    term = pw.ForeignKeyField(Term, on_delete="CASCADE", index=False)

    Meta = keyed_by_pair("term")


#: a record that can join a translation group (WPML's): it has ``language`` and
#: ``translation_of``
Translatable = PostModel | Term
