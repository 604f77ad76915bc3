"""The OpenAPI document at ``/doc`` as a contract (``open-web.md`` §11).

Code generators (openapi-python-client, openapi-generator) trust the document: an
``operationId`` becomes a function name, a ``required`` property a non-optional field,
a missing ``nullable`` a crash on the first ``null``. So the document must be valid
OpenAPI 3.0.3, name operations predictably, describe bodies inline in both media types
the service accepts, and its response schemas must match the bodies really served:
here every kind of body (lists, singles, create, update and delete answers, errors, for
records with and without venue, organizer, image or cost) is validated against the
schema the document declares for that operation and status, ``required`` and
``nullable`` included, and no body holds a key its schema does not declare.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import typing as t

import pytest
from conftest import ANONYMOUS, NS, Api, Role, api_for
from open_web import MISSING_ID, ROOTS, Body, call, day, make_event, ns, ok
from openapi_schema_validator import OAS30Validator, oas30_format_checker
from openapi_spec_validator import validate as validate_spec
from werkzeug.test import Client, TestResponse

from calendar_rest.app import Application
from calendar_rest.models import Attachment

Build = t.Callable[..., Application]
COLLECTIONS = ["events", "venues", "organizers", "categories", "tags"]
POST_TYPES = ["events", "venues", "organizers"]
BODY_METHODS = ("post", "put", "patch")
HTTP_METHODS = ("get", "post", "put", "patch", "delete")
BOTH_ROOTS = pytest.mark.parametrize("root", list(ROOTS.values()), ids=list(ROOTS))
#: the fields a create must be given, per collection (SPEC §2)
CREATE_REQUIRED = {
    "events": {"title", "start_date", "end_date"},
    "venues": {"venue"},
    "organizers": {"organizer"},
    "categories": {"name"},
    "tags": {"name"},
    "webhooks": {"url", "events"},
}
#: write fields of SPEC §2 every create and update body must declare
WRITE_FIELDS = {
    "events": {
        "title",
        "description",
        "excerpt",
        "slug",
        "status",
        "author",
        "date",
        "date_utc",
        "timezone",
        "all_day",
        "start_date",
        "end_date",
        "image",
        "cost",
        "website",
        "show_map",
        "show_map_link",
        "hide_from_listings",
        "sticky",
        "featured",
        "categories",
        "tags",
        "venue",
        "organizer",
    },
    "venues": {
        "venue",
        "description",
        "status",
        "address",
        "city",
        "country",
        "province",
        "state",
        "zip",
        "phone",
        "stateprovince",
        "website",
        "show_map",
        "show_map_link",
        "geo_lat",
        "geo_lng",
        "image",
    },
    "organizers": {"organizer", "description", "status", "phone", "website", "email", "image"},
    "categories": {"name", "description", "slug", "parent"},
    "tags": {"name", "description", "slug"},
    "webhooks": {"url", "events", "active"},
}
WRONG_PASSWORD = "Basic YWRtaW5pc3RyYXRvcjp3cm9uZw=="  # administrator:wrong


def document(api: Api, root: str = "", client: Client | None = None) -> Body:
    return ok(call(api, "GET", ns(root, "/doc"), client=client))


def operations(doc: Body) -> t.Iterator[tuple[str, str, Body]]:
    """Every ``(path, method, operation)`` of the document."""
    for path, item in doc["paths"].items():
        for method in HTTP_METHODS:
            if method in item:
                yield path, method, item[method]


def resolve(doc: Body, schema: Body) -> Body:
    """A schema with its top-level ``$ref`` (to ``#/components/...``) followed."""
    while "$ref" in schema:
        node: t.Any = doc
        for part in schema["$ref"].removeprefix("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def shape(path: str) -> tuple[str, str] | None:
    """``(collection, shape)`` of one of the five collections' (or the webhook
    subscriptions') paths, else None."""
    match = re.fullmatch(
        r"/(events|venues|organizers|categories|tags|webhooks)(/\{id\}|/by-slug/\{slug\})?", path
    )
    if match is None:
        return None
    suffix = match[2] or ""
    kind = "collection" if not suffix else ("item" if suffix == "/{id}" else "by_slug")
    return match[1], kind


# -- the document ---------------------------------------------------------------------------


@BOTH_ROOTS
def test_the_document_is_valid_openapi_3_0_3(api: Api, root: str) -> None:
    """openapi-python-client 0.29 reads 3.0.x; ``openapi-spec-validator`` is the gate."""
    doc = document(api, root)
    assert doc["openapi"] == "3.0.3"
    validate_spec(doc)


@pytest.mark.parametrize(
    ("root", "headers", "environ", "expected"),
    [
        ("", {}, {}, "http://localhost/calendar/events/v1"),
        ("/fr", {}, {}, "http://localhost/fr/calendar/events/v1"),
        (
            "",
            {"Host": "cal.example.org"},
            {"SERVER_NAME": "10.0.0.5"},
            "http://cal.example.org/calendar/events/v1",
        ),
        ("/fr", {}, {"SCRIPT_NAME": "/mount"}, "http://localhost/mount/fr/calendar/events/v1"),
    ],
    ids=["english", "french", "behind a proxy", "mounted, in french"],
)
def test_the_server_url_is_the_requests_own_namespace_root(
    api: Api, root: str, headers: dict[str, str], environ: dict[str, str], expected: str
) -> None:
    """A generated client calls ``servers[0].url + path``: it must reach this root."""
    response = api.client.get(ns(root, "/doc"), headers=headers, environ_overrides=environ)
    assert ok(response)["servers"][0]["url"] == expected


def test_paths_are_relative_with_typed_path_parameters(api: Api) -> None:
    doc = document(api)
    for collection in COLLECTIONS:
        assert f"/{collection}" in doc["paths"], collection
        assert f"/{collection}/{{id}}" in doc["paths"], collection
    for collection in POST_TYPES:
        assert f"/{collection}/by-slug/{{slug}}" in doc["paths"], collection
    for path, method, operation in operations(doc):
        assert not path.startswith(NS) and not path.startswith("/fr"), path
        declared = {p["name"]: p for p in operation.get("parameters", []) if p["in"] == "path"}
        assert set(declared) == set(re.findall(r"\{(\w+)\}", path)), (path, method)
        for name, parameter in declared.items():
            assert parameter["required"] is True, (path, method, name)
            wanted = {"id": "integer", "slug": "string"}.get(name)
            if wanted:
                assert parameter["schema"]["type"] == wanted, (path, method, name)


def test_operation_ids_are_method_collection_shape_and_unique(api: Api) -> None:
    """Generators turn them into function names: predictable (``get_events_item``,
    ``patch_tags_item``, ``get_venues_by_slug``) and never twice the same."""
    doc = document(api)
    seen: dict[str, str] = {}
    for path, method, operation in operations(doc):
        operation_id = operation.get("operationId", "")
        assert operation_id not in seen, (operation_id, path, seen.get(operation_id))
        seen[operation_id] = path
        named = shape(path)
        if named is not None:
            assert operation_id == f"{method}_{named[0]}_{named[1]}", (path, method)
        elif path not in ("/", "/doc"):
            collection = re.match(r"/([a-z]+)", path)
            assert collection is not None, path
            assert operation_id.startswith(f"{method}_{collection[1]}_"), (path, operation_id)
        assert re.fullmatch(r"(get|post|put|patch|delete)_[a-z0-9_]+", operation_id), operation_id
    expected = {
        "get_events_collection",
        "post_events_collection",
        "get_events_item",
        "post_events_item",
        "put_events_item",
        "patch_events_item",
        "delete_events_item",
        "get_events_by_slug",
        "delete_venues_by_slug",
        "get_tags_item",
        "patch_categories_item",
    }
    assert expected <= set(seen)


def test_the_first_tag_is_the_collection(api: Api) -> None:
    doc = document(api)
    for path, method, operation in operations(doc):
        collection = re.match(r"/([a-z]+)", path)
        if collection is None or path == "/doc":
            continue
        assert operation["tags"][0] == collection[1], (path, method, operation.get("tags"))


def test_request_bodies_are_inline_in_json_and_form_with_the_create_requirements(api: Api) -> None:
    """An inline schema (not a ``$ref``) in both media types the service reads (§10);
    creates require what a create needs, updates nothing; every write field of SPEC §2
    is declared."""
    doc = document(api)
    for path, method, operation in operations(doc):
        named = shape(path)
        if method not in BODY_METHODS or named is None:
            continue
        content = operation["requestBody"]["content"]
        assert set(content) >= {"application/json", "application/x-www-form-urlencoded"}, path
        schema = content["application/json"]["schema"]
        assert "$ref" not in schema and schema.get("type") == "object", (path, method)
        assert content["application/x-www-form-urlencoded"]["schema"] == schema, (path, method)
        collection, kind = named
        required = set(schema.get("required", []))
        if kind == "collection":
            assert required == CREATE_REQUIRED[collection], (path, method, required)
        else:
            assert not required, (path, method, required)
        missing = WRITE_FIELDS[collection] - set(schema["properties"])
        assert not missing, (path, method, missing)


def test_query_parameters_are_typed_and_arrays_explode(api: Api) -> None:
    """A parameter without a type becomes ``Any`` (or a crash) in generated clients;
    arrays are repeated keys (``style: form, explode: true``), which §10 accepts."""
    doc = document(api)
    untyped, collapsed = [], []
    for path, method, operation in operations(doc):
        for parameter in operation.get("parameters", []):
            if parameter["in"] != "query":
                continue
            schema = parameter.get("schema", {})
            variants = schema.get("oneOf") or schema.get("anyOf") or [schema]
            if not all("type" in variant for variant in variants):
                untyped.append(f"{method} {path} {parameter['name']}")
            if schema.get("type") == "array" and (
                parameter.get("style", "form") != "form"
                or parameter.get("explode", True) is not True
            ):
                collapsed.append(f"{method} {path} {parameter['name']}")
    assert not untyped
    assert not collapsed


def test_every_operation_declares_its_statuses(api: Api) -> None:
    """Success (201 for a create, 207 for a batch, 200 otherwise), and the errors any
    request may meet (invalid parameters, wrong or locked credentials, no route), plus
    a write's refusals, conflicts and size limit, each with the ``Error`` schema."""
    doc = document(api)
    error = doc["components"]["schemas"]["Error"]
    assert {"code", "message", "data"} <= set(error.get("required", []))
    wrong = []
    for path, method, operation in operations(doc):
        named = shape(path)
        responses = operation["responses"]
        success = "201" if method == "post" and named and named[1] == "collection" else "200"
        if path == "/batch/v1":  # WordPress's multi-status answer (anchors.md §2)
            success = "207"
        wanted = {success, "400", "401", "404", "429"}
        if method != "get" or (named and named[1] != "collection"):
            wanted.add("403")
        if method in BODY_METHODS or method == "delete":
            wanted |= {"409", "413"}
        missing = wanted - set(responses)
        if missing:
            wrong.append(f"{method} {path}: {sorted(missing)}")
        for status, response in responses.items():
            if status.startswith(("4", "5")):
                schema = response["content"]["application/json"]["schema"]
                if resolve(doc, schema) != error:
                    wrong.append(f"{method} {path} {status}: not the Error schema")
        if "Retry-After" not in responses.get("429", {}).get("headers", {}):
            wrong.append(f"{method} {path}: 429 without Retry-After")
    assert not wrong


@pytest.mark.parametrize("collection", COLLECTIONS)
def test_a_list_is_declared_with_its_wrapper_and_total_headers(api: Api, collection: str) -> None:
    doc = document(api)
    response = doc["paths"][f"/{collection}"]["get"]["responses"]["200"]
    schema = resolve(doc, response["content"]["application/json"]["schema"])
    properties = schema["properties"]
    required = set(schema.get("required", []))
    assert {collection, "total", "total_pages", "rest_url"} <= required
    assert not {"next_rest_url", "previous_rest_url"} & required
    assert properties[collection]["type"] == "array"
    assert "$ref" in properties[collection]["items"]
    assert properties["total"]["type"] == properties["total_pages"]["type"] == "integer"
    assert properties["rest_url"]["type"] == "string"
    for name in ("X-WP-Total", "X-WP-TotalPages", "X-TEC-Total", "X-TEC-TotalPages"):
        assert name in response.get("headers", {}), name


# -- the schemas against real bodies ---------------------------------------------------------


def template_pattern(template: str) -> str:
    """The regex of an OpenAPI path template (``{id}`` is digits, other variables one
    segment)."""
    parts = re.split(r"(\{\w+\})", template)
    return "".join(
        r"\d+" if part == "{id}" else "[^/]+" if part.startswith("{") else re.escape(part)
        for part in parts
    )


@dataclasses.dataclass
class Contract:
    """Validates real answers against the document of their root."""

    doc: Body
    problems: list[str] = dataclasses.field(default_factory=list)
    checked: int = 0

    def operation(self, method: str, url: str) -> tuple[str, Body] | None:
        """The operation serving ``method url`` (a path below the namespace root)."""
        path = re.sub(r"^(/fr)?" + re.escape(NS), "", url.split("?")[0]) or "/"
        candidates = [
            template
            for template, item in self.doc["paths"].items()
            if method.lower() in item and re.fullmatch(template_pattern(template), path)
        ]
        if not candidates:
            return None
        template = min(candidates, key=lambda name: name.count("{"))  # literal paths win
        return template, self.doc["paths"][template][method.lower()]

    def check(self, method: str, url: str, response: TestResponse, what: str) -> None:
        self.checked += 1
        found = self.operation(method, url)
        if found is None:
            self.problems.append(f"{what}: no operation for {method} {url}")
            return
        template, operation = found
        declared = operation["responses"].get(str(response.status_code))
        if declared is None:
            self.problems.append(
                f"{what}: {method} {template} does not declare {response.status_code}"
            )
            return
        schema = declared["content"]["application/json"]["schema"]
        body = response.json
        for error in self.validator(schema).iter_errors(body):
            where = f"{what} ({method} {template} {response.status_code}) {error.json_path}"
            self.problems.append(f"{where}: {error.message[:200]}")
        for extra in self.undeclared(schema, body, "$"):
            self.problems.append(f"{what} ({method} {template}): undeclared {extra}")

    def validator(self, schema: Body) -> OAS30Validator:
        return OAS30Validator(
            {**schema, "components": self.doc["components"]}, format_checker=oas30_format_checker
        )

    def undeclared(self, schema: Body, body: t.Any, where: str) -> list[str]:
        """Keys of ``body`` its schema does not declare (recursively, following the
        first ``oneOf``/``anyOf`` branch the value matches)."""
        schema = resolve(self.doc, schema)
        branches = schema.get("oneOf") or schema.get("anyOf")
        if branches:
            matching = [branch for branch in branches if self.validator(branch).is_valid(body)]
            return self.undeclared(matching[0], body, where) if matching else []
        for part in schema.get("allOf", []):
            found = self.undeclared(part, body, where)
            if found:
                return found
        if isinstance(body, dict):
            return self.undeclared_keys(schema, body, where)
        if isinstance(body, list) and isinstance(schema.get("items"), dict):
            return [
                extra
                for index, item in enumerate(body)
                for extra in self.undeclared(schema["items"], item, f"{where}[{index}]")
            ]
        return []

    def undeclared_keys(self, schema: Body, body: Body, where: str) -> list[str]:
        properties = schema.get("properties")
        additional = schema.get("additionalProperties")
        extra: list[str] = []
        for key, value in body.items():
            if properties is not None and key in properties:
                extra += self.undeclared(properties[key], value, f"{where}.{key}")
            elif isinstance(additional, dict):
                extra += self.undeclared(additional, value, f"{where}.{key}")
            elif properties is not None and not additional:
                extra.append(f"{where}.{key}")
        return extra


@pytest.fixture
def image_id(api: Api) -> int:
    """An attachment with dimensions, as an uploaded image has (the API only side-loads
    images by URL, which have none)."""
    with api.app.database.connection_context():
        attachment = Attachment.create(
            url="https://example.com/images/hall.jpg",
            extension="jpg",
            width=1200,
            height=800,
            created=dt.datetime(2026, 1, 1),
        )
    return int(attachment.id)


def exchange(
    api: Api,
    contract: Contract,
    what: str,
    method: str,
    url: str,
    role: Role = ANONYMOUS,
    **kwargs: t.Any,
) -> TestResponse:
    """Send a request (``url`` below the namespace) and check its answer."""
    response = api.request(method, url, role, **kwargs)
    contract.check(method, url, response, what)
    return response


def assert_conforms(contract: Contract) -> None:
    assert contract.checked, "nothing was checked"
    assert not contract.problems, "\n".join(contract.problems)


def test_event_bodies_match_their_schemas(api: Api, image_id: int) -> None:
    contract = Contract(document(api))

    def send(what: str, method: str, url: str, role: Role = ANONYMOUS, **kw: t.Any) -> Body:
        return t.cast(Body, exchange(api, contract, what, method, url, role, **kw).json)

    send("an empty list", "GET", "/events")
    full = send(
        "a full create",
        "POST",
        "/events",
        "editor",
        json={
            "title": "Jazz night",
            "description": "<p>Live.</p>",
            "excerpt": "Jazz.",
            "start_date": f"{day(20)} 19:00:00",
            "end_date": f"{day(20)} 22:00:00",
            "venue": {"venue": "Blue Hall", "city": "Lyon", "geo_lat": 45.76, "geo_lng": 4.84},
            "organizer": [{"organizer": "Ada", "email": "ada@example.com"}, {"organizer": "Bob"}],
            "categories": ["Music"],
            "tags": ["Live"],
            "image": image_id,
            "cost": "$10 - 20",
            "website": "https://jazz.example",
            "featured": True,
        },
    )
    minimal = send(
        "a minimal create",
        "POST",
        "/events",
        "editor",
        json={"title": "Bare", "start_date": f"{day(21)} 10:00", "end_date": f"{day(21)} 11:00"},
    )
    send(
        "an all-day free event with a side-loaded image",
        "POST",
        "/events",
        "editor",
        json={
            "title": "Fair",
            "start_date": day(22),
            "end_date": day(23),
            "all_day": True,
            "cost": "0",
            "image": "https://img.example/fair.png",
            "timezone": "Europe/Paris",
        },
    )
    protected = make_event(api, "editor", "publish", title="Secret", password="sesame", cost="5")
    make_event(api, "contributor", "draft", title="Draft")
    send("a list", "GET", "/events?per_page=50")
    send("an editor's list", "GET", "/events?per_page=50", "editor")
    send("a page with links", "GET", "/events?per_page=1&page=2")
    for event in (full, minimal):
        send("a single read", "GET", f"/events/{event['id']}")
        send("a read by slug", "GET", f"/events/by-slug/{event['slug']}")
    send("a protected read with the password", "GET", f"/events/{protected['id']}?password=sesame")
    send("an edit-context read", "GET", f"/events/{protected['id']}?context=edit", "editor")
    send("an update", "PATCH", f"/events/{full['id']}", "editor", json={"venue": "", "cost": ""})
    send("a replacement", "PUT", f"/events/{minimal['id']}", "editor", json={"organizer": []})
    send("a POST update", "POST", f"/events/{minimal['id']}", "editor", json={"all_day": True})
    send("a delete", "DELETE", f"/events/{minimal['id']}", "editor")
    assert_conforms(contract)


@pytest.mark.parametrize("collection", ["venues", "organizers"])
def test_venue_and_organizer_bodies_match_their_schemas(
    api: Api, image_id: int, collection: str
) -> None:
    contract = Contract(document(api))
    noun = "venue" if collection == "venues" else "organizer"
    extra: Body = (
        {"address": "1 Main St", "city": "Lyon", "geo_lat": 45.7, "geo_lng": 4.8, "phone": "555"}
        if noun == "venue"
        else {"email": "ada@example.com", "phone": "555", "website": "https://ada.example"}
    )

    def send(what: str, method: str, url: str, role: Role = ANONYMOUS, **kw: t.Any) -> Body:
        return t.cast(Body, exchange(api, contract, what, method, url, role, **kw).json)

    send("an empty list", "GET", f"/{collection}")
    full = send(
        "a full create",
        "POST",
        f"/{collection}",
        "editor",
        json={noun: "Full", "image": image_id, "description": "All set.", **extra},
    )
    bare = send("a bare create", "POST", f"/{collection}", "contributor", json={noun: "Bare"})
    send(
        "a duplicate create",
        "POST",
        f"/{collection}",
        "editor",
        json={noun: "Full", "image": image_id, "description": "All set.", **extra},
    )
    make_event(api, "editor", "publish", **{noun: full["id"] if noun == "venue" else [full["id"]]})
    send("a list", "GET", f"/{collection}")
    send("an editor's list", "GET", f"/{collection}?per_page=1", "editor")
    for record, role in ((full, ANONYMOUS), (bare, "contributor")):
        send("a single read", "GET", f"/{collection}/{record['id']}", role)
        send("a read by slug", "GET", f"/{collection}/by-slug/{record['slug']}", role)
    send(
        "an update",
        "PATCH",
        f"/{collection}/{full['id']}",
        "editor",
        json={"image": "", "description": ""},
    )
    send("a delete", "DELETE", f"/{collection}/{bare['id']}", "contributor")
    assert_conforms(contract)


@pytest.mark.parametrize("collection", ["categories", "tags"])
def test_term_bodies_match_their_schemas(api: Api, collection: str) -> None:
    contract = Contract(document(api))

    def send(what: str, method: str, url: str, role: Role = ANONYMOUS, **kw: t.Any) -> Body:
        return t.cast(Body, exchange(api, contract, what, method, url, role, **kw).json)

    send("an empty list", "GET", f"/{collection}")
    parent = send(
        "a create",
        "POST",
        f"/{collection}",
        "editor",
        json={"name": "Music", "description": "Sounds."},
    )
    if collection == "categories":
        child = send(
            "a child",
            "POST",
            "/categories",
            "editor",
            json={"name": "Jazz", "parent": parent["id"]},
        )
    else:
        child = send("another", "POST", "/tags", "editor", json={"name": "Jazz"})
    make_event(api, "editor", "publish", **{collection: [parent["id"], child["id"]]})
    send("a list", "GET", f"/{collection}")
    send("a list of all", "GET", f"/{collection}?hide_empty=false&per_page=1", "editor")
    send("a single read", "GET", f"/{collection}/{child['id']}")
    send("an update", "PATCH", f"/{collection}/{child['id']}", "editor", json={"description": ""})
    send("a delete", "DELETE", f"/{collection}/{child['id']}", "editor")
    assert_conforms(contract)


def test_error_bodies_match_their_schemas(api: Api, sibling_app: Build) -> None:
    """Every error the service answers is declared for its operation, in the ``Error``
    shape (with ``data.params`` and ``data.details`` where WordPress adds them)."""
    contract = Contract(document(api))
    draft = make_event(api, "contributor", "draft")
    event = make_event(api, "editor", "publish")
    trashed = make_event(api, "editor", "trash")
    tag = api.post("/tags", "editor", json={"name": "Taken"}).json
    wrong = {"Authorization": WRONG_PASSWORD}
    cases: list[tuple[str, str, str, Role, dict[str, t.Any]]] = [
        ("a missing event", "GET", f"/events/{MISSING_ID}", ANONYMOUS, {}),
        ("a hidden draft", "GET", f"/events/{draft['id']}", ANONYMOUS, {}),
        ("a trashed event", "GET", f"/events/{trashed['id']}", "editor", {}),
        ("an invalid parameter", "GET", "/events?per_page=zero&start_date=never", ANONYMOUS, {}),
        ("a page after the last", "GET", "/events?page=9", ANONYMOUS, {}),
        ("an unknown slug", "GET", "/events/by-slug/nope", ANONYMOUS, {}),
        ("an unknown venue", "GET", f"/venues/{MISSING_ID}", ANONYMOUS, {}),
        ("an unknown term", "DELETE", f"/tags/{MISSING_ID}", "editor", {}),
        ("wrong credentials", "GET", "/events", ANONYMOUS, {"headers": wrong}),
        ("an anonymous write", "POST", "/events", ANONYMOUS, {"json": {}}),
        ("a missing field", "POST", "/events", "editor", {"json": {"title": "x"}}),
        (
            "a refused write",
            "PATCH",
            f"/events/{event['id']}",
            "subscriber",
            {"json": {"title": "x"}},
        ),
        ("a refused delete", "DELETE", f"/events/{event['id']}", "author", {}),
        ("a trashed delete", "DELETE", f"/events/{trashed['id']}", "editor", {}),
        (
            "malformed JSON",
            "POST",
            "/events",
            "editor",
            {"data": b"{", "content_type": "application/json"},
        ),
        ("a duplicate term", "POST", "/tags", "editor", {"json": {"name": tag["name"]}}),
        (
            "a missing event written",
            "PUT",
            f"/events/{MISSING_ID}",
            "editor",
            {"json": {"title": "x"}},
        ),
    ]
    for what, method, url, role, kwargs in cases:
        response = exchange(api, contract, what, method, url, role, **kwargs)
        assert response.status_code >= 400, (what, response.status_code)
    small = api_for(sibling_app(max_body_bytes=64), api)
    exchange(small, contract, "a body too large", "POST", "/events", "editor", data=b"x" * 100)
    locked = api_for(sibling_app(login_max_failures_per_user=1), api)
    for _ in range(3):
        response = exchange(locked, contract, "a locked login", "GET", "/events", headers=wrong)
    assert response.status_code == 429
    assert_conforms(contract)


@BOTH_ROOTS
def test_description_bodies_match_their_schemas(api: Api, root: str) -> None:
    contract = Contract(document(api, root))
    for url in (ns(root), ns(root, "/doc")):
        response = call(api, "GET", url)
        contract.check("GET", url, response, url)
    assert_conforms(contract)


def test_french_bodies_match_the_french_document(api: Api) -> None:
    contract = Contract(document(api, "/fr"))
    created = api.post(
        f"/fr{NS}/events",
        "editor",
        json={
            "title": "Soirée",
            "start_date": f"{day(5)} 20:00",
            "end_date": f"{day(5)} 23:00",
            "venue": {"venue": "Salle"},
            "cost": "10",
        },
    )
    contract.check("POST", f"/fr{NS}/events", created, "a French create")
    for url in (
        f"/fr{NS}/events",
        f"/fr{NS}/events/{created.json['id']}",
        f"/fr{NS}/venues",
        f"/fr{NS}/events/{MISSING_ID}",
    ):
        contract.check("GET", url, call(api, "GET", url), url)
    assert_conforms(contract)
