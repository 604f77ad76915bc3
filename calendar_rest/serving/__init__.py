"""Serving the app over HTTP: waitress in every ``serve`` process, gunicorn's pre-fork
arbiter above it with ``--workers N``.

An entry-layer package that only ``cli.serve`` imports: it is handed the WSGI app (or,
pre-forked, a factory of it) and imports no more of the package than ``settings`` and
``errors``; waitress and gunicorn load when a server starts. Inside, ``prefork`` runs
``server``, which runs the read lane (a contract says so).

- ``prefork`` — serving from several processes under gunicorn's arbiter.
- ``server`` — the waitress server of every ``serve`` process.
- ``read_lane`` — one thread for the anonymous reads when the app runs one read at a
  time.
- ``open_files`` — the descriptors a server's connections need (``ulimit -n``).
- ``response_head`` — every answer's head as waitress writes it, its per-header loop in C.
"""
