"""Where the history store is, and how it is named where anyone can read it.

The URL comes from ``--ocr-history [URL]`` (``pytest-ocr merge --history [URL]``), else the
``PYTEST_OCR_HISTORY_URL`` environment variable, else the ``ocr_history`` ini key. With no
URL the store is an SQLite file in the project: ``.pytest-ocr/history.sqlite``.
``sqlite:///path`` puts it anywhere (a relative path is the project's); a team shares one
server with ``postgresql://user:password@host/db`` (psycopg 3, the ``postgres`` extra).

A URL may hold a password: the raw URL stays in the ``HistoryUrl`` and the engine that
connects with it. Everything said or written names it by ``shown``: without user or
password. The password is also registered with redaction.py, so an error text that echoes
it (a driver's message) is redacted wherever it goes, and a driver's message is concealed
(``HistoryUrl.conceal``: its URLs' credentials, and the user and password as words). A URL
whose user and password the driver reads other than as written (an unencoded '@' in the
password: ``user:Secret@Part2@host`` is read with the host ``Part2@host``, which every
message would name) is refused, naming no part of what precedes its last '@'.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .. import redaction
from ..errors import OcrError

ENV = "PYTEST_OCR_HISTORY_URL"
DEFAULT_PATH = Path(".pytest-ocr") / "history.sqlite"  # in the project directory
DEFAULT = "default"  # --ocr-history given without a URL
SCHEMES = ("sqlite", "postgresql")


class HistoryUrlError(OcrError, ValueError):
    """A URL the store cannot be opened with; the message names it as ``shown`` does."""


@dataclass(frozen=True)
class HistoryUrl:
    """A store's address: ``url`` connects (may hold credentials: never print it), ``shown``
    names it in messages, notes and outputs."""

    url: str = ""
    shown: str = ""
    backend: str = "sqlite"  # sqlite | postgresql
    # the user and password: hidden in a driver's error text too ("... failed for user ...")
    hidden: tuple[str, ...] = ()

    def conceal(self, text: str) -> str:
        """``text`` (an error's) without any URL's credentials, the user and password where they
        stand as words, and registered secrets anywhere (redaction.credentials)."""
        return redaction.credentials(text, self.hidden)

    def __repr__(self) -> str:  # a traceback or a debugger shows the object, never the password
        return f"HistoryUrl({self.shown!r})"


@dataclass(frozen=True)
class HistoryTarget:
    """Where a run is recorded, under which suite name, and whether failing to fails the run."""

    url: HistoryUrl
    suite: str
    required: bool = False


MAX_SUITE = 200


def check_suite(name: str) -> str:
    """A suite name as given, stripped; raises HistoryUrlError for one that cannot be stored."""
    stripped = name.strip()
    if not stripped or len(stripped) > MAX_SUITE or not stripped.isprintable():
        raise HistoryUrlError(f"a suite name is 1 to {MAX_SUITE} printable characters, not {stripped[:MAX_SUITE]!r}")
    return stripped


def asked(option: str | None, environ: Mapping[str, str], ini: str | None) -> str | None:
    """The URL asked for, by precedence: the option (DEFAULT when given bare), the
    environment, the ini key; None: no history."""
    for value in (option, environ.get(ENV), ini):
        if value is not None and value.strip():
            return value.strip()
    return None


def parse(given: str | None, project: Path) -> HistoryUrl:
    """``given`` (None or DEFAULT: the project's SQLite file) as a store's address; raises
    HistoryUrlError naming it without credentials."""
    from sqlalchemy.engine import URL, make_url
    from sqlalchemy.exc import ArgumentError

    if given is None or given == DEFAULT or not given.strip():
        path = project / DEFAULT_PATH
        return HistoryUrl(URL.create("sqlite", database=str(path)).render_as_string(), f"sqlite:///{path}", "sqlite")
    try:
        url = make_url(given.strip())
    except (ArgumentError, ValueError):
        # `--ocr-history tests/` takes tests/ for its URL
        hint = "" if "://" in given else "; the option takes the word after it as its URL: give it last, or as =URL"
        if given.partition("://")[2].count("@") > 1:
            hint = f"; {PERCENT_ENCODED}"
        raise HistoryUrlError(
            f"not a database URL: {_without_credentials(given)} (expected sqlite:///PATH or "
            f"postgresql://USER@HOST/DATABASE{hint})"
        ) from None
    password = url.password if isinstance(url.password, str) else None
    secrets = (*([password] if password else []), *_strings(url.query.get("password")))
    redaction.register(*secrets)
    backend, _, driver = url.drivername.partition("+")
    if backend not in SCHEMES:
        raise HistoryUrlError(
            f"{_shown(url)}: a history store is sqlite:///PATH or postgresql://USER@HOST/DATABASE, not {backend}://"
        )
    if backend == "postgresql" and _misread(given, url):
        raise HistoryUrlError(f"{_without_credentials(given)}: {PERCENT_ENCODED}")
    if backend == "sqlite":
        if driver:
            raise HistoryUrlError(f"{_shown(url)}: sqlite:///PATH, without a driver (+{driver})")
        if not url.database or url.database == ":memory:":
            raise HistoryUrlError(f"{_shown(url)}: sqlite:///PATH needs a file (a store in memory keeps nothing)")
        path = Path(url.database).expanduser()
        path = path if path.is_absolute() else project / path
        return HistoryUrl(url.set(database=str(path)).render_as_string(hide_password=False), f"sqlite:///{path}")
    if driver not in ("", "psycopg"):
        raise HistoryUrlError(f"{_shown(url)}: postgresql:// connects with psycopg 3, not +{driver}")
    if not url.database:
        raise HistoryUrlError(f"{_shown(url)}: postgresql://USER@HOST/DATABASE needs a database name")
    if importlib.util.find_spec("psycopg") is None:
        raise HistoryUrlError(f"{_shown(url)}: a PostgreSQL store needs psycopg: pip install 'pytest-ocr[postgres]'")
    url = url.set(drivername="postgresql+psycopg")
    hidden = (*([url.username] if url.username else []), *secrets)
    return HistoryUrl(url.render_as_string(hide_password=False), _shown(url), "postgresql", hidden)


PERCENT_ENCODED = (
    "an '@' or '/' in its user, password, database name or a query value must be percent-encoded as %40 "
    "and %2F (postgresql://USER:p%40ss@HOST/DATABASE); nothing before its last '@' is shown"
)


def _misread(given: str, url: object) -> bool:
    """Whether the driver read a user and password other than what stands before the URL's last
    '@' (an '@' in a password left unencoded: the rest of the password was read as the host,
    and every message naming the host would show it)."""
    from urllib.parse import unquote

    from sqlalchemy.engine import URL

    assert isinstance(url, URL)
    rest = given.strip().partition("://")[2]
    written = unquote(rest.rpartition("@")[0]) if "@" in rest else ""
    read = (url.username or "") + ("" if url.password is None else f":{url.password}")
    return written != read


def _strings(value: str | tuple[str, ...] | None) -> tuple[str, ...]:
    return () if value is None else (value,) if isinstance(value, str) else value


def _shown(url: object) -> str:
    """A parsed URL without user, password or query (a password may be given as one)."""
    from sqlalchemy.engine import URL

    assert isinstance(url, URL)
    name = url.drivername.partition("+")[0]
    host = url.host or ""
    port = f":{url.port}" if url.port else ""
    database = url.database or ""
    if name == "sqlite":
        return f"sqlite:///{database}"
    return f"{name}://{host}{port}/{database}"


def _without_credentials(text: str) -> str:
    """A URL the driver could not read as written, shown without whatever precedes its last '@'
    (a user and password, whatever '@' they hold) and without its query."""
    scheme, sep, rest = text.strip().partition("://")
    if not sep:
        return "(a URL with no scheme://)" if "@" in text else repr(text.strip())
    return f"{scheme}://{rest.rpartition('@')[2].partition('?')[0]}"
