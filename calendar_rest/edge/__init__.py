"""The HTTP edge: everything between the WSGI callable (``app.py``) and the resources.

A request is matched to its route once, its caller authenticated once, its
parameters validated once, and its answer serialised once, with the headers WordPress
and HTTP caching ask for. ``dispatch`` is the pipeline and the only entry; a read
goes on through ``reads``, a write through ``writes``, both through ``calls``; the
other modules are the mechanisms they use (import-linter keeps that order).

- ``dispatch`` — :class:`Dispatcher`: body limit, route match, ``OPTIONS``,
  authentication, the choice of read or write, every error as a WordPress JSON answer.
- ``batch`` — ``POST /batch/v1``: each item down the write pipeline again, with the
  batch's caller; ``require-all-validate`` and atomic batches (one transaction).
- ``writes`` — the write pipeline: checks without a lock, the transaction and its
  retries, the preconditions of a conditional write, the tagged answer.
- ``reads`` — the read pipeline: the response cache, the responder, 304s; and what a
  caller would GET now, which a write is compared with and answers with.
- ``calls`` — the steps both share: the route-level permission, the parameters merged
  and validated into a ``Call``, the reply rendered, ``Allow`` and the discovery link.
- ``targets`` — the route table bound to resource instances: a ``Target`` per route
  and method.
- ``pages`` — what differs for a public page (``site/``): ``/`` negotiated with the
  default view, no authentication, errors as HTML pages.
- ``tagging`` — which record a reply shows, and the ``ETag``/``Last-Modified`` of a 200.
- ``http`` — the request and the response the WordPress way: merged parameters,
  language roots, links that follow the mount point.
- ``auth`` — HTTP Basic with application passwords, under the failed-login throttle.
- ``rate_limits`` — the rate limits per client address and per user, counted before
  any database work, and the IETF ``RateLimit`` headers; ``rate_buckets`` holds their
  token buckets, in memory or in Redis.
- ``client_address`` — the client's address behind ``trusted_proxies`` (the rate
  limits' and the login throttle's).
- ``cache`` — the response cache, correct across processes (keyed by write generation).
- ``conditional`` — validators and preconditions (``If-None-Match``, ``If-Match``, 304,
  412).
- ``encoding`` — ``Content-Encoding: gzip`` for text answers of 1 KB or more, the gzip
  variant's tag, and what ``Accept-Encoding`` takes.
- ``outbox`` — the webhook outbox, filled inside each write's own transaction.
- ``replicas`` — which PostgreSQL server (primary or a read replica) a read runs on.
- ``cors`` — cross-origin requests: which origins may read and write.
- ``answer`` — the app's response type: status, headers and body, known at once.
- ``observing`` — the outermost step: the request's ID, its metrics and its access
  line (``operations.md`` §2, §3).
- ``probes`` — the operator's ``/-/live``, ``/-/ready`` and ``/-/metrics``, answered
  beside the API, before the rate limits and the cache.
"""
