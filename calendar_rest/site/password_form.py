"""The password form of a protected event (``site.md`` §2, §6), as WordPress has it:
the page shows the title, the dates and a form that ``POST``s ``post_password`` to
the same URL; the answer (``no-store``) shows the content for the right password,
and the form again with a message (200) for a wrong one, never the content.

Wrong passwords count against the caller's address on the login throttle
(``security.md`` E, ``Call.throttle``): a locked address is answered 429 with
``Retry-After`` before its password is even compared. The counter is the only
state a page's ``POST`` changes; no cookie is set.
"""

from __future__ import annotations

import dataclasses

from ..models import Event
from ..responders import Call
from ..rules.permissions import can_read_content
from . import texts

FIELD = "post_password"


@dataclasses.dataclass(frozen=True)
class Attempt:
    """What the form's ``POST`` gave: the password that unlocks, else why not."""

    password: str | None = None
    #: the message shown above the form (English; translated by the template)
    message: str = ""
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()


def attempt_of(call: Call, event: Event) -> Attempt:
    """The password the form sent for ``event``, checked under the throttle."""
    if not event.password:
        return Attempt()
    throttle = call.throttle
    wait = throttle.locked_for() if throttle is not None else 0
    if wait:
        return Attempt(None, texts.TOO_MANY_ATTEMPTS, 429, (("Retry-After", str(wait)),))
    sent = call.params.get(FIELD)
    password = sent if isinstance(sent, str) else ""
    if password and can_read_content(None, event, password, None):
        return Attempt(password)
    if throttle is not None:
        throttle.failed()
    return Attempt(None, texts.WRONG_PASSWORD)
