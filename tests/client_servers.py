"""Servers and tools for the real-client tests (``tests/test_clients_*.py``).

The service runs as an operator runs it: the ``calendar-rest`` CLI in a subprocess, on a
SQLite file of its own (``init``, ``demo``, ``users create``, then ``serve`` on a free
loopback port). Static test pages are served from other loopback ports (other origins).

A missing client (Chromium, Node.js, ``tests/clients/node_modules``,
openapi-python-client) skips the test with the command that installs it, unless
``CALENDAR_REST_REQUIRE_CLIENTS=1`` (set by ``.ci/run``): then it fails.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import functools
import http.client
import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import typing as t
import urllib.error
import urllib.parse
import urllib.request
from email.message import Message
from pathlib import Path

import pytest

NS = "/calendar/events/v1"
TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
CLIENTS = TESTS / "clients"
ARTIFACTS = ROOT / ".ci" / "artifacts"
REQUIRE_VARIABLE = "CALENDAR_REST_REQUIRE_CLIENTS"
#: what starts and stops within these bounds
START_DEADLINE = 30.0
COMMAND_TIMEOUT = 60.0
ADMIN = "client-admin"


# -- what must be installed ------------------------------------------------------------


def clients_required() -> bool:
    return os.environ.get(REQUIRE_VARIABLE, "") not in ("", "0", "false")


def missing(what: str, install: str) -> t.NoReturn:
    """Skip (fail under ``CALENDAR_REST_REQUIRE_CLIENTS=1``): ``what`` is missing."""
    message = f"{what} is missing; install it with: {install}"
    if clients_required():
        pytest.fail(f"{message} ({REQUIRE_VARIABLE}=1)", pytrace=False)
    pytest.skip(message)


def chromium() -> str:
    """The Chromium binary (``CALENDAR_REST_CHROMIUM``, else ``chromium`` on PATH)."""
    configured = os.environ.get("CALENDAR_REST_CHROMIUM")
    if configured:
        if not (os.path.isfile(configured) and os.access(configured, os.X_OK)):
            missing(f"Chromium at CALENDAR_REST_CHROMIUM={configured}", "apt-get install chromium")
        return configured
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    missing("Chromium (no chromium binary on PATH)", "apt-get update && apt-get install chromium")


def node(sections: t.Sequence[str] = ("dependencies",)) -> str:
    """Node.js (18 or later), with the pinned packages of ``tests/clients`` installed
    (those of ``sections`` of its package.json: the site checks' tools are
    ``devDependencies``)."""
    binary = shutil.which("node")
    if binary is None:
        missing("Node.js (no node binary on PATH)", "apt-get install nodejs npm")
    version = subprocess.run(
        [binary, "--version"], capture_output=True, text=True, timeout=30, check=False
    ).stdout.strip()
    major = re.match(r"v(\d+)\.", version)
    if major is None or int(major.group(1)) < 18:
        missing(f"Node.js 18 or later (found {version or 'nothing'})", "apt-get install nodejs")
    manifest = json.loads((CLIENTS / "package.json").read_text())
    pinned = {name: pin for section in sections for name, pin in manifest[section].items()}
    for package, version in pinned.items():
        installed_manifest = CLIENTS / "node_modules" / package / "package.json"
        installed = (
            json.loads(installed_manifest.read_text())["version"]
            if installed_manifest.exists()
            else None
        )
        if installed != version:
            found = f"found {installed}" if installed else "not installed"
            missing(f"npm package {package}@{version} ({found})", "cd tests/clients && npm ci")
    return binary


def run_node(script: str, arguments: t.Any, timeout: float = 90.0) -> t.Any:
    """Run ``tests/clients/<script>`` with ``arguments`` (JSON, as its only argument);
    return the JSON it prints on its last line of output."""
    binary = node()
    try:
        done = subprocess.run(
            [binary, str(CLIENTS / script), json.dumps(arguments)],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=CLIENTS,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{script} ran over {timeout} s; output so far: {exc.stdout!r} {exc.stderr!r}")
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        pytest.fail(
            f"{script} exited {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
        )
    return json.loads(lines[-1])


# -- HTTP, as a command-line tool would ------------------------------------------------


@dataclasses.dataclass
class Answer:
    status: int
    headers: Message
    body: t.Any


def call(
    method: str,
    url: str,
    *,
    headers: dict[str, str] | None = None,
    json_body: t.Any = None,
    timeout: float = 10.0,
) -> Answer:
    """One request; errors are answers too (no exception for a 4xx/5xx)."""
    data = None if json_body is None else json.dumps(json_body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=dict(headers or {}))
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
            status, answer_headers = response.status, response.headers
    except urllib.error.HTTPError as error:
        with error:
            raw = error.read()
            status, answer_headers = error.code, error.headers
    try:
        body = json.loads(raw) if raw else None
    except ValueError:
        body = raw.decode(errors="replace")
    return Answer(status, answer_headers, body)


def basic(login: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- the service, run by its CLI -------------------------------------------------------


@dataclasses.dataclass
class Service:
    """A running ``calendar-rest serve`` and an administrator's credentials."""

    port: int
    login: str
    password: str
    log: Path

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def root(self) -> str:
        """The site root URL, as WordPress discovery knows it."""
        return f"{self.origin}/"

    @property
    def api(self) -> str:
        return f"{self.origin}{NS}"

    @property
    def authorization(self) -> str:
        return basic(self.login, self.password)

    def get(self, path: str, *, authenticated: bool = False, **params: t.Any) -> Answer:
        """GET a namespace path (``/events``), ``params`` as repeated keys for lists."""
        query = urllib.parse.urlencode(params, doseq=True)
        headers = {"Authorization": self.authorization} if authenticated else {}
        return call("GET", f"{self.api}{path}" + (f"?{query}" if query else ""), headers=headers)

    def all_events(self, *, authenticated: bool = False, **params: t.Any) -> list[dict[str, t.Any]]:
        """Every event of a listing, page after page (``per_page=50``)."""
        events: list[dict[str, t.Any]] = []
        for page in range(1, 100):
            answer = self.get(
                "/events", authenticated=authenticated, per_page=50, page=page, **params
            )
            assert answer.status == 200, (answer.status, answer.body)
            events.extend(answer.body["events"])
            if page >= int(answer.body["total_pages"]):
                return events
        raise AssertionError("more than 99 pages of events")

    def log_tail(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-4000:]
        except OSError:
            return ""


