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
it fails. At most ``workers`` recognitions run at once; further requests wait.
"""

from __future__ import annotations

import base64
import binascii
import email.parser
import email.policy
import json
import signal
import sys
import tempfile
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn
from urllib.parse import urlsplit

from . import __version__
from .engines import Engine, EngineError, EngineRegistry, EngineSpec, Recognition
from .engines._http import image_mime
from .errors import OcrError
from .storable import json_safe

MAX_BODY = 50 * 1024 * 1024
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


class SetupError(OcrError):
    """The worker cannot start: unknown engine, bad configuration, port taken."""


class RequestError(Exception):
    def __init__(self, status: int, message: str, kind: str = "invalid_request_error") -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind


def load_engine(name: str, config: Path | None) -> Engine:
    """The engine NAME from the config file's ``engines:`` block, or the built-in type NAME."""
    from .cases.document import DocumentError
    from .cases.loader import load_project_config

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
    """The engine behind the endpoints, with a limit on recognitions at once."""

    def __init__(self, engine: Engine, name: str, workers: int) -> None:
        self.engine = engine
        self.name = name
        self.fingerprint = engine.fingerprint()
        self._slots = threading.BoundedSemaphore(workers)

    def recognize(self, image: bytes) -> Recognition:
        mime = image_mime(image)
        if mime is None:
            raise RequestError(400, f"expected {EXPECTED_IMAGE}; got {len(image)} bytes starting with {image[:8]!r}")
        with tempfile.TemporaryDirectory(prefix="pytest-ocr-serve-") as tmp:
            path = Path(tmp, f"image{SUFFIXES[mime]}")
            path.write_bytes(image)
            with self._slots:
                try:
                    return self.engine.recognize(path)
                except EngineError as exc:
                    raise RequestError(500, str(exc), "engine_error") from None
                except Exception as exc:  # an engine bug: still an answer, not a dropped connection
                    message = f"engine {self.name!r} raised {type(exc).__name__}: {exc}"
                    raise RequestError(500, message, "engine_error") from None


def _image_from_form(body: bytes, content_type: str) -> bytes:
    head = f"Content-Type: {content_type}\r\n\r\n".encode("latin-1")
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    if not message.is_multipart():
        raise RequestError(400, f"malformed multipart body; expected {EXPECTED_OCR}")
    fields = {part.get_param("name", header="content-disposition"): part for part in message.iter_parts()}
    if "image" in fields:
        payload = fields["image"].get_payload(decode=True)  # bytes, or None for a multipart part
        return payload if isinstance(payload, bytes) else b""
    names = ", ".join(map(str, fields)) or "none"
    raise RequestError(400, f"no file field 'image' in the form (fields: {names}); expected {EXPECTED_OCR}")


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


