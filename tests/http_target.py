"""A real HTTP server on 127.0.0.1 for the built-in jobs' tests: scripted answers, requests recorded.

`http.server.ThreadingHTTPServer` in a thread: no dependency, and a real socket, so requests go
through the same DNS, policy and connection path as in production.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Answer:
    """What the server answers to one request; `hold` blocks the answer until it is set."""

    status: int = 200
    body: bytes = b"ok"
    headers: dict[str, str] = field(default_factory=dict)
    hold: threading.Event | None = None


@dataclass(frozen=True)
class Received:
    """One request as the server saw it (header names lower-cased)."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    at: float


class HttpTarget:
    """Answers each path from its script (the last answer repeats); records every request."""

    def __init__(self) -> None:
        self.requests: list[Received] = []
        self._scripts: dict[str, list[Answer]] = {}
        self._holds: list[threading.Event] = []
        self._lock = threading.Lock()
        target = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                answer = target._record_and_pick(self.command, self.path, dict(self.headers), body)
                if answer.hold is not None:
                    answer.hold.wait(timeout=30)
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                self.wfile.write(answer.body)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

            def log_message(self, format: str, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client that gave up (the timeout test) closes the socket under us

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]

    def url(self, path: str) -> str:
        """The URL of `path` on this server."""
        return f"http://127.0.0.1:{self.port}{path}"

    def script(self, path: str, *answers: Answer) -> None:
        """Answer requests to `path` with `answers` in turn, repeating the last one."""
        with self._lock:
            self._scripts[path] = list(answers)
            self._holds.extend(a.hold for a in answers if a.hold is not None)

    def to(self, path: str) -> list[Received]:
        """The requests received for `path`, in order."""
        with self._lock:
            return [r for r in self.requests if r.path == path]

    def _record_and_pick(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        with self._lock:
            lowered = {name.lower(): value for name, value in headers.items()}
            self.requests.append(Received(method, path, lowered, body, time.monotonic()))
            script = self._scripts.get(path) or [Answer(404, b"no such path")]
            return script.pop(0) if len(script) > 1 else script[0]

    def release(self) -> None:
        """Let every held answer go (at the end of a test)."""
        for hold in self._holds:
            hold.set()


@contextlib.contextmanager
def serving() -> Iterator[HttpTarget]:
    """An HttpTarget serving in a thread until the block ends."""
    target = HttpTarget()
    # `shutdown()` waits for the loop to see its flag: a 0.5 s poll (the default) made every test
    # using a target wait ~0.5 s at its end.
    thread = threading.Thread(
        target=target.server.serve_forever, kwargs={"poll_interval": 0.05}, name="http-target", daemon=True
    )
    thread.start()
    try:
        yield target
    finally:
        target.release()
        target.server.shutdown()
        target.server.server_close()
        thread.join()
