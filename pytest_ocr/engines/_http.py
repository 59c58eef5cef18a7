"""The HTTP client the ``http`` and ``openai`` engines share.

urllib3 does the work: a PoolManager whose pool holds at most ``concurrency``
connections per host and makes further callers wait for one (so the engine is safe to
call from that many threads and never has more requests in flight), ``Retry`` for
retries with exponential backoff and Retry-After, ``Timeout`` for slow servers. What
is left here is turning every way a request can go wrong into an EngineError that
says what was called, what happened, after how many attempts, and what to check.

API keys come from an environment variable whose *name* is an option. The key itself
is kept in one attribute and scrubbed from everything the engine hands back (messages,
recognized text, fields), in case a server echoes it.
"""

from __future__ import annotations

import dataclasses
import http
import json
import os
import re
from pathlib import Path
from typing import Any

import urllib3
from urllib3.exceptions import (
    ConnectTimeoutError,
    HTTPError,
    MaxRetryError,
    NameResolutionError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
    SSLError,
)

from .. import __version__
from . import _options
from .base import EngineError, EngineSpec, Recognition

# 429: rate limited; 5xx: the server or a proxy in front of it had trouble. Other
# 4xx mean the request itself is wrong, and sending it again will not help.
RETRY_STATUSES = (429, 500, 502, 503, 504)
BODY_SHOWN = 300
KEYS_SHOWN = 20
REDACTED = "***"
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
    try:
        parsed = urllib3.util.parse_url(url)
    except urllib3.exceptions.LocationParseError:
        parsed = None
    if parsed is None or parsed.scheme not in ("http", "https") or not parsed.host:
        raise _options.error(spec, f"option {option!r} must be an http:// or https:// URL with a host, got {url!r}")
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
    text = text.strip()
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
    if status >= 500:
        return "the server failed; check its log"
    return "the server rejected the request; check the engine's options against what the server expects"


class Client:
    """POSTs and GETs returning parsed JSON, for one engine; thread-safe."""

    def __init__(self, spec: EngineSpec, options: dict, *, timeout: float, key: str | None) -> None:
        self.what = f"{spec.type} engine {spec.name!r}"
        self.timeout = timeout
        self.retries = options["retries"]
        self.key_env = options["api_key_env"]
        self._key = key
        self.pool = urllib3.PoolManager(
            maxsize=options["concurrency"],
            block=True,
            timeout=urllib3.Timeout(connect=timeout, read=timeout),
            retries=urllib3.Retry(
                total=self.retries,
                backoff_factor=options["backoff"],
                status_forcelist=RETRY_STATUSES,
                allowed_methods=None,  # OCR requests have no side effects: retrying a POST is safe
                respect_retry_after_header=True,
                raise_on_status=False,  # give back the last response, to show its status and body
            ),
        )

    def redact(self, value: Any) -> Any:
        """``value`` (str, or lists and dicts of them) with the API key replaced."""
        if not self._key:
            return value
        if isinstance(value, str):
            return value.replace(self._key, REDACTED)
        if isinstance(value, list):
            return [self.redact(v) for v in value]
        if isinstance(value, dict):
            return {self.redact(k): self.redact(v) for k, v in value.items()}
        return value

    def clean(self, recognition: Recognition) -> Recognition:
        """The recognition with the API key scrubbed from everything a report shows."""
        if not self._key:
            return recognition
        shown = ("text", "lines", "raw", "fields", "warnings")
        return dataclasses.replace(recognition, **{name: self.redact(getattr(recognition, name)) for name in shown})

    def error(self, message: str) -> EngineError:
        return EngineError(self.redact(f"{self.what}: {message}"))

    def post(self, url: str, body: bytes, headers: dict[str, str], image: Path) -> Any:
        return self._request("POST", url, body, headers, f" for {image.name}")

    def get(self, url: str, headers: dict[str, str]) -> Any:
        return self._request("GET", url, None, headers, "")

    def _request(self, method: str, url: str, body: bytes | None, headers: dict, context: str) -> Any:
        called = f"{method} {public_url(url)}{context}"
        try:
            # Headers given to a request replace the pool's: the User-Agent goes here. Redirects
            # are not followed: they would carry the key's header to wherever they point.
            response = self.pool.request(
                method, url, body=body, headers={"User-Agent": USER_AGENT, **headers}, redirect=False
            )
        except MaxRetryError as exc:
            problem, hint = self._describe(exc.reason, url)
            raise self.error(f"{called} failed after {_attempts(self.retries + 1)}: {problem}; {hint}") from None
        except HTTPError as exc:
            problem, hint = self._describe(exc, url)
            raise self.error(f"{called} failed: {problem}; {hint}") from None
        attempts = _attempts(len(response.retries.history) + 1 if response.retries else 1)
        text = response.data.decode("utf-8", errors="replace")
        if response.status >= 300:
            reason = response.reason or _phrase(response.status)
            raise self.error(
                f"{called} failed after {attempts}: HTTP {response.status} {reason}; response: {shorten(text)!r}; "
                f"{_status_hint(response.status, self.key_env, response.headers.get('Location'))}"
            )
        try:
            return json.loads(response.data)
        except (ValueError, RecursionError) as exc:
            raise self.error(
                f"{called}: the response (HTTP {response.status}) is not valid JSON ({exc}); "
                f"response: {shorten(text)!r}; check that the URL is the endpoint that answers in JSON"
            ) from None

    def _describe(self, reason: BaseException | None, url: str) -> tuple[str, str]:
        host = urllib3.util.parse_url(url).netloc
        if isinstance(reason, ReadTimeoutError):
            return (
                f"no response within {self.timeout:g} s (timed out)",
                "the server may be overloaded or the model slow: raise option 'timeout' or lower 'concurrency'",
            )
        if isinstance(reason, NameResolutionError):
            return f"cannot resolve host {urllib3.util.parse_url(url).host!r}", "check the URL's host name"
        if isinstance(reason, NewConnectionError):  # a ConnectTimeoutError subclass: test it first
            cause = _os_error(reason)
            return (
                f"could not connect to {host} ({cause.strerror if cause else reason})",
                "is the server running and listening there? check the URL",
            )
        if isinstance(reason, ConnectTimeoutError):
            return (
                f"could not connect to {host} within {self.timeout:g} s",
                "check the URL and that the host is reachable",
            )
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
