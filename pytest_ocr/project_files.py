"""A project's own files, which no output of pytest-ocr may overwrite: its configuration
(pytest's ini file and the other project files beside it, the ``ocr_config`` file), its case
files (by the ``ocr_files`` patterns) and its history store (SQLite's file and the files
SQLite keeps beside it: ``-wal``, ``-shm``, ``-journal``).

The plugin gathers them from pytest's configuration (``kept``); the ``pytest-ocr`` commands,
which run without pytest, from the ini file in the project directory (``of_project``), read
here as pytest reads it. Both check their outputs against them with ``files.check_apart``:
one rule, whoever writes.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .run.identity import PROJECT_FILES

if TYPE_CHECKING:
    from .history.url import HistoryUrl

DEFAULT_PATTERNS = ("*.ocr.yaml", "*.ocr.yml", "*.ocr.json")  # the ocr_files ini key's default
INI_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")  # in the order pytest takes them
SQLITE_FILES = ("-wal", "-shm", "-journal")  # what SQLite keeps beside a database file


# Files pytest reads as its configuration wherever they are, asked for or not: an output so
# named would configure the next run (a report written as conftest.py would be imported).
CONFIGURATION = (*INI_FILES, "conftest.py")


@dataclass(frozen=True)
class Kept:
    """What no output overwrites: files (what, path), and the names of case files."""

    files: tuple[tuple[str, Path], ...]
    case_patterns: tuple[str, ...]

    @property
    def named(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """What no output may be named as, whether it exists or not (files.check_apart)."""
        return (("case files", self.case_patterns), ("pytest's configuration files", CONFIGURATION))


def kept(
    project: Path,
    ini: Path | None,
    ocr_configs: Iterable[Path],
    case_patterns: Sequence[str],
    stores: Iterable[Path],
) -> Kept:
    """The project's own files: ``ini`` (pytest's ini file) and the other project files in
    ``project``, the ``ocr_config`` files, the case files by ``case_patterns``, and the files
    of the SQLite ``stores`` the run uses, with the project's own store always."""
    from .history.url import DEFAULT_PATH

    files: list[tuple[str, Path]] = [("pytest's ini file", ini)] if ini is not None else []
    for name in PROJECT_FILES:
        path = project / name
        if path != ini and path.is_file():
            files.append((f"the project's {name}", path))
    files += [("the ocr_config file", path) for path in ocr_configs]
    for store in dict.fromkeys([project / DEFAULT_PATH, *stores]):
        files.append(("the history store", store))
        files += [(f"the history store's {suffix} file", Path(f"{store}{suffix}")) for suffix in SQLITE_FILES]
    return Kept(tuple(files), tuple(case_patterns))


def of_project(
    project: Path, environ: Mapping[str, str], config: Path | None = None, stores: Iterable[HistoryUrl | None] = ()
) -> Kept:
    """``kept`` for a command run in ``project``: its ini file's ``ocr_config``, ``ocr_files``
    and ``ocr_history`` keys as pytest would read them, ``config`` (the command's --config),
    the store PYTEST_OCR_HISTORY_URL or the ini file names, and ``stores`` (the command's)."""
    from .history.url import HistoryUrlError, asked, parse

    ini, keys = read_ini(project)
    configs = [c for c in (config, _named(ini, keys.get("ocr_config"))) if c is not None]
    patterns = keys["ocr_files"].split() if keys.get("ocr_files") else DEFAULT_PATTERNS
    urls = list(stores)
    named = asked(None, environ, keys.get("ocr_history"))
    if named is not None:
        try:
            urls.append(parse(named, project))
        except HistoryUrlError:  # not a store this command can use: nothing of it to keep
            pass
    files = [path for url in urls if url is not None and (path := sqlite_file(url)) is not None]
    return kept(project, ini, configs, patterns, files)


def sqlite_file(url: HistoryUrl) -> Path | None:
    """The file of a store on SQLite (None: on a server)."""
    return Path(url.shown.removeprefix("sqlite:///")) if url.backend == "sqlite" else None


def _named(ini: Path | None, value: str | None) -> Path | None:
    """A path an ini key gives, relative to the ini file (as the plugin takes ocr_config)."""
    if ini is None or not value:
        return None
    return (ini.parent / value).resolve()


def read_ini(project: Path) -> tuple[Path | None, dict[str, str]]:
    """pytest's ini file in ``project`` (the first of INI_FILES that pytest would take: a
    pytest.ini always, the others when they have a pytest section) and its keys, each a
    string (a list's items joined by spaces); (None, {}) when there is none. A file that
    cannot be read or parsed has no keys here: pytest itself says what is wrong with it."""
    for name in INI_FILES:
        path = project / name
        if not path.is_file():
            continue
        keys = _keys(path)
        if keys is not None:
            return path, keys
        if name in ("pytest.ini", ".pytest.ini"):
            return path, {}
    return None, {}


def _keys(path: Path) -> dict[str, str] | None:
    """The pytest section of an ini or TOML file, or None when it has none."""
    import iniconfig  # pytest's own reader of ini files

    try:
        if path.suffix != ".toml":
            config = iniconfig.IniConfig(os.fspath(path))
            section = "tool:pytest" if path.name == "setup.cfg" else "pytest"
            return dict(config[section].items()) if section in config else None
        # Python 3.11's reader, which pytest installs as tomli before
        tomllib = importlib.import_module("tomllib" if sys.version_info >= (3, 11) else "tomli")
        tools = tomllib.loads(path.read_text(encoding="utf-8")).get("tool")
    except (OSError, UnicodeDecodeError, ValueError, iniconfig.ParseError):  # TOML's errors are ValueErrors
        return None
    tool = tools.get("pytest") if isinstance(tools, dict) else None
    if not isinstance(tool, dict):
        return None
    options = tool.get("ini_options", tool)  # pytest 9 reads [tool.pytest] too
    return {str(k): _text(v) for k, v in options.items()} if isinstance(options, dict) else None


def _text(value: Any) -> str:
    return " ".join(map(str, value)) if isinstance(value, list) else str(value)
