"""Small real HTTP servers for the HTTP engine tests, on 127.0.0.1 and an ephemeral port.

One server speaks both protocols the engines use: ``POST /v1/chat/completions`` answers
as an OpenAI-compatible server, ``GET /info`` as a ``pytest-ocr serve`` worker, and any
other POST as an OCR worker (``{"text": ...}``). It records every request and can be
told to misbehave, request by request::

    with FakeServer(faults=["500", "500"]) as server:   # two 500s, then answers
        ...
        assert len(server.requests) == 3

Faults: ``redirect`` (a 307 elsewhere), ``400`` (a client error, never retried), ``500``
(an error body), ``429`` and ``503`` (with Retry-After: ``retry_after``), ``slow`` (answers
after ``slow_s``), ``malformed`` (invalid JSON), ``drop`` (closes the connection without a
response), ``missing`` (valid JSON without the text), ``echo_auth`` (a 401 whose body
repeats the Authorization header), ``trickle`` (a 200 whose body comes one byte every
``trickle_s`` seconds, for ever), ``trickle_head`` (the status line and headers coming
that way, for ever), ``flood`` (a 200 whose body comes as fast as it can, for ever),
``ok``. ``faults`` are used up one per request, then ``default`` applies to every later
one. ``delay`` holds every answer back; ``reply(request)``, if
given, builds the whole JSON answer of an ``ok`` request (e.g. a text per image).

Run it alone (``python tests/engine_helpers/servers.py --delay 0.2``) for a server in
another process; it prints its URL.
"""

from __future__ import annotations

import argparse
import contextlib
import email.parser
import email.policy
import json
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http.client import HTTPMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = (
    "ok",
    "redirect",
    "400",
    "500",
    "429",
    "503",
    "slow",
    "malformed",
    "drop",
    "missing",
    "echo_auth",
    "trickle",
    "trickle_head",
    "flood",
)
ERROR_BODY = '{"error": {"message": "the model crashed", "type": "server_error"}}'


@dataclass
class Part:
    filename: str | None
    content_type: str
    data: bytes


@dataclass
class Request:
    method: str
    path: str
    headers: HTTPMessage  # case-insensitive: headers["authorization"]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def form(self) -> dict[str, Part]:
        """The fields of a multipart/form-data body, parsed by the standard library's MIME parser."""
        head = f"Content-Type: {self.headers['Content-Type']}\r\n\r\n".encode()
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + self.body)
        assert message.is_multipart(), f"not a multipart body: {self.headers['Content-Type']}"
        return {
            part.get_param("name", header="content-disposition"): Part(
                part.get_filename(), part.get_content_type(), part.get_payload(decode=True)
            )
            for part in message.iter_parts()
        }


