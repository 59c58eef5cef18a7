"""The HTTP client the ``http`` and ``openai`` engines share.

urllib3 does the wire work: a PoolManager whose pool holds at most ``concurrency``
connections per host and makes further callers wait for one (so the engine is safe to
call from that many threads and never has more requests in flight). Retries are made
here, so that one deadline covers a whole recognition: the engine's ``timeout`` is the
budget for waiting for a connection, connecting, sending, every retry, every
Retry-After or backoff wait and reading the whole body. Socket timeouts alone cannot
give that: each ``recv`` gets the full timeout again, so a server trickling one byte
at a time would hold an item forever. A timer shuts the sockets a call is using when
its budget runs out, and the error says what was in progress. A body is also bounded in
size (``max_response_bytes``), so a server streaming without end costs one item, not the
run's memory.

What is left is turning every way a request can go wrong into an EngineError that says
what was called, what happened, after how many attempts, and what to check.

API keys come from an environment variable whose *name* is an option. The key, the
values of option ``headers`` and what a URL carries beside its address (user, password,
query values) are registered as secrets (redaction.py), replaced wherever a run reports
them; error messages lose them here too, a response's body before it is shortened (no
part of one is left at the cut). The recognition is scored as the server returned it.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import datetime
import email.utils
import hashlib
import http
import json
import os
import re
import socket
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

import urllib3
import urllib3.connection
import urllib3.response
from urllib3.exceptions import (
    ConnectTimeoutError,
    HTTPError,
    NameResolutionError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
    SSLError,
)

from .. import __version__, limits, redaction
from . import _options
from .base import EngineError, EngineSpec, Recognition

# 429: rate limited; 5xx: the server or a proxy in front of it had trouble. Other
# 4xx mean the request itself is wrong, and sending it again will not help.
RETRY_STATUSES = (429, 500, 502, 503, 504)
BODY_SHOWN = 300
KEYS_SHOWN = 20
USER_AGENT = f"pytest-ocr/{__version__}"

# Options every HTTP engine takes; each engine adds its own and its own defaults.
COMMON_SCHEMA: dict[str, tuple[Any, Any]] = {
    "api_key_env": (str, None),
    "headers": (dict[str, str], {}),
    "retries": (int, 3),
    "backoff": (float, 0.5),
    "concurrency": (int, 4),
}

ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# File signatures of the image formats engines send and the worker accepts.
_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"II*\x00", "image/tiff"),
    (b"MM\x00*", "image/tiff"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"BM", "image/bmp"),
)


def image_mime(data: bytes) -> str | None:
    """The MIME type of an image from its first bytes, or None for an unknown format."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return next((mime for signature, mime in _SIGNATURES if data.startswith(signature)), None)


def public_url(url: str) -> str:
    """The URL as it may be shown: without user:password, query string and fragment,
    which can all carry credentials."""
    return urllib3.util.parse_url(url)._replace(auth=None, query=None, fragment=None).url


def check_url(spec: EngineSpec, option: str, url: str) -> str:
    """The URL, checked; what it carries besides its address is registered as secret."""
    try:
        parsed = urllib3.util.parse_url(url)
    except urllib3.exceptions.LocationParseError:
        parsed = None
    if parsed is None or parsed.scheme not in ("http", "https") or not parsed.host:
        shown = public_url(url) if parsed is not None else "(not shown: it may hold a credential)"
        raise _options.error(spec, f"option {option!r} must be an http:// or https:// URL with a host, got {shown!r}")
    user, _, password = (parsed.auth or "").partition(":")
    values = [pair.partition("=")[2] for pair in (parsed.query or "").split("&")]
    carried = [parsed.auth, user, password, parsed.query, *values, parsed.fragment]
    redaction.register(*carried, *(urllib.parse.unquote_plus(part) for part in carried if part))
    return url


def check_common(spec: EngineSpec, options: dict) -> None:
    if options["retries"] < 0:
        raise _options.error(spec, f"option 'retries' must be 0 or more, got {options['retries']}")
    if options["backoff"] < 0:
        raise _options.error(spec, f"option 'backoff' must be 0 or more seconds, got {options['backoff']}")
    if options["concurrency"] < 1:
        raise _options.error(spec, f"option 'concurrency' must be 1 or more, got {options['concurrency']}")


