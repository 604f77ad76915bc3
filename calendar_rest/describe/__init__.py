"""The interface describing itself: the namespace index and the OpenAPI document.

Both are generated from one source of truth: the route table (``routes.route_table``,
with the argument set each responder declares with ``routes.accepts``), the fields'
own ``json_schema`` and the representation schemas (``schemas.representations``).
Nothing here lists a parameter by hand, and nothing here knows the resource classes:
the route table is handed in. It sits beside ``wire`` (imports ``routes``, ``schemas``,
``i18n``, ``wordpress``, ``settings``); ``resources.descriptions`` and the edge's
``OPTIONS`` answer use it.

- ``arguments`` — argument sets turned into JSON Schema, through apispec's converter.
- ``namespace_index`` — the site's and the namespace's REST indexes (discovery).
- ``openapi`` — ``GET /doc``: the OpenAPI 3 document, generated with apispec.
- ``options`` — the body of a plain ``OPTIONS`` request.
- ``batch_route`` — ``POST /batch/v1`` in the OpenAPI document, with its own server.
"""
