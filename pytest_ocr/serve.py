"""``pytest-ocr serve``: any engine pytest-ocr can run, as an HTTP OCR worker.

One GPU host runs the engine once; CI runners point an ``http`` or ``openai`` engine at
it. Endpoints:

    POST /ocr                   multipart (file field ``image``) or JSON {"image": "<base64>"}
                                -> {"text", "lines", "confidence", "fields", "warnings", "engine"}
    POST /v1/chat/completions   OpenAI-compatible: the first image_url data URL in the messages
                                -> a chat.completion whose message content is the text
    GET  /v1/models             the one model served (the engine name)
    GET  /info                  {"engine", "fingerprint", "pytest_ocr"}
    GET  /health                {"status": "ok"}

Errors are JSON ``{"error": {"message", "type"}}``: 4xx for requests that are not what
an endpoint expects (the message says what is), 500 with the engine's own message when
it fails, 503 with Retry-After when the worker is full.

The HTTP side is uvicorn (h11) running a Starlette application, with python-multipart
parsing forms: the ``serve`` extra. Every bound is here, each with a command-line option:

- ``workers`` recognitions run at once, each in a thread of one pool (the engine's
  ``recognize`` is called as the plugin calls it);
- at most ``workers + queue`` recognition requests are taken at once (reading their
  body, waiting or running), and their bodies hold at most ``max_inflight_mb`` (a body
  counts as its Content-Length, or as ``max_body_mb`` without one); the next gets 503 with
  Retry-After, which the ``http`` and ``openai`` engines honour within their deadline;
- a body is counted while it streams in, whatever its framing (Content-Length, chunked
  or none): beyond ``max_body_mb`` it gets 413, and one that has not arrived within
  ``body_timeout`` seconds gets 408;
- a request's line and headers must arrive within ``header_timeout`` seconds of its first
  byte (of the connection, for the first): a client trickling them gets 408 and is closed;
- at most ``max_connections`` connections are kept open, fewer when the open-files limit
  (raised to its hard limit if that helps) leaves room for fewer besides the files the
  rest needs (``files_kept``). A connection beyond them closes the oldest one that has
  nothing under way (idle, trickling its head, or sending the body of a refused request);
  when every one has a request under way, it gets 503 and is closed. Connections are accepted ``ACCEPT_BATCH``
  at a time, so the open files never pass the limit (which would stop all accepting);
- the listening socket's backlog is ``backlog`` connections, so a burst of clients waits
  to be accepted instead of being reset.

SIGTERM or Ctrl-C stops accepting connections, lets the requests under way finish, closes
the engine and exits 0. A second Ctrl-C stops waiting for connections; a recognition
already running in the engine still ends first (a thread cannot be stopped).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import http
import json
import signal
import socket
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from . import __version__, redaction
from .engines import Engine, EngineError, EngineRegistry, EngineSpec, Recognition
from .engines._http import image_mime
from .engines.recognize import recognize
from .errors import OcrError, shortened
from .media.images import ImageError
from .storable import json_safe

try:
    import resource
except ImportError:  # pragma: no cover - Windows: no open-files limit to fit in
    resource = None  # type: ignore[assignment]

MISSING_EXTRA: str | None
try:  # the serve extra: pip install "pytest-ocr[serve]"
    import anyio
    import h11
    import uvicorn
    from python_multipart.exceptions import FormParserError  # Starlette's form parser runs on it
    from starlette.applications import Starlette
    from starlette.datastructures import UploadFile
    from starlette.formparsers import MultiPartException, MultiPartParser
    from starlette.requests import ClientDisconnect, Request
    from starlette.responses import Response
    from starlette.routing import Route
    from uvicorn.protocols.http.h11_impl import H11Protocol
except ImportError as exc:
    MISSING_EXTRA = (exc.name or str(exc)).partition(".")[0]  # the distribution's top-level module
else:
    MISSING_EXTRA = None

MB = 1024 * 1024
SUFFIXES = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/tiff": ".tif",
    "image/gif": ".gif",
    "image/bmp": ".bmp",
    "image/webp": ".webp",
}
EXPECTED_IMAGE = "an image (PNG, JPEG, TIFF, GIF, BMP or WebP)"
EXPECTED_OCR = (
    'multipart/form-data with the image in file field "image", or application/json {"image": "<base64 of the image>"}'
)
ENDPOINTS = "POST /ocr, POST /v1/chat/completions, GET /v1/models, GET /info, GET /health"
METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
# Connections accepted in one pass of the event loop: those beyond the cap are closed a pass
# or two later, so a burst holds at most a few batches of files more than the cap.
ACCEPT_BATCH = 16
MAX_PORT = 65_535
MAX_BACKLOG = 65_535  # the kernel caps a backlog lower still (somaxconn)
# Set in a request's ASGI scope when it is refused and its body only drained: its connection
# has nothing under way to lose.
REFUSED = "pytest_ocr.refused"


@dataclass(frozen=True)
class Settings:
    """The worker's bounds; each is a command-line option of ``pytest-ocr serve``."""

    workers: int = 1  # recognitions at once
    queue: int = 32  # recognition requests waiting beyond those, before 503
    max_body_mb: float = 50.0  # a request body
    body_timeout: float = 60.0  # seconds for a request body to arrive
    backlog: int = 2048  # connections waiting to be accepted
    header_timeout: float = 10.0  # seconds for a request's line and headers to arrive
    max_connections: int = 1000  # connections kept open at once
    max_inflight_mb: float = 100.0  # bodies of the recognition requests taken at once

    def check(self) -> None:
        problems = [
            (self.workers < 1, f"--workers must be 1 or more, got {self.workers}"),
            (self.queue < 0, f"--queue must be 0 or more, got {self.queue}"),
            (not self.max_body_mb > 0, f"--max-body-mb must be more than 0, got {self.max_body_mb:g}"),
            (
                not 0 < self.body_timeout < float("inf"),
                f"--body-timeout must be more than 0 seconds, got {self.body_timeout:g}",
            ),
            # beyond a C int, listen() raised OverflowError, a traceback
            (
                not 1 <= self.backlog <= MAX_BACKLOG,
                f"--backlog must be from 1 to {MAX_BACKLOG:,}, got {shortened(self.backlog)}",
            ),
            (
                not 0 < self.header_timeout < float("inf"),
                f"--header-timeout must be more than 0 seconds, got {self.header_timeout:g}",
            ),
            (self.max_connections < 1, f"--max-connections must be 1 or more, got {self.max_connections}"),
            (
                not self.max_body_mb <= self.max_inflight_mb < float("inf"),
                f"--max-inflight-mb must be at least --max-body-mb ({self.max_body_mb:g}), "
                f"got {self.max_inflight_mb:g}",
            ),
        ]
        for failed, message in problems:
            if failed:
                raise SetupError(message)

    @property
    def max_body(self) -> int:
        return int(self.max_body_mb * MB)

    @property
    def max_inflight(self) -> int:
        return int(self.max_inflight_mb * MB)

    def files_kept(self) -> int:
        """Open files kept for what is not a connection: the process's own (64), a spooled
        upload and a temporary image per request taken, an engine's pipes (4 per worker) and
        the connections a burst brings before the cap closes them (4 accept batches)."""
        return 64 + 2 * (self.workers + self.queue) + 4 * self.workers + 4 * ACCEPT_BATCH

    def connection_cap(self) -> int:
        """The connections kept open at once: ``max_connections``, or as many as the open-files
        limit leaves room for, raising its soft limit towards the hard one first."""
        if resource is None:
            return self.max_connections
        kept = self.files_kept()
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        needed = self.max_connections + kept
        if soft != resource.RLIM_INFINITY and soft < needed:
            raised = needed if hard == resource.RLIM_INFINITY else min(hard, needed)
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
                soft = raised
        if soft == resource.RLIM_INFINITY or soft >= needed:
            return self.max_connections
        if soft - kept < 1:
            raise SetupError(
                f"the open-files limit (ulimit -n) is {soft}, and {kept} open files are kept for requests under "
                "way and the engine: raise the limit, or lower --queue and --workers"
            )
        return soft - kept


