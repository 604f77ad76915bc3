"""Importers (``calendar.md`` §5, §6): an ``.ics`` file, or a TEC site over its REST API;
and the demo data set.

They sit in the entry layer beside ``cli``: they write through ``repository`` as
requests do, outside a request, so every record they write is validated, logged in
the change feed and indexed like an API write. Their libraries (icalendar, httpx)
load with them, never with the CLI or the app.

- ``common`` — what both importers share: the ``Importer`` run, the operator's write
  context, batched transactions, progress on stderr, the tally
- ``ics`` — ``import FILE.ics``: the run over a file, its series and their exceptions
- ``ics_reader`` — an ``.ics`` file split into components that know their line numbers
- ``ics_mapping`` — one VEVENT → the values of an event write (§5's table)
- ``ics_series`` — RRULE/RDATE/EXDATE checked as the API checks them, RECURRENCE-ID
  components → exception fields (also used by the TEC copy for occurrences)
- ``ics_linked`` — a VEVENT's venue, organizer and categories, matched or created
- ``tec`` — ``import --from-tec URL``: the copy of a site, in dependency order
- ``tec_client`` — reading a TEC site's REST API: discovery, pages, retries
- ``tec_mapping`` — a TEC record → the arguments of the write that copies it
- ``tec_status`` — a TEC record's event status and virtual-event fields → the write's
- ``tec_differences`` — which copied values differ from the stored copy
- ``demo`` — the demo data set, loaded through the API's write path
"""
