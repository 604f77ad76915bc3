"""Validate event payloads with ``calendar_rest.schemas`` alone: no server, no database.

The validators are plain marshmallow schemas; their error messages are
``ParamMessage`` strings that also know their WordPress detail code, so a caller can
rebuild the same ``rest_invalid_param`` body the service would send. Run it::

    python examples/validate_payload.py
"""

from __future__ import annotations

import json
import sys
import typing as t

from marshmallow import ValidationError

from calendar_rest.schemas import EventCreateArgs, MissingParams, ParamMessage, validate

GOOD = {
    "title": "Jazz in the Park",
    "start_date": "2030-06-01 19:00:00",
    "end_date": "2030-06-01 22:00:00",
    "timezone": "Europe/Paris",
    "all_day": "false",
    "categories": "Music, Jazz",
    "cost": "10 - 25",
}
BAD = {
    "title": "Broken",
    "start_date": "not a date at all",
    "end_date": "2030-06-01 22:00:00",
    "all_day": "sometimes",
    "timezone": "Mars/Olympus_Mons",
    "website": "no url",
}


def wordpress_error(messages: dict[str, t.Any]) -> dict[str, t.Any]:
    """The body WordPress (and the service) answers for invalid parameters."""
    errors: dict[str, ParamMessage] = {}
    for name, found in messages.items():
        first = found[0] if isinstance(found, list) and found else found
        errors[name] = first if isinstance(first, ParamMessage) else ParamMessage("invalid")
    params = {name: str(message) for name, message in errors.items()}
    details = {
        name: {"code": message.detail_code, "message": str(message), "data": {"param": name}}
        for name, message in errors.items()
        if message.detail_code
    }
    return {
        "code": "rest_invalid_param",
        "message": "Invalid parameter(s): " + ", ".join(errors),
        "data": {"status": 400, "params": params, "details": details or []},
    }


def check(name: str, payload: dict[str, t.Any]) -> dict[str, t.Any] | None:
    """Print the outcome; return the WordPress-style error body, if any."""
    try:
        args = validate(EventCreateArgs(), payload)
    except MissingParams as exc:
        body = {
            "code": "rest_missing_callback_param",
            "message": str(exc),
            "data": {"status": 400, "params": exc.names},
        }
        print(f"{name}: missing\n{json.dumps(body, indent=2)}")
        return body
    except ValidationError as exc:
        body = wordpress_error(t.cast(dict[str, t.Any], exc.messages))
        print(f"{name}: invalid\n{json.dumps(body, indent=2)}")
        return body
    print(f"{name}: valid -> {args}")
    return None


def main() -> int:
    assert check("good payload", GOOD) is None
    error = check("bad payload", BAD)
    assert error is not None and set(error["data"]["params"]) >= {"start_date", "all_day"}
    assert check("missing fields", {"title": "No dates"}) is not None
    heavy = sorted(name for name in ("werkzeug", "peewee", "waitress") if name in sys.modules)
    assert not heavy, f"the validators pulled in {heavy}"
    print("validated without werkzeug, peewee or waitress")
    return 0


if __name__ == "__main__":
    sys.exit(main())