class SetupError(OcrError):
    """The worker cannot start: unknown engine, bad configuration, port taken, extra missing."""


class RequestError(Exception):
    def __init__(
        self, status: int, message: str, kind: str = "invalid_request_error", headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.headers = headers or {}


def load_engine(name: str, config: Path | None) -> Engine:
    """The engine NAME from the config file's ``engines:`` block, or the built-in type NAME."""
    from .cases.loader import load_project_config
    from .media.document import DocumentError

    registry = EngineRegistry()
    engines: dict[str, EngineSpec] = {}
    if config is not None:
        if not config.is_file():
            raise SetupError(f"configuration file not found: {config}")
        try:
            engines = load_project_config(config.resolve()).engines
        except DocumentError as exc:
            raise SetupError(f"invalid configuration file\n{exc}") from None
    spec = engines.get(name)
    if spec is None:
        if name not in registry:
            declared = f"engines declared in {config}: {', '.join(sorted(engines)) or 'none'}; " if config else ""
            usable = ", ".join(registry.types())
            raise SetupError(f"unknown engine {name!r}; {declared}engine types usable by name: {usable}")
        spec = EngineSpec(name=name, type=name, base_dir=Path.cwd())
    try:
        return registry.create(spec)
    except EngineError as exc:
        raise SetupError(str(exc)) from None


class Worker:
    """The engine behind the endpoints: one recognition of image bytes, in the calling thread."""

    def __init__(self, engine: Engine, name: str) -> None:
        self.engine = engine
        self.name = name
        self.fingerprint = engine.fingerprint()
        self._lock = threading.Lock()
        self._seconds = 0.0
        self._count = 0

    @staticmethod
    def suffix(image: bytes) -> str:
        """The file suffix for the image's format; a 400 for bytes that are no image."""
        mime = image_mime(image)
        if mime is None:
            raise RequestError(400, f"expected {EXPECTED_IMAGE}; got {len(image)} bytes starting with {image[:8]!r}")
        return SUFFIXES[mime]

    def recognize(self, image: bytes) -> Recognition:
        suffix = self.suffix(image)
        with tempfile.TemporaryDirectory(prefix="pytest-ocr-serve-") as tmp:
            path = Path(tmp, f"image{suffix}")
            path.write_bytes(image)
            start = time.monotonic()
            try:  # through the same checks and the same door as in a test run
                return recognize(self.engine, self.name, path).recognition
            except ImageError as exc:
                raise RequestError(400, str(exc).replace(str(path), "the image")) from None
            except EngineError as exc:
                raise RequestError(500, str(exc), "engine_error") from None
            except Exception as exc:  # an engine bug: still an answer, not a dropped connection
                message = f"engine {self.name!r} raised {type(exc).__name__}: {exc}"
                raise RequestError(500, message, "engine_error") from None
            finally:
                with self._lock:
                    self._seconds += time.monotonic() - start
                    self._count += 1

    def mean_seconds(self) -> float | None:
        """The mean time of a recognition so far."""
        with self._lock:
            return self._seconds / self._count if self._count else None


def _decode_base64(value: Any, where: str) -> bytes:
    if not isinstance(value, str):
        raise RequestError(400, f"{where} must be a base64 string, got {type(value).__name__}")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise RequestError(400, f"{where} is not valid base64 ({exc})") from None


def _parse_json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise RequestError(400, f"the body is not valid JSON ({exc})") from None


def _image_from_json(body: bytes) -> bytes:
    """The image of a JSON ``/ocr`` request."""
    document = _parse_json(body)
    if not isinstance(document, dict) or "image" not in document:
        raise RequestError(400, f"the JSON body has no key 'image'; expected {EXPECTED_OCR}")
    return _decode_base64(document["image"], "'image'")


def _image_from_chat(body: bytes, model: str) -> bytes:
    """The first image_url data URL in a chat-completions request for ``model``."""
    document = _parse_json(body)
    if isinstance(document, dict) and document.get("model") not in (None, model):
        message = f"the model {document['model']!r} does not exist; this worker serves {model!r}"
        raise RequestError(404, message, "not_found_error")
    messages = document.get("messages") if isinstance(document, dict) else None
    if not isinstance(messages, list):
        raise RequestError(400, "expected a chat-completions request: a JSON object with a list 'messages'")
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        for part in content if isinstance(content, list) else []:
            if not isinstance(part, dict) or part.get("type") != "image_url":
                continue
            image_url = part.get("image_url")
            url = image_url.get("url") if isinstance(image_url, dict) else image_url
            if not isinstance(url, str) or not url.startswith("data:"):
                raise RequestError(
                    400, "image_url must be a data URL (data:image/png;base64,...); this worker fetches no URLs"
                )
            header, comma, data = url.partition(",")
            if not comma or not header.endswith(";base64"):
                raise RequestError(400, "image_url must be a base64 data URL (data:<mime>;base64,<data>)")
            return _decode_base64(data, "the image_url data URL's data")
    expected = '{"type": "image_url", "image_url": {"url": "data:..."}}'
    raise RequestError(400, f"no image in the messages; expected a content part {expected}")


def _media_type(request: Request) -> tuple[str, str]:
    content_type = request.headers.get("content-type", "")
    return content_type, content_type.partition(";")[0].strip().lower()


class Service:
    """The endpoints, with the bounds of ``Settings`` on what they take in."""

    def __init__(self, worker: Worker, settings: Settings) -> None:
        self.worker = worker
        self.settings = settings
        self.started = int(time.time())
        # The engine runs in these threads only: ``workers`` recognitions at once.
        self.executor = ThreadPoolExecutor(settings.workers, thread_name_prefix="pytest-ocr-serve")
        self.taken = 0  # recognition requests between admission and answer (the event loop's thread only)
        self.inflight = 0  # bytes their bodies count for (max_inflight_mb)
        self.routes: dict[tuple[str, str], Callable[[Request], Awaitable[dict]]] = {
            ("POST", "/ocr"): self.ocr,
            ("POST", "/v1/chat/completions"): self.chat,
            ("GET", "/v1/models"): self.models,
            ("GET", "/info"): self.info,
            ("GET", "/health"): self.health,
        }

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/{path:path}", self.endpoint, methods=METHODS)])

    async def endpoint(self, request: Request) -> Response:
        path = request.url.path.rstrip("/") or "/"
        try:
            route = self.routes.get((request.method, path))
            if route is None:
                message = f"no endpoint {request.method} {path}; endpoints: {ENDPOINTS}"
                raise RequestError(404, message, "not_found_error")
            return self.answer(200, await route(request))
        except RequestError as exc:
            error = {"error": {"message": str(exc), "type": exc.kind}}
            # The body may be unread: the connection cannot carry another request.
            return self.answer(exc.status, error, {**exc.headers, "Connection": "close"})
        except Exception as exc:  # a bug here: still an answer, not a dropped connection
            error = {"error": {"message": f"internal error: {type(exc).__name__}: {exc}", "type": "server_error"}}
            return self.answer(500, error, {"Connection": "close"})

    @staticmethod
    def answer(status: int, document: dict, headers: dict[str, str] | None = None) -> Response:
        # The engine's secrets (its headers, env, API key: redaction.py) stay on this host.
        shown = redaction.redact(json_safe(document))
        payload = json.dumps(shown, ensure_ascii=False, allow_nan=False).encode("utf-8")
        return Response(payload, status, headers=headers, media_type="application/json")

    # --- what comes in: admission, the body -------------------------------------------------------

    @contextlib.asynccontextmanager
    async def admitted(self, request: Request) -> AsyncIterator[None]:
        """A place among the ``workers + queue`` recognition requests taken at once, within the
        bytes their bodies may hold (``max_inflight_mb``), or a 503."""
        limit = self.settings.workers + self.settings.queue
        length = self.declared_length(request)
        size = self.settings.max_body if length is None else length  # without a length: the most it may be
        full = None
        if self.taken >= limit:
            full = (
                f"{self.taken} requests are being recognized or waiting, the most it takes "
                f"(--workers {self.settings.workers} + --queue {self.settings.queue})"
            )
        elif self.inflight + size > self.settings.max_inflight:
            full = (
                f"the bodies of the requests it has taken count {self.inflight / MB:.1f} MB, and this one's "
                f"{size / MB:.1f} MB would pass --max-inflight-mb {self.settings.max_inflight_mb:g}"
            )
        if full is not None:
            mean = self.worker.mean_seconds()
            # A place frees when a recognition ends: about the mean time over the workers.
            wait = max(1, round((mean or 1.0) / self.settings.workers))
            request.scope[REFUSED] = True
            await self.drain(request)
            raise RequestError(
                503,
                f"the worker is full: {full}; retry after {wait} s",
                "server_busy_error",
                {"Retry-After": str(wait)},
            )
        self.taken += 1
        self.inflight += size
        try:
            yield
        finally:
            self.taken -= 1
            self.inflight -= size

    async def drain(self, request: Request) -> None:
        """Read and drop a refused request's body (within the limits), so that the client reads
        the answer instead of a reset connection. A client that waits for "100 Continue" has
        sent no body: it gets the answer instead."""
        if request.headers.get("expect", "").lower() == "100-continue":
            return
        with contextlib.suppress(RequestError):
            async for _ in self.stream(request):
                pass

    def _too_large(self, size: str) -> RequestError:
        limit = self.settings.max_body
        return RequestError(
            413,
            f"the body is {size} bytes; at most {limit} ({self.settings.max_body_mb:g} MB, --max-body-mb) are accepted",
        )

    def declared_length(self, request: Request) -> int | None:
        """The body's Content-Length, if it has one: a 400 if it is no number, a 413 beyond the limit."""
        length = request.headers.get("content-length")
        if length is None:
            return None
        # uvicorn's HTTP parser refuses these before the application sees them; this holds
        # whatever parser runs the application.
        if not (length.isascii() and length.isdigit()):
            raise RequestError(400, f"Content-Length is not a number of bytes: {length!r}")
        if int(length) > self.settings.max_body:
            raise self._too_large(str(int(length)))
        return int(length)

    async def stream(self, request: Request) -> AsyncGenerator[bytes, None]:
        """The body as it arrives, counted: whatever the framing (Content-Length, chunked or
        none), it stops at the limit with a 413, and at the body timeout with a 408."""
        self.declared_length(request)
        timeout = self.settings.body_timeout
        deadline = anyio.current_time() + timeout
        source = request.stream()
        received = 0
        while True:
            try:
                with anyio.fail_after(max(deadline - anyio.current_time(), 0)):
                    chunk = await source.__anext__()
            except StopAsyncIteration:
                return
            except TimeoutError:
                message = f"the body did not arrive within {timeout:g} s (--body-timeout); {received} bytes came"
                raise RequestError(408, message) from None
            except ClientDisconnect:
                raise RequestError(400, "the client closed the connection before the body was complete") from None
            received += len(chunk)
            if received > self.settings.max_body:
                raise self._too_large(f"more than {self.settings.max_body}")
            yield chunk

    async def body(self, request: Request) -> bytes:
        chunks = [chunk async for chunk in self.stream(request)]
        return b"".join(chunks)

    async def image_from_form(self, request: Request) -> bytes:
        parser = MultiPartParser(request.headers, self.stream(request))
        try:
            form = await parser.parse()
        except (MultiPartException, FormParserError) as exc:  # Starlette before 0.41 lets the latter through
            cause = f": {exc.__cause__}" if exc.__cause__ else ""
            raise RequestError(400, f"malformed multipart body; expected {EXPECTED_OCR} ({exc}{cause})") from None
        try:
            image = form.get("image")
            if image is None:
                names = ", ".join(form.keys()) or "none"
                raise RequestError(400, f"no file field 'image' in the form (fields: {names}); expected {EXPECTED_OCR}")
            return await image.read() if isinstance(image, UploadFile) else image.encode("utf-8")
        finally:
            await form.close()

    async def recognize(self, image: bytes) -> Recognition:
        self.worker.suffix(image)  # not an image: a 400 now, not after the queue
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, self.worker.recognize, image)

    # --- endpoints --------------------------------------------------------------------------------

    async def ocr(self, request: Request) -> dict:
        content_type, media = _media_type(request)
        if media not in ("multipart/form-data", "application/json"):
            raise RequestError(415, f"unsupported Content-Type {content_type or '(none)'!r}; expected {EXPECTED_OCR}")
        async with self.admitted(request):
            if media == "multipart/form-data":
                image = await self.image_from_form(request)
            else:
                body = await self.body(request)
                if not body:
                    raise RequestError(400, f"the request has no body; expected {EXPECTED_OCR}")
                image = await anyio.to_thread.run_sync(_image_from_json, body)
                del body  # not held while the image waits for a worker
            recognition = await self.recognize(image)
        return {
            "text": recognition.text,
            "lines": recognition.lines,
            "confidence": recognition.confidence,
            "fields": recognition.fields,
            "warnings": list(recognition.warnings),
            "engine": self.worker.name,
        }

    async def chat(self, request: Request) -> dict:
        _, media = _media_type(request)
        if media != "application/json":
            raise RequestError(415, f"unsupported Content-Type {media or '(none)'!r}; expected application/json")
        name = self.worker.name
        async with self.admitted(request):
            body = await self.body(request)
            if not body:
                raise RequestError(400, "the request has no body; expected a chat-completions request in JSON")
            image = await anyio.to_thread.run_sync(_image_from_chat, body, name)
            del body  # not held while the image waits for a worker
            recognition = await self.recognize(image)
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": name,
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": recognition.text}, "finish_reason": "stop"}
            ],
            # No language model ran: there are no tokens to count.
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        }

    async def models(self, request: Request) -> dict:
        return {
            "object": "list",
            "data": [{"id": self.worker.name, "object": "model", "created": self.started, "owned_by": "pytest-ocr"}],
        }

    async def info(self, request: Request) -> dict:
        return {"engine": self.worker.name, "fingerprint": self.worker.fingerprint, "pytest_ocr": __version__}

    async def health(self, request: Request) -> dict:
        return {"status": "ok"}


