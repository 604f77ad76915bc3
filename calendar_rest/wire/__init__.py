"""The wire format: loaded records turned into TEC's JSON representations (and iCalendar).

One module per representation; it never queries (a contract allows it
``queries.loaded`` and nothing else of ``queries``): resources and the edge hand it
loaded data. It uses ``wordpress`` (all URL building goes through ``urls.Urls``, so the
mount point, the public site URL and the language root are honoured everywhere),
``dates``, ``models`` and ``caching``.

- ``reply`` — what a responder answers: a JSON-ready body, a status, the route's
  headers.
- ``events`` — the event representation (TEC's ``get_event_data``), key for key.
- ``linked`` — venue and organizer representations, standalone and embedded.
- ``terms`` — term objects as events embed them.
- ``term_objects`` — categories and tags as their own routes return them.
- ``images`` — the featured-image object.
- ``languages`` — the ``language`` and ``translations`` keys every representation ends
  with.
- ``json_ld`` — schema.org JSON-LD for single reads.
- ``kept`` — representations rendered once per content (a memo of events and linked
  records).
- ``pages`` — the pager every list uses: totals, headers, page links.
- ``fields`` — ``_fields``: answering only the fields a client names.
- ``changes`` — the change feed's entries and page.
- ``sync_tokens`` — sync tokens and snapshots: a change-log position with its database.
- ``webhooks`` — subscriptions, delivery attempts and the delivery envelope.
- ``icalendar_feed`` — events as one iCalendar VCALENDAR.
- ``vtimezone`` — the feeds' VTIMEZONEs, with no end.
- ``plain_text`` — HTML descriptions as plain text, for iCalendar's ``DESCRIPTION``.
"""
