"""What the service tells its operator: request IDs, Prometheus metrics, log lines.

A bottom layer beside ``caching/``: it imports nothing of calendar_rest, so ``db``
(which counts statements), the edge (which records requests) and the webhook worker
all use it. ``prometheus_client`` is imported by ``metrics`` alone.

- ``request_ids`` — the ID of the request a thread serves: taken from a safe
  ``X-Request-ID``, else made here, and read by every log line of that request.
- ``statements`` — the database statements a thread ran for its request, and their
  time (``db`` wraps each database's ``execute_sql``).
- ``metrics`` — the metrics ``operations.md`` §2 lists, as ``prometheus_client``
  objects (summed over processes under ``serve --workers``), the per-request ones
  recorded in batches, and the text a scrape gets.
- ``scrape_guard`` — who may read ``/-/metrics``: the app's and the worker's rule
  (``metrics_allow`` addresses, or the ``metrics_token`` bearer).
- ``logs`` — the JSON and text formats of every log line (the request ID on each),
  the access log line of ``calendar_rest.access``, and ``--log-format``.
- ``log_writer`` — the handler ``--log-format`` installs: lines written in batches,
  one system call for many (at most a fifth of a second late).
"""