def read_api_key(spec: EngineSpec, env_name: str | None) -> str | None:
    """The key from the environment variable named by option ``api_key_env``."""
    if env_name is None:
        return None
    if not ENV_NAME.fullmatch(env_name):
        # Not echoed: a value that is no variable name may be the key itself.
        raise _options.error(
            spec,
            "option 'api_key_env' must be the NAME of an environment variable (letters, digits and _) "
            "that holds the key, not the key itself",
        )
    key = os.environ.get(env_name)
    if not key:
        raise _options.error(
            spec,
            f"environment variable {env_name} (option 'api_key_env') is {'empty' if key == '' else 'not set'}; "
            f"set it to the API key before running",
        )
    return key


def sent_headers(headers: dict[str, str], *replaced: str) -> dict[str, str]:
    """Option ``headers`` without the ones the engine sets itself (``replaced``, any case):
    what is sent of them, and what enters the fingerprint."""
    names = {name.lower() for name in replaced}
    return {name: value for name, value in headers.items() if name.lower() not in names}


def fingerprint_headers(headers: dict[str, str]) -> dict[str, str]:
    """Header names with their values' SHA-256: two engines that differ only in a header's
    value do not share cached outputs, and no value (a tenant, a token) is stored in clear."""
    return {
        name: "sha256:" + hashlib.sha256(value.encode("utf-8")).hexdigest() for name, value in sorted(headers.items())
    }


def lookup(document: Any, path: str, label: str) -> Any:
    """The value at a dotted path (``result.pages.0.text``) in a JSON document; digits
    index lists. A missing step raises EngineError naming what is there instead;
    ``label`` says where the path comes from (``option text_path 'result.text'``)."""
    value = document
    walked: list[str] = []
    for step in path.split("."):
        if isinstance(value, dict) and step in value:
            value = value[step]
        elif isinstance(value, list) and step.isdigit() and int(step) < len(value):
            value = value[int(step)]
        else:
            where = f"at {'.'.join(walked)!r}" if walked else "at the top level"
            raise EngineError(f"the response has no {step!r} ({label}); {where} it has {_shape(value)}")
        walked.append(step)
    return value


def _shape(value: Any) -> str:
    if isinstance(value, dict):
        keys = [repr(k) if len(k) <= 40 else repr(k[:37] + "...") for k in list(value)[:KEYS_SHOWN]]
        more = f" and {len(value) - KEYS_SHOWN} more" if len(value) > KEYS_SHOWN else ""
        return f"the keys {', '.join(keys)}{more}" if keys else "no keys (an empty object)"
    if isinstance(value, list):
        return f"a list of {len(value)} item{'s' if len(value) != 1 else ''}"
    return f"a {type(value).__name__} value" if value is not None else "null"


def _attempts(n: int) -> str:
    return f"{n} attempt{'s' if n != 1 else ''}"


def shorten(text: str) -> str:
    """The start of a response as a message shows it, without secrets (cut after they are
    replaced, so no part of one is left at the cut)."""
    text = redaction.redact(text.strip())
    return text if len(text) <= BODY_SHOWN else text[:BODY_SHOWN] + "...(shortened)"


def _status_hint(status: int, key_env: str | None, location: str | None) -> str:
    if status < 400:
        where = f" (to {public_url(location)})" if location else ""
        return f"the server redirects{where}; redirects are not followed: point the URL at the final address"
    if status in (401, 403):
        where = f"the key in ${key_env}" if key_env else "whether the server needs a key (option api_key_env)"
        return f"the server refused the credentials: check {where} and the header it is sent in"
    if status == 404:
        return "check the URL's path (and for an OpenAI-compatible server, the model name)"
    if status == 413:
        return "the server refused the image's size; send a smaller image or raise the server's limit"
    if status == 429:
        return "the server is rate limiting: lower the engine's 'concurrency' or raise 'retries' and 'backoff'"
    if status == 503:
        return (
            "the server is unavailable or busy (a pytest-ocr serve worker whose queue is full): raise option "
            "'timeout' to wait longer for it, or give the server more capacity (serve's --workers and --queue)"
        )
    if status >= 500:
        return "the server failed; check its log"
    return "the server rejected the request; check the engine's options against what the server expects"


# --- one deadline per call -----------------------------------------------------------------------

# Retry-After is honoured on these (as urllib3 does): a rate limit, and a server that is
# busy (`pytest-ocr serve` with a full queue).
RETRY_AFTER_STATUSES = (429, 503)
READ_CHUNK = 64 * 1024
# A response may hold the text, its lines and fields, JSON-escaped (\u0001: 6 bytes for 1): room
# for 16 times the largest output a recognition may have (--ocr-max-output-mb), and 1 MB.
RESPONSE_ROOM = 16


