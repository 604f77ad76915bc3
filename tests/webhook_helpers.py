"""What the webhook tests share: a real receiver on 127.0.0.1, subscriptions made
through the API, and the outbox rows read back."""

from __future__ import annotations

import dataclasses
import threading
import typing as t
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import orjson
from conftest import Api

from calendar_rest.app import Application
from calendar_rest.models import WebhookAttempt, WebhookMessage, WebhookSubscription

Body = dict[str, t.Any]


@dataclasses.dataclass
class Step:
    """How the receiver answers one request."""

    status: int = 200
    headers: dict[str, str] = dataclasses.field(default_factory=dict)
    #: seconds to wait before answering (a slow endpoint)
    delay: float = 0.0
    #: wait for ``Receiver.release`` before answering (a worker killed meanwhile)
    hold: bool = False


@dataclasses.dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


class Receiver:
    """A tiny HTTP endpoint answering POSTs by a script (then 200), keeping each
    request it got."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.script: list[Step] = []
        self.arrived = threading.Event()
        self.release = threading.Event()
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                with receiver.lock:
                    receiver.received.append(Received(self.path, dict(self.headers), body))
                    step = receiver.script.pop(0) if receiver.script else Step()
                receiver.arrived.set()
                if step.hold:
                    receiver.release.wait(30)
                if step.delay:
                    receiver.release.wait(step.delay)
                try:
                    self.send_response(step.status)
                    for name, value in step.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass  # the worker is gone

            def log_message(self, format: str, *args: t.Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        # a short poll: ``shutdown`` waits for the loop's next look (0.5 s by default)
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def subscribe(api: Api, url: str, events: list[str] | None = None, **extra: t.Any) -> Body:
    response = api.post(
        "/webhooks", "administrator", json={"url": url, "events": events or ["*"], **extra}
    )
    assert response.status_code == 201, response.get_data(as_text=True)
    return t.cast(Body, response.json)


def messages(app: Application, subscription_id: int | None = None) -> list[WebhookMessage]:
    with app.database.connection_context():
        query = WebhookMessage.select().order_by(WebhookMessage.id)
        if subscription_id is not None:
            query = query.where(WebhookMessage.subscription == subscription_id)
        return list(query)


def payload(message: WebhookMessage) -> Body:
    return t.cast(Body, orjson.loads(bytes(message.payload)))


def subscription_row(app: Application, subscription_id: int) -> WebhookSubscription:
    with app.database.connection_context():
        return WebhookSubscription.get_by_id(subscription_id)


def attempts(app: Application) -> list[WebhookAttempt]:
    with app.database.connection_context():
        return list(WebhookAttempt.select().order_by(WebhookAttempt.id))
