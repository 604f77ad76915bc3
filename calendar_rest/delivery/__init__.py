"""The webhook worker (``sync.md`` §5): claims due outbox messages, signs and sends
them with no transaction open, and records each attempt while it holds the lease.

It runs in its own process (``calendar-rest webhooks run``), beside any number of
servers and other workers; serving a write never delivers anything.
"""
