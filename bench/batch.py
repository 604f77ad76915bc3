"""25 creates in one atomic ``POST /batch/v1`` against 25 single ``POST /events``.

Builds the app in-process (no server, no socket: the network round trips a batch also
saves are not counted, so the gain shown is the transaction and per-request work
alone) on a fresh SQLite file, or on ``--database-url`` (an empty or scratch
PostgreSQL or MariaDB database: the script creates its tables and adds events to it),
then times, in alternating rounds of one run, the same 25 event creates sent as 25
single requests, as one atomic batch and as one plain batch (each item its own
transaction, as WordPress runs them). Prints the median time of each and the ratios;
exits 1 when the atomic batch is not faster than the 25 singles (anchors.md §2).

    python bench/batch.py
    python bench/batch.py --database-url postgresql://postgres@127.0.0.1:5432/bench_batch
    python bench/batch.py --rounds 9 --size 25
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import sys
import tempfile
import time
import typing as t
from pathlib import Path

from werkzeug.test import Client

from calendar_rest import create_app
from calendar_rest.app import Application
from calendar_rest.cli.database import display_url
from calendar_rest.edge.auth import basic_header
from calendar_rest.models import User
from calendar_rest.repository.schema import create_schema
from calendar_rest.repository.users import add_application_password

RESULTS = Path(__file__).resolve().parent / "results"
NS = "/calendar/events/v1"
LOGIN = "bench-batch"


def administrator(app: Application) -> str:
    """The ``Authorization`` header of an administrator (created on first use)."""
    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None, microsecond=0)
    with app.database.connection_context():
        user = User.get_or_none(User.login == LOGIN)
        if user is None:
            email = f"{LOGIN}@example.test"
            user = User.create(login=LOGIN, email=email, role="administrator", registered=now)
        return basic_header(LOGIN, add_application_password(user, now))


def events(size: int, label: str, round_: int) -> list[dict[str, t.Any]]:
    """``size`` distinct events (distinct titles, so distinct slugs)."""
    day = dt.date.today() + dt.timedelta(days=30 + round_)
    return [
        {
            "title": f"Batch bench {label} {round_}-{index}",
            "start_date": f"{day} 19:00:00",
            "end_date": f"{day} 21:00:00",
            "description": "<p>A concert in the park, with <strong>three</strong> bands.</p>",
        }
        for index in range(size)
    ]


def singles(client: Client, headers: dict[str, str], bodies: list[dict[str, t.Any]]) -> float:
    started = time.perf_counter()
    for body in bodies:
        response = client.post(f"{NS}/events", headers=headers, json=body)
        assert response.status_code == 201, response.get_data(as_text=True)
    return time.perf_counter() - started


def batched(
    client: Client, headers: dict[str, str], bodies: list[dict[str, t.Any]], *, atomic: bool
) -> float:
    requests = [{"path": f"{NS}/events", "body": body} for body in bodies]
    started = time.perf_counter()
    response = client.post(
        "/batch/v1", headers=headers, json={"requests": requests, "atomic": atomic}
    )
    elapsed = time.perf_counter() - started
    assert response.status_code == 207, response.get_data(as_text=True)
    answers = t.cast(dict[str, t.Any], response.json)["responses"]
    assert [answer["status"] for answer in answers] == [201] * len(bodies), answers
    return elapsed


def measure(app: Application, rounds: int, size: int) -> dict[str, float]:
    """The median seconds of each way, rounds alternating which goes first."""
    client = Client(app)
    headers = {"Authorization": administrator(app)}
    times: dict[str, list[float]] = {"singles": [], "atomic batch": [], "plain batch": []}
    singles(client, headers, events(size, "warm-up", 0))  # connections, caches, schema
    for round_ in range(1, rounds + 1):
        ways = list(times)
        if round_ % 2 == 0:
            ways.reverse()
        for way in ways:
            bodies = events(size, way.replace(" ", "-"), round_)
            if way == "singles":
                times[way].append(singles(client, headers, bodies))
            else:
                atomic = way == "atomic batch"
                times[way].append(batched(client, headers, bodies, atomic=atomic))
    return {way: statistics.median(values) for way, values in times.items()}


def report(url: str, size: int, rounds: int, medians: dict[str, float]) -> dict[str, t.Any]:
    base = medians["singles"]
    print(f"{display_url(url)}: {size} event creates, median of {rounds} rounds")
    for way, seconds in medians.items():
        ratio = base / seconds
        print(f"  {way:<13} {seconds * 1000:8.1f} ms   {ratio:5.2f}x the singles' speed")
    return {
        "database": display_url(url),
        "creates": size,
        "rounds": rounds,
        "median_ms": {way: round(seconds * 1000, 2) for way, seconds in medians.items()},
        "atomic_speedup": round(base / medians["atomic batch"], 2),
        "plain_speedup": round(base / medians["plain batch"], 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="default: a fresh SQLite file")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--size", type=int, default=25, help="creates per batch (<= 25)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        url = args.database_url or f"sqlite:///{folder}/batch.db"
        app = create_app(url, batch_max_requests=max(args.size, 1))
        try:
            create_schema(app.database)
            medians = measure(app, args.rounds, args.size)
        finally:
            app.database.close()
    row = report(url, args.size, args.rounds, medians)
    RESULTS.mkdir(exist_ok=True)
    backend = url.split(":", 1)[0].split("+", 1)[0]
    (RESULTS / f"batch-{backend}.json").write_text(json.dumps(row, indent=2) + "\n")
    return 0 if row["atomic_speedup"] > 1 else 1


if __name__ == "__main__":
    sys.exit(main())
