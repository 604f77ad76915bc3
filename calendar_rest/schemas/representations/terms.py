"""Categories and tags: as their own routes return them (TEC's ``Term``), and as
events embed them (``EventTerm``, WordPress's raw term fields)."""

from __future__ import annotations

from marshmallow import fields

from ..messages import N_
from .base import Representation, integer, language, term_urls, text, translations


class Term(Representation):
    """A category or tag as the category and tag routes return it."""

    id = integer(N_("The WordPress term ID"), required=True)
    count = integer(N_("The number of posts associated with the term"), required=True)
    description = text(N_("The term description"), required=True)
    name = text(N_("The term name"), required=True)
    slug = text(N_("The term slug"), required=True)
    taxonomy = text(N_("The taxonomy the term belongs to"), required=True)
    parent = integer(N_("The term parent term if any (categories only; 0: top level)"))
    meta = fields.List(
        fields.Raw(),
        required=True,
        metadata={"description": N_("The term meta (always empty)"), "maxItems": 0},
    )
    url = text(N_("The URL to the term archive page"), required=True)
    urls = term_urls()
    links = fields.Dict(
        data_key="_links",
        keys=fields.String(),
        values=fields.List(fields.Dict()),
        metadata={
            "description": N_(
                "WordPress hypermedia links to the term's core REST routes, by relation "
                "(single reads, creations and updates only)"
            )
        },
    )
    language = language()
    translations = translations()


class EventTerm(Representation):
    """A category or tag as events embed it: WordPress's raw term fields, unlike the
    term routes' shape."""

    name = text(N_("The term name"), required=True)
    slug = text(N_("The term slug"), required=True)
    term_group = integer(N_("The term group (always 0)"), required=True)
    term_taxonomy_id = integer(N_("The term taxonomy ID (the term ID)"), required=True)
    taxonomy = text(N_("The taxonomy the term belongs to"), required=True)
    description = text(N_("The term description"), required=True)
    parent = integer(N_("The term parent term ID, 0 for none"), required=True)
    count = integer(N_("The number of posts associated with the term"), required=True)
    filter = text(N_("How the term fields were filtered (always raw)"), required=True)
    id = integer(N_("The WordPress term ID"), required=True)
    urls = term_urls()
    language = language()
    translations = translations()
