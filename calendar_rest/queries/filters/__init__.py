"""From validated list arguments to resolved filters, one module per list family.

They run in the validation phase: an unknown term, venue, organizer or event a
parameter names is a 400 naming it, reported with the others; each also builds the echo
of the effective query for ``rest_url`` and the page links. The top of ``queries``: it
may use ``lists``, ``lookups`` and ``sql`` (and ``rules``, ``dates``); only
``resources`` import it.

- ``event_filters`` — ``GET /events`` arguments, with TEC's date semantics.
- ``linked_filters`` — ``GET /venues`` and ``GET /organizers`` arguments.
- ``term_filters`` — ``GET /categories`` and ``GET /tags`` arguments.
"""
