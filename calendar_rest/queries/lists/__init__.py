"""The lists as SQL: each filter served by an index, a page and its exact total.

Built on ``lookups`` and ``sql`` (a contract puts it under ``filters`` only); used by
``filters``, ``resources``, ``repository`` (duplicate venues and organizers, the change
log's record types) and the edge (record revisions for tags, the list totals).

- ``archive`` — the events archive: every TEC filter, each one a range scan.
- ``linked`` — venue and organizer look-ups and their archive.
- ``term_archive`` — category and tag lists (WordPress's ``get_terms``).
- ``feeds`` — what the iCalendar feeds list: events and whole series.
- ``changes`` — the change log: revisions, one write's entries, the change feed's walks.
- ``counts`` — exact list totals, counted once per filter and write generation.
"""
