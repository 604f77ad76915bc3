"""The two taxonomies, each named once: every module refers to these objects.

A taxonomy is known by several names on the wire: its stored name
(``calendar_events_cat``, TEC's ``tribe_events_cat``; ``post_tag``), its collection
(the route segment, the list key and the event field: ``categories``, ``tags``), its
public archive path and its WordPress core REST base. Keeping them together means no
module spells one of them again.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Taxonomy:
    #: stored in ``Term.taxonomy``, shown as the term's ``taxonomy``
    name: str
    #: the route segment, the list key of its archive and the event field holding its terms
    collection: str
    #: categories nest (``parent``), tags do not
    hierarchical: bool
    #: the capability that lets a user create, edit and delete its terms
    manage_capability: str
    #: the public archive page of a term: ``<site>/<archive_path>/<slug>/``
    archive_path: str
    #: WordPress core's REST base (``wp/v2/<core_base>``) in HAL links
    core_base: str
    #: the object types core's ``wp:post_type`` links list: ``(rest base, query param)``
    post_type_links: tuple[tuple[str, str], ...]


CATEGORIES = Taxonomy(
    name="calendar_events_cat",
    collection="categories",
    hierarchical=True,
    manage_capability="publish_posts",
    archive_path="events/category",
    core_base="calendar_events_cat",
    post_type_links=(("calendar_events", "calendar_events_cat"),),
)
TAGS = Taxonomy(
    name="post_tag",
    collection="tags",
    hierarchical=False,
    manage_capability="manage_categories",
    archive_path="tag",
    core_base="tags",
    post_type_links=(("posts", "tags"), ("calendar_events", "tags")),
)
TAXONOMIES = (CATEGORIES, TAGS)
BY_NAME = {taxonomy.name: taxonomy for taxonomy in TAXONOMIES}


def taxonomy_of(name: str) -> Taxonomy:
    """The taxonomy stored as ``name`` (a term's ``taxonomy`` column)."""
    return BY_NAME[name]