def error_answer(status: int, message: str, kind: str, headers: dict[str, str]) -> bytes:
    """A whole HTTP/1.1 answer with a JSON error, for a connection that is closed after it."""
    body = json.dumps({"error": {"message": message, "type": kind}}).encode()
    lines = [
        f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        "Connection: close",
        f"Server: pytest-ocr/{__version__}",
        *(f"{name}: {value}" for name, value in headers.items()),
    ]
    return "\r\n".join([*lines, "", ""]).encode() + body


def guarded_protocol(settings: Settings, cap: int) -> type[H11Protocol]:
    """uvicorn's h11 protocol with the bounds on connections: a request head (line and headers)
    within ``header_timeout`` of its first byte, and at most ``cap`` connections, a new one
    closing the oldest that has nothing under way."""
    timeout = settings.header_timeout

    class Guarded(H11Protocol):
        opened = 0.0
        head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.opened = self.loop.time()
            self.await_head()
            if len(self.connections) <= cap:
                return
            idle = [c for c in self.connections if isinstance(c, Guarded) and c is not self and c.idle()]
            if idle:  # an idle or trickling client makes room: it has nothing under way to lose
                min(idle, key=lambda c: (not c.has_no_request(), c.opened)).transport.close()
            else:
                message = (
                    f"the worker keeps {cap} connections open at most (--max-connections, or what the open-files "
                    "limit allows), and each has a request under way; retry after 1 s"
                )
                self.close_with(503, message, "server_busy_error", {"Retry-After": "1"})

        def has_no_request(self) -> bool:
            """Whether no request head has come whole on the connection since its last answer."""
            request_done = self.cycle is None or self.cycle.response_complete
            return request_done and self.conn.their_state is h11.IDLE and not self.transport.is_closing()

        def idle(self) -> bool:
            """Whether closing it loses nothing: it has no request, or one refused (its body is
            only being read to be dropped)."""
            refused = self.cycle is not None and not self.cycle.response_complete and self.scope.get(REFUSED)
            return self.has_no_request() or (bool(refused) and not self.transport.is_closing())

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is h11.IDLE:
                self.await_head()  # a next request began on a kept-alive connection
            elif self.head_timer is not None:
                self.head_timer.cancel()
                self.head_timer = None

        def connection_lost(self, exc: Exception | None) -> None:
            if self.head_timer is not None:
                self.head_timer.cancel()
            super().connection_lost(exc)

        def await_head(self) -> None:
            if self.head_timer is None:
                self.head_timer = self.loop.call_later(timeout, self.head_late)

        def head_late(self) -> None:
            self.head_timer = None
            if self.has_no_request():
                message = f"the request line and headers did not arrive within {timeout:g} s (--header-timeout)"
                self.close_with(408, message, "invalid_request_error", {})

        def close_with(self, status: int, message: str, kind: str, headers: dict[str, str]) -> None:
            self.transport.write(error_answer(status, message, kind, headers))
            self.transport.close()

    return Guarded


