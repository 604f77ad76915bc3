"""``calendar-rest serve``: the service under waitress, or under gunicorn's pre-fork
arbiter with ``--workers N`` (N > 1, the optional ``workers`` extra)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import os
import signal
import socket
import tempfile
import threading
import typing as t
from pathlib import Path

import peewee

from ..db import login_store
from ..i18n.catalogs import Translate
from ..i18n.messages import N_
from ..repository.schema import create_schema
from ..settings import NAMESPACE, Settings
from ..telemetry.logs import configure as configure_logs
from ..telemetry.metrics import (
    multiprocess_directory,
    process_exited,
    single_process,
    use_multiprocess,
)
from .database import open_database
from .parsing import CliError, add_log_format, bounded_int
from .series import roll_forward, run_daily, start_daily_roll_forward

NO_WORKERS = N_(
    "--workers %(workers)d needs gunicorn, which is not installed: "
    "pip install 'calendar-rest[workers]'"
)
REUSE_PORT_NEEDS_WORKERS = N_("--reuse-port needs --workers 2 or more")
REUSE_PORT_NEEDS_PORT = N_(
    "--reuse-port needs a fixed --port: with 0 each worker would get its own"
)
NO_REUSE_PORT = N_("--reuse-port: this system has no SO_REUSEPORT")


def add_commands(commands: t.Any, _: Translate) -> None:
    serve = commands.add_parser(
        "serve", help=_("run the service under waitress, or gunicorn with --workers above 1")
    )
    serve.add_argument(
        "--host", default="127.0.0.1", help=_("address to bind (default %(default)s)")
    )
    serve.add_argument(
        "--port",
        type=bounded_int(0, 65535, _("must be an integer between 0 and 65535")),
        default=8080,
        help=_("port (default %(default)s)"),
    )
    serve.add_argument(
        "--threads",
        type=bounded_int(1, None, _("must be a positive integer")),
        default=8,
        help=_("worker threads (default %(default)s)"),
    )
    serve.add_argument(
        "--workers",
        type=bounded_int(1, None, _("must be a positive integer")),
        default=1,
        help=_(
            "worker processes, each with its own threads; more than 1 runs gunicorn "
            "(the 'workers' extra) (default %(default)s)"
        ),
    )
    serve.add_argument(
        "--reuse-port",
        action="store_true",
        help=_(
            "with --workers: each worker listens on a socket of its own and the kernel "
            "spreads new connections over them (see docs/deployment.md)"
        ),
    )
    serve.add_argument(
        "--cache-entries",
        type=int,
        default=Settings.cache_entries,
        help=_("responses kept by the read cache; 0 disables it (default %(default)s)"),
    )
    serve.add_argument(
        "--max-connections",
        type=bounded_int(1, None, _("must be a positive integer")),
        help=_(
            "connections each process holds open at once, idle ones included; the "
            "next ones wait to be accepted (default: max_connections, %(value)s)"
        )
        % {"value": Settings.max_connections},
    )
    serve.add_argument(
        "--header-timeout",
        type=positive_seconds(_("must be a positive number of seconds")),
        help=_(
            "seconds a connection has to send a complete request head before it is "
            "closed (default: header_timeout, %(value)s)"
        )
        % {"value": Settings.header_timeout},
    )
    add_log_format(serve, _)
    serve.set_defaults(handler=cmd_serve)


def positive_seconds(message: str) -> t.Callable[[str], float]:
    """An argparse ``type``: a number of seconds above 0, else ``message``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(message) from None
        if not 0 < value < float("inf"):
            raise argparse.ArgumentTypeError(message)
        return value

    return parse


def connection_limits(args: argparse.Namespace, settings: Settings) -> Settings:
    """``settings`` with the connection options given on the command line (the others
    come from the environment, as for every setting)."""
    given = {
        name: value
        for name, value in (
            ("max_connections", args.max_connections),
            ("header_timeout", args.header_timeout),
        )
        if value is not None
    }
    return dataclasses.replace(settings, **given)


