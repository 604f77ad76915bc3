"""Write paths (TEC's ``Tribe__Events__API`` and ``Post_Repository`` writes): the only
code that writes records.

Every function here runs inside the request's single transaction; none commits. It
reads through ``queries`` (no SELECT of its own) and checks with ``rules``; resources,
the edge (the change log, record locks), the app (scheduled publication), the CLI, the
importers and the webhook worker call it. ``check_*`` functions belong to the
validation phase and never write.

- ``events`` — checking (``check_event_write``) and writing one event.
- ``series_edits`` — event writes and deletes with a ``scope``: the entry points of the
  API and the importers.
- ``series`` — recurring series as rows: occurrences up to the horizon, re-expansion,
  the roll-forward.
- ``series_bounds`` — what one series write may copy into its occurrences.
- ``series_values`` — a series' base values and what each row changed alone.
- ``series_rows`` — a series' rows written in bulk.
- ``series_journal`` — the change-log entries of one series write.
- ``series_words`` — a series' search words, stored once per series.
- ``inline_links`` — venues and organizers named inside an event write.
- ``linked`` — venues and organizers written on their own routes.
- ``terms`` — categories and tags written, and their ``count`` kept.
- ``posts`` — what every post-like write needs: unique slugs, timestamps, authors,
  images.
- ``translations`` — ``translation_of``: joining a record to a translation group.
- ``publishing`` — scheduled publication, caught up before a request is served.
- ``changes`` — the change log's writes; ``PendingChanges.commit`` takes a write's
  position last.
- ``record_locks`` — the row locks a write takes before it reads what it changes.
- ``site_state`` — writes of the site-wide counters (the write generation).
- ``word_index`` — keeping each record's search words in step with it.
- ``search_index`` — rebuilding the word index when its format changes.
- ``webhooks`` — subscriptions, outbox messages and delivery attempts.
- ``users`` — creating users and managing their application passwords.
- ``login_throttle`` — the failed-login counters, in transactions of their own.
- ``schema`` — creating the tables, indexes and counter rows.
"""
