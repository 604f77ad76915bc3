"""The interface describing itself: the namespace index and the OpenAPI document.

Both are generated from one source of truth: the route table (``routes.route_table``,
with the argument set each responder declares with ``routes.accepts``), the fields'
own ``json_schema`` and the representation schemas. Nothing here lists a parameter by
hand, and nothing here knows the resource classes: the route table is handed in.
"""
