"""Secrets kept out of everything pytest-ocr writes or prints.

Engines know their secrets: the values of an ``http`` or ``openai`` engine's ``headers``,
the key its ``api_key_env`` names, the user and password or query values of its URL, the
values of a ``command`` engine's ``env``. They ``register`` them here when they are built,
and a server can still echo one back (a 403 quoting the header), a program print one on
stderr, a model read one into its output. So what leaves the process that ran an item
passes through ``redact``: every result (``run/result.py``'s ``make_result``, before any
view renders it) and the item's test report (``redact_report``: what pytest prints for a
failure, its short summary line, captured output, JUnit XML), and every answer of
``pytest-ocr serve``. A secret is replaced by ``***``. Metrics are computed before, on the
text as the engine returned it; the output cache keeps that text too, so a cached output
scores the same.

A value shorter than ``MIN_LENGTH`` characters is not treated as a secret: redacting
``OMP_THREAD_LIMIT: 1`` or ``lang: eng`` would blank every "1" and "eng" of every text.
Whitespace-separated words of a value (the token of ``Bearer <token>``) are secrets too.

A database URL's credentials are hidden by their structure besides (``credentials``): the
user and password of any URL in a message (``scheme://USER:PASSWORD@``) and a connection
string's ``password=VALUE`` are replaced whatever their length, and the user and password
wherever they stand as a word of their own. A short password (or a one-letter user) is not
replaced inside other words: replacing every "o" of a message garbles it
("Operati***nalErr***r") and tells the password by the letters that went missing; a password
of ``MIN_LENGTH`` or more characters is replaced everywhere, as every registered secret.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from typing import Any, TypeVar

from .visible import visible

REDACTED = "***"
MIN_LENGTH = 8

T = TypeVar("T")

_secrets: tuple[str, ...] = ()  # longest first: a secret holding another is replaced whole
_lock = threading.Lock()


def register(*values: str | None) -> None:
    """Treat ``values`` (and their words) as secrets in this process from now on."""
    global _secrets
    found: set[str] = set()
    for value in values:
        if not value:
            continue
        for part in (value, *value.split()):
            # as it is, and as a terminal line shows it (visible.py)
            found.update(form for form in (part, visible(part, multiline=True)) if len(form) >= MIN_LENGTH)
    with _lock:
        if not found <= set(_secrets):
            _secrets = tuple(sorted(found.union(_secrets), key=lambda s: (-len(s), s)))


def forget() -> None:
    """No secrets registered (for tests that build engines one after another)."""
    global _secrets
    with _lock:
        _secrets = ()


def active() -> bool:
    """Whether any secret is registered in this process."""
    return bool(_secrets)


def redact(value: T) -> T:
    """``value`` with every secret replaced: a string, or lists, tuples and dicts (keys too)
    of them; anything else as it is. The same object when there was nothing to replace."""
    secrets = _secrets
    return _redact(value, secrets) if secrets else value


def _redact(value: Any, secrets: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, dict):
        changed: dict[Any, Any] | None = None  # made at the first change: most values hold no secret
        for i, (key, item) in enumerate(value.items()):
            new_key, new_item = _redact(key, secrets), _redact(item, secrets)
            if changed is None and (new_key is not key or new_item is not item):
                changed = dict(list(value.items())[:i])
            if changed is not None:
                changed[new_key] = new_item
        return value if changed is None else changed
    if isinstance(value, (list, tuple)):
        items = [_redact(item, secrets) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return items if isinstance(value, list) else tuple(items)
    return value


# A URL's user and password (up to its last "@" before the host), and libpq's password=VALUE
# (VALUE quoted with '...' when it holds a space).
_USERINFO = re.compile(r"(?<=://)[^\s/]*@")
_CONNINFO_PASSWORD = re.compile(r"(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)")


def credentials(text: str, words: Iterable[str]) -> str:
    """``text`` (a database driver's message) with the user and password of every URL in it,
    every ``password=VALUE``, and each of ``words`` (a user, a password) where it stands whole
    (no letter, digit or ``_`` on either side) replaced by ``***``; then ``redact``'s registered
    secrets, which a password of MIN_LENGTH or more characters is, everywhere."""
    text = _USERINFO.sub(REDACTED + "@", text)
    text = _CONNINFO_PASSWORD.sub(lambda m: m[1] + REDACTED, text)
    for word in sorted({w for w in words if w}, key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(word)}(?!\w)", REDACTED, text)
    return redact(text)


def redact_report(report: Any) -> None:
    """A pytest test report without secrets: the failure text (whose first line is the short
    summary's and JUnit XML's message), a skip's reason, captured output, user properties."""
    secrets = _secrets
    if not secrets:
        return
    longrepr = report.longrepr
    if isinstance(longrepr, (str, tuple)):
        report.longrepr = _redact(longrepr, secrets)
    elif longrepr is not None:
        text = str(longrepr)
        if _redact(text, secrets) is not text:
            report.longrepr = _rewritten(longrepr, _redact(text, secrets))
    report.sections = _redact(report.sections, secrets)
    report.user_properties = _redact(report.user_properties, secrets)


def _rewritten(longrepr: Any, text: str) -> Any:
    """A failure's representation as ``text``, keeping its located one-line message."""
    from _pytest._code.code import ReprExceptionInfo, ReprFileLocation, ReprTracebackNative

    crash = getattr(longrepr, "reprcrash", None)
    if crash is None:
        return text
    where = ReprFileLocation(crash.path, crash.lineno, redact(crash.message))
    return ReprExceptionInfo(ReprTracebackNative([text.rstrip("\n") + "\n"]), where)
