"""The interface describing itself: the namespace index and the OpenAPI document.

Both are generated from one source of truth: the route table (``routes.ROUTES``), the
argument set each responder declares (``resources.base.accepts``), the fields' own
``json_schema`` and the representation schemas. Nothing here lists a parameter by hand.
"""
