"""Caches held in one process's memory, and how a process learns that another wrote.

The lowest layer of the package: it imports nothing of calendar_rest (the standard
library only), so every layer may use it. The response cache (``edge/cache.py``), the
list totals (``queries.lists.counts``), built SQL (``queries.sql.statements``), kept
representations (``wire.kept``), series expansion (``repository.series``) and ``db``
(which announces each SQLite commit) are built on it.

- ``lru`` — the bounded LRU (at most so many entries, optionally so much weight)
  under both kinds of cache below.
- ``memo`` — a thread-safe memo for pure functions: a value kept under a key holding
  everything it is made from, so no write makes it stale.
- ``stamped`` — a thread-safe LRU whose entries hold at one write generation only
  (responses, list totals).
- ``generation_watch`` — on SQLite, a mapped file every commit changes, so a request
  reads the write generation only after some process wrote.
"""
