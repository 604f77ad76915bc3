"""Validation messages that stay translatable after marshmallow has collected them.

A ``ParamMessage`` is a ``str`` (English, ready to show to library users) that also
remembers its template key and arguments, so the web layer can render it again in
the request's language.
"""

from __future__ import annotations

import typing as t

from ..i18n.messages import N_ as N_  # re-exported: the schemas mark their texts with it

PARAM_MESSAGES: dict[str, str] = {
    "invalid": N_("Invalid parameter."),
    "not_boolean": N_("%(param)s is not of type boolean."),
    "not_integer": N_("%(param)s is not of type integer."),
    "not_string": N_("%(param)s is not of type string."),
    "not_number": N_("%(param)s is not of type number."),
    "not_array": N_("%(param)s is not of type array."),
    "not_object": N_("%(param)s is not of type object."),
    "not_one_of": N_("%(param)s is not one of %(choices)s."),
    "empty": N_("%(param)s must not be empty."),
    "not_positive": N_("%(param)s must be a positive integer."),
    "bad_date": N_("%(param)s is not a valid date."),
    "bad_modified_date": N_(
        "%(param)s is not a date as YYYY-MM-DDTHH:MM:SS, optionally followed by Z or an offset "
        "such as +01:00."
    ),
    "bad_timezone": N_("%(param)s is not a valid time zone."),
    "bad_url": N_("%(param)s is not a valid URL."),
    "bad_status": N_("%(param)s is not a valid post status."),
    "bad_latitude": N_("%(param)s must be a latitude between -90 and 90."),
    "bad_longitude": N_("%(param)s must be a longitude between -180 and 180."),
    "unknown_user": N_("%(param)s is not the ID of an existing user."),
    "unknown_term": N_("%(param)s contains an unknown term: %(value)s."),
    "unknown_linked": N_("%(param)s contains an ID that is not a valid record: %(value)s."),
    "unknown_event": N_("%(param)s is not the ID of an existing event."),
    "parent_cycle": N_("%(param)s cannot be the term itself or one of its descendants."),
    "unknown_image": N_("%(param)s is not the ID of an existing image."),
    "bad_webhook_url": N_(
        "%(param)s must be an absolute http or https URL without user information, "
        "on a port from 1 to 65535 when it names one, of at most 2048 characters."
    ),
    "blocked_webhook_url": N_("%(param)s must name a host that resolves to public addresses only."),
    "unknown_event_type": N_("%(param)s contains an unknown event type: %(value)s."),
    "upload_forbidden": N_("Sorry, you are not allowed to add images by URL."),
    "missing_name": N_("%(param)s needs a name to create a record."),
    "status_forbidden": N_("%(param)s may only be publish for this user."),
    "geoloc_disabled": N_("%(param)s: geolocation filters are disabled on this site."),
    "geoloc_pair": N_("%(param)s must be sent together with %(other)s."),
    "unknown_translation": N_("%(param)s is not the ID of an existing record of this type."),
    "translation_taken": N_("%(param)s already has a translation in this language."),
    "translation_cycle": N_("%(param)s cannot be the record itself or one of its translations."),
    "translation_has_translations": N_(
        "%(param)s cannot be set on a record that other records translate."
    ),
    "rec_not_list": N_("%(param)s must be an array of strings, or null."),
    "rec_syntax": N_('%(param)s[%(index)d] "%(line)s": not a content line (NAME:VALUE)'),
    "rec_property": N_(
        '%(param)s[%(index)d] "%(line)s": only RRULE, RDATE and EXDATE lines are allowed'
    ),
    "rec_second_rrule": N_('%(param)s[%(index)d] "%(line)s": only one RRULE is allowed'),
    "rec_unknown_freq": N_('%(param)s[%(index)d] "%(line)s": unknown FREQ'),
    "rec_no_freq": N_('%(param)s[%(index)d] "%(line)s": FREQ is required'),
    "rec_unknown_part": N_('%(param)s[%(index)d] "%(line)s": unknown rule part %(part)s'),
    "rec_bad_value": N_('%(param)s[%(index)d] "%(line)s": invalid value of %(part)s'),
    "rec_count_until": N_(
        '%(param)s[%(index)d] "%(line)s": COUNT and UNTIL cannot be used together'
    ),
    "rec_bad_date": N_('%(param)s[%(index)d] "%(line)s": invalid date %(value)s'),
    "rec_unknown_tzid": N_('%(param)s[%(index)d] "%(line)s": unknown TZID %(value)s'),
    "rec_period": N_('%(param)s[%(index)d] "%(line)s": PERIOD values are not supported'),
    "rec_too_many": N_(
        '%(param)s[%(index)d] "%(line)s": more than %(cap)d occurrences before %(until)s'
    ),
    "online_url_required": N_(
        "%(param)s is required when attendance_mode is online or mixed, or event_status is "
        "moved_online."
    ),
    "series_field": N_(
        "%(param)s belongs to the whole series: send it with scope all or following."
    ),
}

TYPE_ERRORS = frozenset(
    {"not_boolean", "not_integer", "not_string", "not_number", "not_array", "not_object"}
)
Translate = t.Callable[[str], str]


def _identity(text: str) -> str:
    return text


class ParamMessage(str):
    """An English validation message that can be re-rendered in another language."""

    key: str
    kwargs: dict[str, t.Any]

    def __new__(cls, key: str, **kwargs: t.Any) -> ParamMessage:
        text = PARAM_MESSAGES[key] % kwargs if kwargs else PARAM_MESSAGES[key]
        message = super().__new__(cls, text)
        message.key = key
        message.kwargs = kwargs
        return message

    def render(self, translate: Translate = _identity) -> str:
        template = translate(PARAM_MESSAGES[self.key])
        return template % self.kwargs if self.kwargs else template

    @property
    def detail_code(self) -> str | None:
        """WordPress reports type failures with a ``rest_invalid_type`` detail."""
        if self.key in TYPE_ERRORS:
            return "rest_invalid_type"
        return None if self.key == "invalid" else "rest_invalid_param"