def completion(text: str | None, finish_reason: str = "stop", model: str = "fake-vlm") -> dict:
    """An OpenAI chat.completion object whose first choice says ``text``."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 1234, "completion_tokens": 56, "total_tokens": 1290},
    }


class FakeServer:
    def __init__(
        self,
        *,
        faults: Iterable[str] = (),
        default: str = "ok",
        text: str = "hello world",
        reply: Callable[[Request], Any] | None = None,
        delay: float = 0.0,
        slow_s: float = 3.0,
        retry_after: str = "1",
        error_body: str = ERROR_BODY,
        finish_reason: str = "stop",
        trickle_s: float = 0.2,
    ) -> None:
        self.faults = list(faults)
        for fault in [*self.faults, default]:
            assert fault in FAULTS, f"unknown fault {fault!r}; known: {FAULTS}"
        self.default = default
        self.text = text
        self.reply = reply  # the whole JSON answer of an "ok" request, instead of one built from `text`
        self.delay = delay
        self.slow_s = slow_s
        self.retry_after = retry_after
        self.error_body = error_body
        self.finish_reason = finish_reason
        self.trickle_s = trickle_s
        self.stopping = threading.Event()  # ends the answers that trickle for ever
        self.requests: list[Request] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        # A short poll interval: stopping waits for one.
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def ocr_url(self) -> str:
        return f"{self.url}/ocr"

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def start(self) -> FakeServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _next_fault(self, request: Request) -> str:
        with self._lock:
            self.requests.append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            return self.faults.pop(0) if self.faults else self.default

    def _done(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def ok_answer(self, request: Request) -> Any:
        if self.reply is not None:
            return self.reply(request)
        if request.path.startswith("/v1/chat/completions"):
            return completion(self.text, self.finish_reason)
        if request.path == "/info":
            return {"engine": "fake", "fingerprint": {"type": "fake", "version": "1.0", "config": {"x": 1}}}
        return {"text": self.text}


class _Server(ThreadingHTTPServer):
    fake: FakeServer

    def handle_error(self, request, client_address) -> None:
        pass  # a client that gave up (timeout) makes the late answer fail: expected here


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # TCP_NODELAY, as real servers (uvicorn, vLLM) set it: otherwise the body, written after the
    # headers, waits for the client's delayed ACK, and every answer comes 40 ms late.
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format, *args) -> None:
        pass

    def do_GET(self) -> None:
        self._handle(b"")

    def do_POST(self) -> None:
        self._handle(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

    def _handle(self, body: bytes) -> None:
        fake = self.server.fake
        request = Request(self.command, self.path, self.headers, body)
        fault = fake._next_fault(request)
        try:
            time.sleep(fake.delay)
            self._answer(fake, request, fault)
        finally:
            fake._done()

    def _answer(self, fake: FakeServer, request: Request, fault: str) -> None:
        chat = request.path.startswith("/v1/chat/completions")
        if fault == "drop":
            self.close_connection = True
            return
        if fault == "redirect":
            return self._send(307, b"{}", {"Location": f"{fake.url}/elsewhere?token=x"})
        if fault == "400":
            return self._send(400, b'{"error": {"message": "unsupported image"}}')
        if fault == "500":
            return self._send(500, fake.error_body.encode())
        if fault == "429":
            return self._send(429, b'{"error": "slow down"}', {"Retry-After": fake.retry_after})
        if fault == "503":
            return self._send(503, b'{"error": "busy"}', {"Retry-After": fake.retry_after})
        if fault == "trickle":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(10**9))
            self.end_headers()
            return self._trickle(fake, b" ")  # JSON allows any amount of leading white space
        if fault == "flood":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(10**15))
            self.end_headers()
            self.close_connection = True
            with contextlib.suppress(OSError):  # until the client hangs up
                while not fake.stopping.is_set():
                    self.wfile.write(b" " * 65536)
            return None
        if fault == "trickle_head":
            self.wfile.write(b"HTTP/1.1 200 OK\r\n")
            return self._trickle(fake, b"X-Padding: " + b"x" * 60 + b"\r\n")
        if fault == "malformed":
            return self._send(200, b'{"text": "unterminated')
        if fault == "missing":
            document = {"id": "x", "object": "chat.completion"} if chat else {"result": {"pages": []}, "status": "done"}
            return self._send(200, json.dumps(document).encode())
        if fault == "echo_auth":
            message = f"invalid credentials: {self.headers.get('Authorization')}"
            return self._send(401, json.dumps({"error": {"message": message}}).encode())
        if fault == "slow":
            time.sleep(fake.slow_s)
        self._send(200, json.dumps(fake.ok_answer(request)).encode())

    def _trickle(self, fake: FakeServer, data: bytes) -> None:
        """``data`` again and again, one byte every ``trickle_s``, until the client hangs up
        or the server stops."""
        self.close_connection = True
        try:
            while not fake.stopping.is_set():
                for byte in data:
                    self.wfile.write(bytes([byte]))
                    if fake.stopping.wait(fake.trickle_s):
                        return
        except OSError:  # the client gave up: what this fault is for
            pass

    def _send(self, status: int, body: bytes, headers: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="a fake OCR worker / OpenAI-compatible server")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before every answer")
    parser.add_argument("--text", default="hello world", help="the text every answer carries")
    parser.add_argument("--default", default="ok", choices=FAULTS, help="how every request is answered")
    args = parser.parse_args()
    server = FakeServer(default=args.default, text=args.text, delay=args.delay)
    print(server.url, flush=True)
    try:
        server._server.serve_forever()
    except KeyboardInterrupt:
        pass
