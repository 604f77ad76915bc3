"""The webhook worker (``sync.md`` §5): claims due outbox messages, signs and sends
them with no transaction open, and records each attempt while it holds the lease.

It runs in its own process (``calendar-rest webhooks run``), beside any number of
servers and other workers; serving a write never delivers anything. An entry-layer
package: only ``cli`` imports it, and it reads and writes through ``queries`` and
``repository`` (``repository.webhooks``), with ``rules.ssrf`` checking every address;
its metrics and log lines are ``telemetry``'s.

- ``worker`` — the delivery loop: claim, send, record, each in its own short step.
- ``sender`` — one signed ``POST``, connecting only to the addresses it checked.
- ``schedule`` — when a message is tried again: retry delays with jitter, or
  ``Retry-After``.
- ``probes`` — the worker's own ``/-/live`` and ``/-/metrics`` (``--metrics-port``),
  on a small waitress server of its own, guarded as the app's ``/-/metrics``.
"""
