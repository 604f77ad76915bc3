"""Property-based run of the whole API against its own ``/doc``, in-process.

schemathesis reads the OpenAPI document the app serves, generates requests for every
operation (path variables, query parameters, JSON and form bodies) and checks each
response: no 5xx, a documented status and content type, documented headers, and a
body valid against the documented schema. Requests run as the administrator, so that
writes reach the database instead of stopping at the permission check, and again
anonymously, so that every denial is a documented error too; on every backend the
suite reaches. The number of examples per operation is bounded
(``CALENDAR_REST_FUZZ_EXAMPLES``, default 25) and the run is derandomised, so CI is
repeatable; raise the bound locally to search harder.
"""

from __future__ import annotations

import os
import re

import pytest
import schemathesis
from conftest import NS, Api, assert_wp_error
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.core.failures import FailureGroup

from calendar_rest.routes import ROUTES

VARIABLE = re.compile(r"<(?:\w+:)?(\w+)>")
EXAMPLES = int(os.environ.get("CALENDAR_REST_FUZZ_EXAMPLES", "25"))
pytestmark = pytest.mark.slow
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


def operations() -> list[tuple[str, str]]:
    """(OpenAPI path, method) of every documented operation, from the route table: the
    namespace's, and those of a namespace of their own at the site root (``/batch/v1``);
    the public pages are no API operations."""
    return [
        (VARIABLE.sub(lambda match: "{" + match[1] + "}", spec.path), method)
        for spec in ROUTES
        if not spec.site or spec.namespace
        for method in spec.methods
    ]


#: the base URL of a site-root operation: its path item names its own server (the site
#: root), which schemathesis does not read; it would put the namespace before it
SITE_ROOT = "http://localhost"
SITE_ROOT_PATHS = {spec.path for spec in ROUTES if spec.site and spec.namespace}


def seed(api: Api) -> None:
    """A few linked records, so that generated IDs and filters sometimes hit data."""
    api.create_event(
        title="Jazz night",
        venue={"venue": "Hall"},
        organizer=[{"organizer": "Ann"}],
        categories=["Music"],
        tags=["Live"],
        cost="10",
    )


@pytest.mark.parametrize("user", ["administrator", None], ids=["administrator", "anonymous"])
@pytest.mark.parametrize(("path", "method"), operations())
def test_every_operation_honours_its_documentation(
    api: Api, path: str, method: str, user: str | None
) -> None:
    seed(api)
    operation = schemathesis.openapi.from_wsgi(f"{NS}/doc", api.app)[path][method]
    # schemathesis asks for gzip, as HTTP clients do, but its WSGI transport hands the
    # checks the encoded bytes (an HTTP transport would decode them): the documented
    # body is read unencoded here; gzip is tested in test_gzip.py and with Node's fetch
    headers = {**api.headers(user), "Accept-Encoding": "identity"}
    base_url = SITE_ROOT if path in SITE_ROOT_PATHS else None

    @given(case=operation.as_strategy())
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def honours_documentation(case: schemathesis.Case) -> None:
        case.call_and_validate(headers=headers, checks=CHECKS, base_url=base_url)

    honours_documentation()


def test_the_checks_catch_a_response_the_document_does_not_describe(api: Api) -> None:
    """The run above can fail: a body missing a documented key is reported."""
    schema = schemathesis.openapi.from_wsgi(f"{NS}/doc", api.app)
    schema.raw_schema["components"]["schemas"]["EventList"]["required"].append("undocumented")
    case = schema["/events"]["GET"].Case()
    with pytest.raises(FailureGroup, match="undocumented"):
        case.call_and_validate(headers={"Accept-Encoding": "identity"}, checks=CHECKS)


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/events", 404, "rest-event-not-found"),
        ("/venues", 400, "rest_invalid_param"),
        ("/organizers", 400, "rest_invalid_param"),
        ("/categories", 400, "rest_invalid_param"),
        ("/tags", 400, "rest_invalid_param"),
    ],
)
def test_an_id_beyond_any_column_is_a_missing_record(
    api: Api, path: str, status: int, code: str
) -> None:
    """Found by the run above: such term IDs overflowed SQLite's driver (a 500)."""
    for method in ("GET", "DELETE"):
        assert_wp_error(api.request(method, f"{path}/{2**64}", "administrator"), status, code)
