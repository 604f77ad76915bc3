"""Argument sets of the routes that describe the interface (``/`` and ``/doc``)."""

from __future__ import annotations

from ..settings import NAMESPACE
from . import fields as f
from .messages import N_
from .shared import Args


def index_context() -> f.Choice:
    """The ``context`` WordPress's indexes take (and ignore)."""
    return f.Choice(
        ("view", "embed", "edit", "help"),
        load_default="view",
        metadata={"description": N_("Scope under which the request is made")},
    )


class SiteIndexArgs(Args):
    """WordPress's REST index takes a context."""

    context = index_context()
    i18n_language = f.Language()


class NamespaceIndexArgs(Args):
    """WordPress's namespace index takes the namespace and a context."""

    namespace = f.String(
        load_default=NAMESPACE, metadata={"description": N_("The namespace to describe")}
    )
    context = index_context()
    i18n_language = f.Language()


class DocArgs(Args):
    i18n_language = f.Language()
