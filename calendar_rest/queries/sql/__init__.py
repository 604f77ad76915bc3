"""SQL building blocks every read path shares: statements built once, rows read without
Peewee's instances, and the rules that go into every WHERE.

The bottom of ``queries`` above ``loaded``: it may use ``rules``, ``dates``, ``db``,
``models`` and ``caching``, never ``lookups``, ``lists`` or ``filters``, which are
built on it (``resources`` name its ``Statement`` and ``Linked`` types).

- ``prepared`` — hot reads without Peewee's per-query SQL building.
- ``statements`` — list statements built once per filter and reader, then run again.
- ``rows`` — read-only records: the row the database returned, read by field name.
- ``linked_json`` — an event's organizers and terms as JSON columns of its own row.
- ``visibility`` — what a user may read, as SQL conditions (``permissions`` in a query).
- ``word_search`` — the ``search`` filter on the word index.
- ``modified`` — the ``modified_after``/``modified_before`` bounds and ``orderby=modified``.
"""
