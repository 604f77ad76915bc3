"""The pages' texts written in Python, marked for the catalogs (the templates' own
texts are extracted from the templates: ``tests/test_site_i18n.py``)."""

from __future__ import annotations

from ..i18n.messages import N_

ALL_DAY = N_("All day")
UPCOMING = N_("Upcoming events")
PAST = N_("Past events")
#: a page's meta description: the site's title fills it
EVENTS_OF = N_("Events of %s")
NOT_FOUND = N_("Page not found")
BAD_REQUEST = N_("Bad request")
FAILED = N_("Something went wrong")
TOO_MANY_REQUESTS = N_("Too many requests")
LIST, MONTH, DAY = N_("List"), N_("Month"), N_("Day")
PREVIOUS_PAGE, NEXT_PAGE, PAGES = N_("Previous page"), N_("Next page"), N_("Pages")
PREVIOUS_MONTH, NEXT_MONTH, MONTHS = N_("Previous month"), N_("Next month"), N_("Months")
PREVIOUS_DAY, NEXT_DAY, DAYS = N_("Previous day"), N_("Next day"), N_("Days")
WRONG_PASSWORD = N_("The password is not right. Please try again.")
TOO_MANY_ATTEMPTS = N_("Too many wrong passwords from your address. Please try again later.")
UPCOMING_AT = N_("Upcoming events at %s")
UPCOMING_BY = N_("Upcoming events by %s")