def max_response_bytes() -> int:
    return RESPONSE_ROOM * limits.active().max_output_bytes + limits.MB


class _TooLarge(Exception):
    """A response body beyond max_response_bytes(): not read further, not retried."""


class _Call:
    """One request with its retries, under one deadline.

    The connections it sends on register here; when the budget runs out a timer shuts
    their sockets, which ends whatever blocking read or write is under way, and every
    later step of the call sees ``expired``. ``phase`` says what was in progress.
    """

    def __init__(self, budget: float) -> None:
        self.budget = budget
        self.deadline = time.monotonic() + budget
        self.phase = "starting"
        self.received = 0
        self.expired = False
        self.expired_while: str | None = None  # what was in progress when the timer fired
        self._done = False
        self._connections: list[_WatchedConnection] = []
        self._timer = threading.Timer(budget, self._expire)
        self._timer.daemon = True

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def start(self) -> None:
        self._timer.start()

    def stop(self) -> None:
        with _OWNERSHIP:
            self._done = True
            self._connections.clear()
        self._timer.cancel()

    def use(self, connection: _WatchedConnection) -> None:
        """``connection`` sends this call's request now (under _OWNERSHIP)."""
        self._connections.append(connection)

    def check(self) -> None:
        """Raise a timeout when the budget is spent: a step that starts late must not start."""
        if self.expired or self.left() <= 0:
            self.expired = True
            raise TimeoutError(f"the {self.budget:g} s budget ran out")

    def _expire(self) -> None:
        with _OWNERSHIP:
            if self._done:
                return
            self.expired = True
            self.expired_while = self.doing()
            for connection in self._connections:
                # A connection this call released may serve another call by now: not ours to shut.
                sock = connection.sock  # read once: the owning thread may be closing it
                if connection.owner is self and sock is not None and not connection.shut:
                    connection.shut = True
                    with contextlib.suppress(OSError):
                        # socket.socket's own shutdown, also for a TLS socket (whose override
                        # would drop its TLS state under the thread reading it).
                        socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def doing(self) -> str:
        if self.phase == "reading the response body":
            return f"{self.phase} ({self.received} byte{'s' if self.received != 1 else ''} received)"
        return self.phase


_CALL: contextvars.ContextVar[_Call | None] = contextvars.ContextVar("pytest_ocr_http_call", default=None)
# Guards which call owns a connection, against the timers of calls that used it before.
_OWNERSHIP = threading.Lock()


class _WatchedConnection(urllib3.connection.HTTPConnection):
    """An HTTPConnection that tells the current call what it is doing and lets its timer
    shut the socket; a socket a timer shut is replaced before the next request."""

    owner: _Call | None = None
    shut = False

    def request(self, *args: Any, **kwargs: Any) -> None:
        call = _CALL.get()
        if call is not None:
            with _OWNERSHIP:
                call.check()
                if self.shut:  # shut by the timer of a call that used it before: connect anew
                    self.close()
                    self.shut = False
                self.owner = call
                call.use(self)
            call.phase = "sending the request"
        super().request(*args, **kwargs)

    def connect(self) -> None:
        call = _CALL.get()
        if call is not None:
            call.phase = f"connecting to {self.host}:{self.port}"
        super().connect()
        if call is not None:
            with _OWNERSHIP:
                call.check()  # expired while connecting, before the socket could be shut
            call.phase = "sending the request"

    def getresponse(self) -> urllib3.response.HTTPResponse:  # type: ignore[override]
        call = _CALL.get()
        if call is not None:
            with _OWNERSHIP:
                call.check()
            call.phase = "waiting for the response"
        return super().getresponse()


class _WatchedHTTPSConnection(_WatchedConnection, urllib3.connection.HTTPSConnection):
    pass


class _Pool(urllib3.HTTPConnectionPool):
    ConnectionCls = _WatchedConnection


