"""The rules: who may do what, what markup a writer may store, how words are searched,
what coordinates mean, which addresses a webhook may reach.

Pure decisions, written once and applied by every path: ``queries`` turns them into
SQL, ``repository`` and ``resources`` check them, the importers and the webhook worker
reuse them. They sit under ``queries`` and import only ``errors``, ``db``, ``models``
and ``wordpress``; inside, ``markup`` may use the others (a contract says so).

- ``permissions`` — WordPress roles, capabilities and the per-record checks TEC relies
  on.
- ``markup`` — what HTML a writer without ``unfiltered_html`` may store (nh3, kses
  lists).
- ``search`` — word search served by a B-tree index: folded words, prefix ranges.
- ``geo`` — coordinates: how a pair is checked, distances on the globe.
- ``ssrf`` — which network addresses a webhook may reach.
"""
