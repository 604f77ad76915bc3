"""The public site (``site.md``): the calendar people look at, server-rendered.

A layer of its own beside ``resources/``: both sit on ``queries/`` and ``wire/``,
neither imports the other, and only the HTTP edge imports this package (an
import-linter contract keeps the API's layers off it). Pages are resources of the
same route table as the API and go down the same pipeline (``edge/dispatch.py``),
so the response cache, ``ETag``, 304 and HEAD work for them unchanged; what differs
for a page is in ``edge/pages.py``: it never authenticates (an ``Authorization``
header changes nothing), its errors are HTML pages with the same status
(``errors.error_page``), and ``/`` shows the default view to a browser.

Adding a page (the extension points):

1. A route: a ``page(path, resource, shape, **variables)`` line in
   ``routes.PAGE_ROUTES``, before the catch-all ``missing`` routes. Its responder
   is ``on_get_<shape>`` of the resource class named ``resource``, receiving the
   ``Call`` and the path's variables as keywords (``/event/<slug:slug>``, resource
   ``records``, shape ``event`` → ``Records.on_get_event(call, slug)``).
2. A resource class: a ``responders.Resource`` subclass in a module of its own,
   registered in :data:`PAGE_CLASSES`. A responder reads the query from
   ``call.params`` (``params.view_query`` reads the views' own, TEC's aliases
   included), raises ``RestError`` (404, or ``errors.bad_param(name)`` for a 400
   naming the parameter) and returns ``frame.page_reply(call, settings, frame,
   template, context)``: a ``Frame`` says the page's title, canonical path, current
   view and the API filter of what it lists; ``page_reply`` adds every page's
   chrome and headers (CSP of §6).
3. A template: ``templates/<name>.html`` extending ``base.html`` (blocks ``title``,
   ``head``, ``main``); ``_("text")`` translates (add the English and French
   entries to ``i18n/locale/*/LC_MESSAGES/calendar_rest.po``, checked by
   ``tests/test_site_i18n.py``; texts written in Python go in ``texts``);
   ``formats`` formats dates (Babel, the page's language); ``event_macros.html``
   renders an event (``data-event-id``) the way every list does. A site overrides any template by a
   file of the same name in ``site_templates_dir``.
4. Events: ``archive.list_events(call, settings, EventFilter(api_params))`` runs
   ``GET /events``'s own query (visibility, totals, no query per event) and returns
   the API's shapes; ``cards.card`` reads one for a template. Records other than
   events come from ``queries/`` the same way (anonymous reader: ``user=None``).

Modules: ``routes`` (the page routes), ``views`` (the views' resource), ``list_view``
/ ``month_view`` / ``day_view`` (one view each), ``scopes`` (whole calendar,
category, tag), ``archive`` (the API's event query), ``cards`` (an event as shown),
``params`` (the views' query parameters), ``frame`` (every page's chrome and
headers), ``links`` (page, API, feed and subscribe URLs), ``rendering`` (Jinja2 and
Babel), ``assets`` (hashed static files), ``errors`` (HTML error pages, catch-all),
``texts`` (the page texts written in Python, marked for the catalogs).
"""

from __future__ import annotations

from ..responders import Resource
from .assets import StaticFiles
from .errors import Missing, bare_error_page, error_page
from .routes import PAGE_ROUTES
from .views import EventViews, TermViews

#: the resource names of ``PAGE_ROUTES`` and their classes
PAGE_CLASSES: dict[str, type[Resource]] = {
    "views": EventViews,
    "terms": TermViews,
    "static": StaticFiles,
    "missing": Missing,
}
#: the page the site root ``/`` shows to a browser: the route key of ``/events/``
HOME_KEY = "views.events"

__all__ = ["HOME_KEY", "PAGE_CLASSES", "PAGE_ROUTES", "bare_error_page", "error_page"]
