"""Argument sets of the routes that describe the interface (``/`` and ``/doc``)."""

from __future__ import annotations

from marshmallow import EXCLUDE, Schema

from ..settings import NAMESPACE
from . import fields as f
from .messages import N_


class NamespaceIndexArgs(Schema):
    """WordPress's namespace index takes the namespace and a context."""

    class Meta:
        unknown = EXCLUDE

    namespace = f.String(
        load_default=NAMESPACE, metadata={"description": N_("The namespace to describe")}
    )
    context = f.Choice(
        ("view", "embed", "edit", "help"),
        load_default="view",
        metadata={"description": N_("Scope under which the request is made")},
    )
    i18n_language = f.Language()


class DocArgs(Schema):
    class Meta:
        unknown = EXCLUDE

    i18n_language = f.Language()