def listen(host: str, port: int, backlog: int) -> socket.socket:
    """A socket listening on HOST:PORT (port 0: a free one) with room for ``backlog`` connections."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart need not wait for TIME_WAIT
            sock.bind(address)
            sock.listen(backlog)
        except OSError:
            sock.close()
            raise
    except OSError as exc:
        raise SetupError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}"


def run(name: str, config: Path | None, host: str, port: int, settings: Settings | None = None) -> int:
    """Serve until SIGINT or SIGTERM; 0 then."""
    if MISSING_EXTRA is not None:
        raise SetupError(
            f"the serve extra is not installed (no module {MISSING_EXTRA!r}); "
            'install it with: pip install "pytest-ocr[serve]"'
        )
    settings = settings or Settings()
    settings.check()
    if not 0 <= port <= MAX_PORT:  # the socket took it modulo 65,536: 80800 listened on 15264
        raise SetupError(f"--port must be from 0 to {MAX_PORT:,}, got {shortened(port)}")
    cap = settings.connection_cap()
    engine = load_engine(name, config)
    try:
        sock = listen(host, port, settings.backlog)
        service = Service(Worker(engine, name), settings)
        workers = f"{settings.workers} worker{'s' if settings.workers != 1 else ''}"
        fewer = " (the open-files limit allows no more)" if cap < settings.max_connections else ""
        ready = (
            f"pytest-ocr serve: engine {name!r} ({service.worker.fingerprint.get('type')}) on {url_of(sock)} "
            f"with {workers}, a queue of {settings.queue} and at most {cap} connections{fewer}; "
            "POST /ocr, POST /v1/chat/completions"
        )

        backlog = settings.backlog

        class Server(uvicorn.Server):
            async def startup(self, sockets: list[socket.socket] | None = None) -> None:
                await super().startup(sockets)
                sock.listen(backlog)  # uvicorn listened with its own backlog, the accept batch
                if not self.should_exit:
                    print(ready, flush=True)  # the first line: with --port 0, the only way to know the URL

        server = Server(
            uvicorn.Config(
                service.app(),
                http=guarded_protocol(settings, cap),  # h11: the same parser and refusals wherever it runs
                loop="asyncio",  # and the same accepting (uvloop's differs)
                ws="none",
                lifespan="off",
                backlog=ACCEPT_BATCH,  # what asyncio accepts at a time; the socket's own backlog is set above
                log_level="warning",
                access_log=False,
                server_header=False,
                headers=[("Server", f"pytest-ocr/{__version__}")],
            )
        )

        def stop(signum: int, frame: FrameType | None) -> None:
            server.should_exit = True

        # While it serves, uvicorn handles SIGINT and SIGTERM: it closes the socket, lets the
        # requests under way finish, and then passes the signal on to the handler it found, this
        # one (which also covers a signal that comes before uvicorn has taken them over).
        previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGINT, signal.SIGTERM)}
        try:
            server.run(sockets=[sock])
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        # Requests under way have finished (unless a second Ctrl-C forced the exit).
        service.executor.shutdown(wait=not server.force_exit, cancel_futures=True)
    finally:
        engine.close()
    print("pytest-ocr serve: stopped", file=sys.stderr, flush=True)
    return 0