class _HTTPSPool(urllib3.HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


def retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (seconds or an HTTP date); None if absent or invalid."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.timezone.utc)
    return max(0.0, (when - datetime.datetime.now(datetime.timezone.utc)).total_seconds())


@dataclasses.dataclass
class _Answer:
    status: int
    reason: str
    headers: urllib3.HTTPHeaderDict
    data: bytes


class Client:
    """POSTs and GETs returning parsed JSON, for one engine; thread-safe."""

    def __init__(self, spec: EngineSpec, options: dict, *, timeout: float, key: str | None) -> None:
        self.what = f"{spec.type} engine {spec.name!r}"
        self.timeout = timeout  # the budget of one call, retries included
        self.retries = options["retries"]
        self.backoff = options["backoff"]
        self.concurrency = options["concurrency"]
        self.key_env = options["api_key_env"]
        self._key = key
        redaction.register(key, *options["headers"].values())
        self.pool = urllib3.PoolManager(maxsize=self.concurrency, block=True)
        self.pool.pool_classes_by_scheme = {"http": _Pool, "https": _HTTPSPool}

    def finish(self, recognition: Recognition) -> Recognition:
        """The recognition as the server returned it: scored so, its secrets replaced where it
        is reported (redaction.py). A key in what is scored gets a warning."""
        if not self._key or self._key not in json.dumps(
            [recognition.text, recognition.lines, recognition.fields], ensure_ascii=False
        ):
            return recognition
        warning = (
            f"the recognised output contains the value of ${self.key_env} (the API key): it is scored as "
            f"the server returned it and reported as {redaction.REDACTED}; check what the server answers"
        )
        return dataclasses.replace(recognition, warnings=[*recognition.warnings, warning])

    def error(self, message: str) -> EngineError:
        return EngineError(redaction.redact(f"{self.what}: {message}"))

    def post(self, url: str, body: bytes, headers: dict[str, str], image: Path) -> Any:
        return self._request("POST", url, body, headers, f" for {image.name}")

    def get(self, url: str, headers: dict[str, str]) -> Any:
        return self._request("GET", url, None, headers, "")

    def _request(self, method: str, url: str, body: bytes | None, headers: dict, context: str) -> Any:
        called = f"{method} {public_url(url)}{context}"
        call = _Call(self.timeout)
        token = _CALL.set(call)
        call.start()
        try:
            answer = self._attempts(call, method, url, body, headers, called)
        finally:
            call.stop()
            _CALL.reset(token)
        text = answer.data.decode("utf-8", errors="replace")
        try:
            return json.loads(answer.data)
        except (ValueError, RecursionError) as exc:
            raise self.error(
                f"{called}: the response (HTTP {answer.status}) is not valid JSON ({exc}); "
                f"response: {shorten(text)!r}; check that the URL is the endpoint that answers in JSON"
            ) from None

    def _attempts(self, call: _Call, method: str, url: str, body: bytes | None, headers: dict, called: str) -> _Answer:
        """The first answer that is not worth retrying, within the call's budget."""
        before = ""  # what went wrong in the attempt before, for a budget that then runs out
        attempt = 0
        while True:
            attempt += 1
            try:
                answer = self._attempt(call, method, url, body, headers)
            except _TooLarge as exc:
                (most,) = exc.args
                raise self.error(
                    f"{called} failed after {_attempts(attempt)}: the response body is over {most / limits.MB:g} MB, "
                    f"{RESPONSE_ROOM} times the largest output a recognition may have (--ocr-max-output-mb) and 1 MB; "
                    "check that the URL is the OCR endpoint"
                ) from None
            except (HTTPError, OSError) as exc:
                if call.expired or call.left() <= 0:
                    raise self._ran_out(called, attempt, call, before) from None
                problem, hint = self._describe(exc, url)
                if attempt > self.retries:
                    raise self.error(f"{called} failed after {_attempts(attempt)}: {problem}; {hint}") from None
                self._pause(call, self._backoff(attempt), "backoff", called, attempt, problem, hint)
                before = problem
                continue
            if answer.status < 300:
                return answer
            reason = answer.reason or _phrase(answer.status)
            problem = (
                f"HTTP {answer.status} {reason}; response: {shorten(answer.data.decode('utf-8', errors='replace'))!r}"
            )
            hint = _status_hint(answer.status, self.key_env, answer.headers.get("Location"))
            if answer.status not in RETRY_STATUSES or attempt > self.retries:
                raise self.error(f"{called} failed after {_attempts(attempt)}: {problem}; {hint}")
            asked = retry_after(answer.headers.get("Retry-After")) if answer.status in RETRY_AFTER_STATUSES else None
            if asked is not None:
                self._pause(call, asked, "Retry-After", called, attempt, problem, hint)
            else:
                self._pause(call, self._backoff(attempt), "backoff", called, attempt, problem, hint)
            before = problem

    def _attempt(self, call: _Call, method: str, url: str, body: bytes | None, headers: dict) -> _Answer:
        call.check()
        left = call.left()
        call.phase = f"waiting for a free connection (option 'concurrency': {self.concurrency})"
        call.received = 0
        # Headers given to a request replace the pool's: the User-Agent goes here. Redirects
        # are not followed: they would carry the key's header to wherever they point.
        response = self.pool.urlopen(
            method,
            url,
            body=body,
            headers={"User-Agent": USER_AGENT, **headers},
            redirect=False,
            retries=False,
            timeout=urllib3.Timeout(connect=left, read=left),
            pool_timeout=left,
            preload_content=False,
        )
        try:
            call.phase = "reading the response body"
            chunks = []
            # read1 returns what has arrived (urllib3 2.1+), so the count of bytes is exact.
            read = getattr(response, "read1", response.read)
            most = max_response_bytes()
            while chunk := read(READ_CHUNK):
                call.received += len(chunk)
                if call.received > most:
                    response.close()  # the connection goes, with the rest of the body unread
                    raise _TooLarge(most)
                chunks.append(chunk)
            data = b"".join(chunks)
        finally:
            response.release_conn()
        # A socket shut at the deadline can look like a response that ended (headers cut
        # short end at EOF for http.client): what came is not the whole answer.
        call.check()
        return _Answer(response.status, response.reason or "", response.headers, data)

    def _backoff(self, attempt: int) -> float:
        """urllib3's schedule: the first retry at once, then 2·b, 4·b, ... seconds."""
        return 0.0 if attempt < 2 else self.backoff * 2 ** (attempt - 1)

    def _pause(self, call: _Call, wait: float, why: str, called: str, attempt: int, problem: str, hint: str) -> None:
        """Sleep ``wait`` seconds before the next attempt, or fail now if that passes the deadline."""
        left = call.left()
        if wait >= left:
            asked = "the server asks to wait" if why == "Retry-After" else "the backoff before the next attempt is"
            raise self.error(
                f"{called} failed after {_attempts(attempt)}: {problem}; {asked} {wait:g} s ({why}), more than the "
                f"{max(left, 0):.1f} s left of the {call.budget:g} s budget (option 'timeout'); {hint}"
            )
        call.phase = f"waiting {wait:g} s before attempt {attempt + 1} ({why})"
        time.sleep(wait)

    def _ran_out(self, called: str, attempt: int, call: _Call, before: str) -> EngineError:
        earlier = f" (the attempt before: {before})" if before else ""
        return self.error(
            f"{called} failed after {_attempts(attempt)}: the {call.budget:g} s budget (option 'timeout') ran out "
            f"while {call.expired_while or call.doing()}{earlier}; the server may be overloaded or the model slow: "
            "raise option 'timeout' (it covers the whole recognition, retries included) or lower 'concurrency'"
        )

    def _describe(self, reason: BaseException | None, url: str) -> tuple[str, str]:
        host = urllib3.util.parse_url(url).netloc
        if isinstance(reason, NameResolutionError):
            return f"cannot resolve host {urllib3.util.parse_url(url).host!r}", "check the URL's host name"
        if isinstance(reason, NewConnectionError):  # a ConnectTimeoutError subclass: test it first
            cause = _os_error(reason)
            return (
                f"could not connect to {host} ({cause.strerror if cause else reason})",
                "is the server running and listening there? check the URL",
            )
        if isinstance(reason, ConnectTimeoutError):
            return f"could not connect to {host} in time", "check the URL and that the host is reachable"
        if isinstance(reason, ReadTimeoutError):
            return "no response in time (timed out)", "the server may be overloaded or the model slow"
        if isinstance(reason, ProtocolError):
            inner = reason.args[1] if len(reason.args) > 1 else reason
            return (
                f"the connection was closed without a complete response ({inner})",
                "check the server's log (a crash, an out-of-memory kill, or a proxy's size or time limit)",
            )
        if isinstance(reason, SSLError):
            return f"TLS error: {reason}", "check the certificate and that the URL's scheme is right"
        return f"{type(reason).__name__}: {reason}", "check the URL and the server"

    def close(self) -> None:
        self.pool.clear()


def _os_error(exc: BaseException) -> OSError | None:
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) and seen.strerror:
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def _phrase(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return ""
