"""Read paths: every SELECT the service runs to answer, and nothing that writes.

Resources read through here, and so do ``repository`` (its look-ups of slugs,
duplicates and references: it issues no SELECT of its own), the edge (users, the
change log's revisions, list totals) and the entry layer; a contract keeps
``queries`` below ``repository``, above ``rules``. Inside, four layers that a contract
also checks: ``filters`` over ``lists`` over ``lookups`` over ``sql``, with ``loaded``
at the bottom, the only module ``wire`` may import.

- ``filters/`` — list arguments turned into resolved filters, with the look-ups they
  name (the validation phase).
- ``lists/`` — the list SQL: the archives, the feeds, the change log, exact totals.
- ``lookups/`` — records by ID, slug or name, and the batched loading of what a page
  embeds.
- ``sql/`` — building blocks: prepared and kept statements, read-only rows,
  visibility, word search.
- ``loaded`` — the containers handed to the wire (``Related``, ``Translations``).
"""
