"""Importers (``calendar.md`` §5, §6): an ``.ics`` file, or a TEC site over its REST API.

They sit in the entry layer beside ``cli``: they write through ``repository`` as
requests do, outside a request. Their libraries (icalendar, httpx) load with them,
never with the CLI or the app.
"""
