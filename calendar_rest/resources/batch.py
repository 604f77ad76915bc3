"""``POST /batch/v1`` at the site root (anchors.md §2): the route's argument set and
permission, as the route table, the index, ``/doc`` and ``OPTIONS`` read them.

Its items go down the request pipeline again, one by one, which only the edge can do:
the dispatcher serves this route with ``edge/batch.py`` and never calls the responder.
"""

from __future__ import annotations

from ..errors import RestError
from ..models import User
from ..responders import Call, Resource
from ..routes import accepts
from ..schemas.batch import BatchArgs
from ..wire.reply import Reply


class Batch(Resource):
    """Anyone may send a batch (WordPress's ``__return_true``): each of its requests
    passes its own permission, as a single request would."""

    cacheable = False

    def may_call(self, method: str, user: User | None) -> bool:
        return method == "POST"

    @accepts(BatchArgs)
    def on_post(self, call: Call) -> Reply:
        """Declares the argument set; the batch itself is run by ``edge/batch.py``."""
        raise RestError("rest_internal_error", 500)