def _environment(**settings: str) -> dict[str, str]:
    """The environment of the CLI: English, this checkout's package first on the path
    (not another one installed in the environment), and no ``CALENDAR_REST_*`` setting
    of the caller's (a ``site_url``, say, would change the answers) but ``settings``."""
    kept = {
        name: value for name, value in os.environ.items() if not name.startswith("CALENDAR_REST_")
    }
    path = os.pathsep.join(filter(None, [str(ROOT), kept.get("PYTHONPATH")]))
    return {**kept, "LANGUAGE": "en", "PYTHONPATH": path, **settings}


def cli(database: str, *argv: str, cwd: Path) -> str:
    """Run ``calendar-rest --database <database> <argv>``; its output (it must succeed)."""
    command = [sys.executable, "-m", "calendar_rest", "--database", database, *argv]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=COMMAND_TIMEOUT,
        env=_environment(),
        check=False,
    )
    assert done.returncode == 0, f"{' '.join(argv)} exited {done.returncode}: {done.stderr}"
    return done.stdout


@contextlib.contextmanager
def calendar_service(directory: Path, cors_origins: t.Sequence[str] = ()) -> t.Iterator[Service]:
    """``init``, ``demo`` and an administrator on a fresh SQLite file, then ``serve`` on
    a free 127.0.0.1 port with ``CALENDAR_REST_CORS_ORIGINS``; stopped on exit."""
    directory.mkdir(parents=True, exist_ok=True)
    database = f"sqlite:///{directory / 'calendar.db'}"
    cli(database, "init", cwd=directory)
    cli(database, "demo", cwd=directory)
    created = cli(
        database, "users", "create", ADMIN, "--role", "administrator", cwd=directory
    ).strip()
    password = created.splitlines()[-1].strip()
    port = free_port()
    log = directory / "serve.log"
    environment = _environment(CALENDAR_REST_CORS_ORIGINS=",".join(cors_origins))
    command = [
        sys.executable, "-m", "calendar_rest", "--database", database,
        "serve", "--host", "127.0.0.1", "--port", str(port), "--threads", "4",
    ]  # fmt: skip
    with log.open("w") as output:
        process = subprocess.Popen(
            command, stdout=output, stderr=subprocess.STDOUT, cwd=directory, env=environment
        )
    service = Service(port=port, login=ADMIN, password=password, log=log)
    try:
        _wait_until_answering(service, process)
        yield service
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _wait_until_answering(service: Service, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_DEADLINE
    while True:
        try:
            answer = call("GET", f"{service.api}/events", timeout=2.0)
            if answer.status == 200:
                return
            problem: object = f"status {answer.status}"
        except (urllib.error.URLError, ConnectionError, TimeoutError) as exc:
            problem = exc
        if process.poll() is not None or time.monotonic() > deadline:
            pytest.fail(
                f"calendar-rest serve did not answer ({problem}; exit {process.poll()}):\n"
                f"{service.log_tail()}"
            )
        time.sleep(0.1)


# -- other origins: static pages, and a reverse proxy ----------------------------------


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: t.Any) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


