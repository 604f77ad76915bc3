"""Look-ups: records by ID, slug or name, and what a page of them links to, batched.

One module per record family; each uses ``sql`` (prepared statements, read-only rows,
visibility) and nothing above it. Used by the rest of ``queries``, ``resources``,
``repository``, the edge (authentication), the app (the write generation) and the
entry layer (CLI, importers, webhook worker).

- ``events`` — events by ID and slug, on prepared SQL (the single-event hot path).
- ``related`` — what a page of events embeds, one query per kind, never per event.
- ``translations`` — the translation groups of a page of records.
- ``series`` — a recurring series' rows, links and lines.
- ``terms`` — categories and tags by ID, slug or name, their links, their tree.
- ``posts`` — what every post-like record shares: taken slugs, featured images.
- ``site_state`` — the site-wide counters (the write generation), one primary-key read.
- ``users`` — users and their application passwords.
- ``login_throttle`` — the failed-login counters and locks of some keys.
- ``webhooks`` — subscriptions, outbox messages and delivery attempts.
- ``imports`` — what importers match records with (UID, name, ``global_id``).
- ``totals`` — how many records of each kind the database holds (for the CLI).
- ``sitemap`` — the public records and terms the site's ``/sitemap.xml`` lists.
"""