def cmd_serve(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    from ..app import create_app
    from ..serving.prefork import workers_available
    from ..serving.server import serve

    configure_logs(args.log_format)
    if args.reuse_port:
        check_reuse_port(args)
    if args.workers > 1 and not workers_available():
        raise CliError(NO_WORKERS, workers=args.workers)
    settings = connection_limits(args, settings)
    with open_database(settings.database_url) as database:
        create_schema(database)
    if args.workers > 1:
        close_pools(database)  # nothing opened here may outlive the fork
        with shared_metrics():
            return serve_forked(args, settings, _)
    app = create_app(settings.database_url, cache_entries=max(0, args.cache_entries))
    write_logs_before_termination()
    stop = threading.Event()  # recurring series roll forward at start-up, then daily
    start_daily_roll_forward(app.database, app.settings, stop)
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{host}:{args.port}/{NAMESPACE}/events"
    print(_("Serving %(url)s (Ctrl+C to stop)") % {"url": url}, flush=True)
    try:
        serve(
            app,
            host=args.host,
            port=args.port,
            threads=args.threads,
            max_body_bytes=app.settings.max_body_bytes,
            max_connections=settings.max_connections,
            header_timeout=settings.header_timeout,
        )
    finally:
        stop.set()
    return 0


def check_reuse_port(args: argparse.Namespace) -> None:
    """``--reuse-port`` only means something for several workers on a fixed port."""
    if args.workers < 2:
        raise CliError(REUSE_PORT_NEEDS_WORKERS)
    if args.port == 0:
        raise CliError(REUSE_PORT_NEEDS_PORT)
    if not hasattr(socket, "SO_REUSEPORT"):
        raise CliError(NO_REUSE_PORT)


def serve_forked(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    """``serve --workers N``: gunicorn's arbiter forks N workers, each building its own
    app (and so its own database connections) after the fork. The arbiter itself only
    rolls recurring series forward, on connections it closes before any fork."""
    from ..app import create_app
    from ..serving.prefork import serve_workers

    cache_entries = max(0, args.cache_entries)
    stop = threading.Event()
    start_forked_roll_forward(settings, stop)
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{host}:{args.port}/{NAMESPACE}/events"
    print(_("Serving %(url)s (Ctrl+C to stop)") % {"url": url}, flush=True)
    try:
        serve_workers(
            lambda: create_app(
                settings.database_url,
                cache_entries=cache_entries,
                worker_processes=args.workers,  # each counts its share of the rate limits
            ),
            host=args.host,
            port=args.port,
            workers=args.workers,
            threads=args.threads,
            max_body_bytes=settings.max_body_bytes,
            reuse_port=args.reuse_port,
            max_connections=settings.max_connections,
            header_timeout=settings.header_timeout,
            worker_exited=process_exited,
        )
    finally:
        stop.set()
    return 0


def write_logs_before_termination() -> None:
    """On SIGTERM, write the log lines still waiting for their batch
    (``telemetry.log_writer``), then end as SIGTERM ends the process: waitress's
    single process has no handler of its own, and would lose them. (gunicorn's
    workers exit through ``sys.exit``, which writes them.)"""

    def terminate(number: int, frame: object) -> None:
        logging.shutdown()
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, terminate)


@contextlib.contextmanager
def shared_metrics() -> t.Iterator[str]:
    """The metrics of every worker in one directory (``prometheus_client``'s
    multiprocess mode), so that a scrape of any worker sums them all: the
    directory of ``PROMETHEUS_MULTIPROC_DIR`` when the operator set one, emptied of
    an earlier run's files, else a temporary one, removed at exit."""
    given = multiprocess_directory()
    if given is not None:
        for stale in Path(given).glob("*.db"):
            stale.unlink()
        use_multiprocess(given)
        yield given
        return
    with tempfile.TemporaryDirectory(prefix="calendar-rest-metrics-") as directory:
        use_multiprocess(directory)
        try:
            yield directory
        finally:  # the directory is gone: a command run in-process again stays whole
            single_process()


def start_forked_roll_forward(settings: Settings, stop: threading.Event) -> threading.Thread:
    """The arbiter's roll-forward: now, then every 24 hours until ``stop`` is set.

    Each run opens the database, and closes every connection of it, under a lock that
    every fork of this process takes first: a worker forked while a run is under way
    would inherit a connection in use (and close it on exit, under the arbiter's feet).
    """
    lock = threading.Lock()
    os.register_at_fork(
        before=lock.acquire, after_in_parent=lock.release, after_in_child=lock.release
    )

    def step() -> None:
        with lock, open_database(settings.database_url) as database:
            try:
                roll_forward(database, settings)
            finally:
                close_pools(database)

    return run_daily(step, stop)


def close_pools(database: peewee.Database) -> None:
    """Close every connection pooled for ``database`` and its login store (returning a
    pooled connection keeps it open)."""
    for each in dict.fromkeys((database, login_store(database))):
        close_all = getattr(each, "close_all", None)
        if close_all is not None:
            close_all()