@contextlib.contextmanager
def _serving(handler: type[http.server.BaseHTTPRequestHandler]) -> t.Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@contextlib.contextmanager
def static_origin(directory: Path = CLIENTS) -> t.Iterator[str]:
    """Serve ``directory`` (by default ``tests/clients``: pages and ``node_modules``) on
    a free loopback port; yields the origin (``http://127.0.0.1:<port>``)."""
    with _serving(functools.partial(_Quiet, directory=str(directory))) as origin:
        yield origin


HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
}


class _Proxy(_Quiet):
    """Static files under ``/pages/`` and ``/node_modules/``; everything else is
    forwarded to the service on ``upstream_port`` with the browser's own ``Host``."""

    protocol_version = "HTTP/1.1"
    upstream_port = 0

    def __init__(self, *args: t.Any, **kwargs: t.Any) -> None:
        super().__init__(*args, directory=str(CLIENTS), **kwargs)

    def _static(self) -> bool:
        return self.path.startswith(("/pages/", "/node_modules/"))

    def do_GET(self) -> None:
        if self._static():
            super().do_GET()
        else:
            self._forward()

    def do_HEAD(self) -> None:
        if self._static():
            super().do_HEAD()
        else:
            self._forward()

    def do_POST(self) -> None:
        self._forward()

    do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_POST

    def _forward(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        connection = http.client.HTTPConnection("127.0.0.1", self.upstream_port, timeout=30)
        try:
            connection.putrequest(
                self.command, self.path, skip_host=True, skip_accept_encoding=True
            )
            for name, value in self.headers.items():
                if name.lower() not in HOP_BY_HOP:
                    connection.putheader(name, value)  # Host included, as received
            connection.endheaders(body)
            response = connection.getresponse()
            content = response.read()
        finally:
            connection.close()
        self.send_response_only(response.status, response.reason)
        for name, value in response.getheaders():
            if name.lower() not in HOP_BY_HOP | {"content-length"}:
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(content)))
        http.server.BaseHTTPRequestHandler.end_headers(self)  # the service's headers only
        if self.command != "HEAD":
            self.wfile.write(content)


@contextlib.contextmanager
def same_origin_proxy(service: Service) -> t.Iterator[str]:
    """A reverse proxy on a free loopback port serving the test pages and forwarding
    the rest to ``service`` with the ``Host`` header preserved; yields its origin."""
    handler = type("Proxy", (_Proxy,), {"upstream_port": service.port})
    with _serving(handler) as origin:
        yield origin


def artifact(source: Path, name: str) -> Path:
    """Copy ``source`` to ``.ci/artifacts/<name>`` (kept after the run, for people)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    target = ARTIFACTS / name
    shutil.copyfile(source, target)
    return target
