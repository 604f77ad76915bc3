"""Argument sets turned into JSON Schema, through apispec's marshmallow converter.

apispec knows marshmallow's own fields and metadata (``description``, ``default``);
our fields add what they accept through their ``json_schema`` method, registered here
as one more attribute function. The namespace index and ``/doc`` both read these
properties, so they always agree.
"""

from __future__ import annotations

import functools
import typing as t

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.field_converter import FieldConverterMixin
from marshmallow import Schema, fields

from ..i18n.catalogs import Translate
from ..schemas.fields import Raw, WPField
from ..settings import Settings

OPENAPI_VERSION = "3.0.3"
#: metadata key naming the setting that holds a field's default (``per_page``)
DEFAULT_SETTING = "default_setting"


def new_plugin() -> MarshmallowPlugin:
    """A marshmallow plugin that also understands our fields."""
    plugin = MarshmallowPlugin()
    APISpec("calendar_rest", "1", OPENAPI_VERSION, plugins=[plugin])
    assert plugin.converter is not None
    # apispec leaves this method unannotated
    plugin.converter.add_attribute_function(_own_json_schema)  # type: ignore[no-untyped-call]
    return plugin


def _own_json_schema(
    self: FieldConverterMixin, field: fields.Field[t.Any], ret: dict[str, t.Any], **_: t.Any
) -> dict[str, t.Any]:
    if isinstance(field, (WPField, Raw)):
        return field.documented_schema()
    return {}


@functools.lru_cache(maxsize=1)
def _converter() -> FieldConverterMixin:
    plugin = new_plugin()
    assert plugin.converter is not None
    return plugin.converter


def argument_fields(arguments: type[Schema] | None) -> list[tuple[str, fields.Field[t.Any]]]:
    """The parameters of an argument set, by wire name, in declaration order."""
    if arguments is None:
        return []
    schema = arguments()
    return [(field.data_key or name, field) for name, field in schema.load_fields.items()]


def field_property(
    field: fields.Field[t.Any], settings: Settings, translate: Translate
) -> dict[str, t.Any]:
    """The JSON Schema of one parameter, its description translated and a
    setting-backed default filled in from ``settings``."""
    prop = dict(_converter().field2property(field))
    setting = field.metadata.get(DEFAULT_SETTING)
    if setting:
        prop["default"] = getattr(settings, setting)
    if "description" in prop:
        prop["description"] = translate(prop["description"])
    return prop