def _image_from_messages(document: Any) -> bytes:
    """The first image_url data URL in a chat-completions request."""
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


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = f"pytest-ocr/{__version__}"
    server: WorkerServer

    def do_GET(self) -> None:
        self._dispatch({"/health": self._health, "/info": self._info, "/v1/models": self._models}, read_body=False)

    def do_POST(self) -> None:
        self._dispatch({"/ocr": self._ocr, "/v1/chat/completions": self._chat}, read_body=True)

    def _dispatch(self, routes: dict, read_body: bool) -> None:
        path = urlsplit(self.path).path.rstrip("/") or "/"
        try:
            route = routes.get(path)
            if route is None:
                known = "POST /ocr, POST /v1/chat/completions, GET /v1/models, GET /info, GET /health"
                raise RequestError(404, f"no endpoint {self.command} {path}; endpoints: {known}", "not_found_error")
            self._send(200, route(self._body() if read_body else b""))
        except RequestError as exc:
            self._send(exc.status, {"error": {"message": str(exc), "type": exc.kind}})
        except Exception as exc:  # a bug here: still an answer, not a dropped connection
            message = f"internal error: {type(exc).__name__}: {exc}"
            self._send(500, {"error": {"message": message, "type": "server_error"}})

    def _body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower() or self.headers.get("Content-Length") is None:
            raise RequestError(411, "a Content-Length header is required")
        try:
            length = int(self.headers["Content-Length"])
        except ValueError:
            raise RequestError(400, f"Content-Length is not a number: {self.headers['Content-Length']!r}") from None
        if length > MAX_BODY:
            limit = f"{MAX_BODY} ({MAX_BODY // 2**20} MB)"
            raise RequestError(413, f"the body is {length} bytes; at most {limit} are accepted")
        return self.rfile.read(length)

    def _ocr(self, body: bytes) -> dict:
        content_type = self.headers.get("Content-Type", "")
        media = content_type.partition(";")[0].strip().lower()
        if media == "multipart/form-data":
            image = _image_from_form(body, content_type)
        elif media == "application/json":
            document = _parse_json(body)
            if not isinstance(document, dict) or "image" not in document:
                raise RequestError(400, f"the JSON body has no key 'image'; expected {EXPECTED_OCR}")
            image = _decode_base64(document["image"], "'image'")
        else:
            raise RequestError(415, f"unsupported Content-Type {content_type or '(none)'!r}; expected {EXPECTED_OCR}")
        recognition = self.server.worker.recognize(image)
        return {
            "text": recognition.text,
            "lines": recognition.lines,
            "confidence": recognition.confidence,
            "fields": recognition.fields,
            "warnings": list(recognition.warnings),
            "engine": self.server.worker.name,
        }

    def _chat(self, body: bytes) -> dict:
        media = self.headers.get("Content-Type", "").partition(";")[0].strip().lower()
        if media != "application/json":
            raise RequestError(415, f"unsupported Content-Type {media or '(none)'!r}; expected application/json")
        document = _parse_json(body)
        name = self.server.worker.name
        if isinstance(document, dict) and document.get("model") not in (None, name):
            message = f"the model {document['model']!r} does not exist; this worker serves {name!r}"
            raise RequestError(404, message, "not_found_error")
        recognition = self.server.worker.recognize(_image_from_messages(document))
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

    def _models(self, body: bytes) -> dict:
        return {
            "object": "list",
            "data": [
                {
                    "id": self.server.worker.name,
                    "object": "model",
                    "created": self.server.started,
                    "owned_by": "pytest-ocr",
                }
            ],
        }

    def _info(self, body: bytes) -> dict:
        worker = self.server.worker
        return {"engine": worker.name, "fingerprint": worker.fingerprint, "pytest_ocr": __version__}

    def _health(self, body: bytes) -> dict:
        return {"status": "ok"}

    def _send(self, status: int, document: dict) -> None:
        payload = json.dumps(json_safe(document), ensure_ascii=False, allow_nan=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        if status >= 400:
            # The body may be unread: the connection cannot carry another request.
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(payload)


class WorkerServer(ThreadingHTTPServer):
    daemon_threads = True  # an exit does not wait for idle keep-alive connections

    def __init__(self, address: tuple[str, int], worker: Worker) -> None:
        super().__init__(address, Handler)
        self.worker = worker
        self.started = int(time.time())

    @property
    def url(self) -> str:
        host, port = str(self.server_address[0]), self.server_address[1]
        return f"http://{f'[{host}]' if ':' in host else host}:{port}"


def make_server(worker: Worker, host: str, port: int) -> WorkerServer:
    try:
        return WorkerServer((host, port), worker)
    except OSError as exc:
        raise SetupError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def run(name: str, config: Path | None, host: str, port: int, workers: int) -> int:
    """Serve until SIGINT or SIGTERM; 0 then."""
    if workers < 1:
        raise SetupError(f"--workers must be 1 or more, got {workers}")
    engine = load_engine(name, config)
    server = make_server(Worker(engine, name, workers), host, port)

    def stop(signum: int, frame: FrameType | None) -> NoReturn:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    print(
        f"pytest-ocr serve: engine {name!r} ({server.worker.fingerprint.get('type')}) on {server.url} "
        f"with {workers} worker{'s' if workers != 1 else ''}; POST /ocr, POST /v1/chat/completions",
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        close = getattr(engine, "close", None)
        if close is not None:
            close()
    print("pytest-ocr serve: stopped", file=sys.stderr, flush=True)
    return 0
