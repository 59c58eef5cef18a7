"""pytest's rootdir and ini file, checked against pytest-ocr's options given as two tokens.

pytest decides its rootdir and ini file from a first parse of the command line (and
PYTEST_ADDOPTS) that does not know plugins' options yet: in ``--ocr-baseline
../artifacts/main.json`` the value is a free argument, a test path to that parse, and an
existing one moves the rootdir to the common ancestor, where no ini file may be found.
The project's ``ocr_config``, ``addopts`` and cache would then be silently lost. Once
pytest-ocr's options are known (``pytest_load_initial_conftests``), the command line is
parsed again and pytest's own ``determine_setup`` is run on the free arguments without
those values: a run whose configuration is not provably the one it would have had stops
with a usage error naming the ``--opt=PATH`` spelling, which pytest never takes for a path.
"""

from __future__ import annotations

import inspect
import os
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

PREFIX = "--ocr-"


def check_setup(config: pytest.Config, parser: pytest.Parser) -> None:
    """Raises pytest.UsageError when a pytest-ocr option's value, given as a separate
    token, was an existing path that pytest took for a test path, unless pytest's rootdir
    and ini file are provably those it chooses without it."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return  # a pytest-xdist worker: its controller checked the same command line
    given = [*shlex.split(os.environ.get("PYTEST_ADDOPTS", "")), *map(str, config.invocation_params.args)]
    if not any(token.startswith(PREFIX) and "=" not in token for token in given):
        return
    try:
        parsed, unknown = parser.parse_known_and_unknown_args(given)
    except pytest.UsageError:
        return  # pytest reports a command line it cannot parse itself
    if getattr(parsed, "help", False) or getattr(parsed, "version", False):
        return
    here = config.invocation_params.dir
    taken = [(option, value) for option, value in separate_values(given, parsed) if _exists(here / value)]
    if not taken:
        return
    chosen = (config.rootpath, config.inipath)
    free = [*parsed.file_or_dir, *(arg for arg in unknown if not arg.startswith("-"))]
    without = determine_setup(parsed, free, here)
    if without is not None and without == chosen:
        return
    options = ", ".join(f"{option} {value}" for option, value in taken)
    spelling = " ".join(shlex.quote(f"{option}={value}") for option, value in taken)
    what = "this path" if len(taken) == 1 else "these paths"
    setup = f"rootdir {chosen[0]} with {_ini(chosen[1])}"
    if without is None:
        found = "and which it would choose without them cannot be checked with this pytest"
    else:
        found = f"instead of rootdir {without[0]} with {_ini(without[1])}"
    raise pytest.UsageError(
        f"{options}: pytest took {what} for a test path before pytest-ocr's options were known and chose "
        f"{setup} {found}: write {spelling}"
    )


def separate_values(given: Sequence[str], parsed: Any) -> list[tuple[str, str]]:
    """(option, value) of every pytest-ocr option whose value is the next token. An
    option takes a value when its parsed value is not a flag's bool; ``--`` ends options."""
    found = []
    tokens = iter(given)
    for token in tokens:
        if token == "--":
            break
        if not token.startswith(PREFIX) or "=" in token:
            continue
        dest = token[2:].replace("-", "_")
        if hasattr(parsed, dest) and not isinstance(getattr(parsed, dest), bool):
            value = next(tokens, None)
            if value is not None:
                found.append((token, value))
    return found


def determine_setup(parsed: Any, args: list[str], here: Path) -> tuple[Path, Path | None] | None:
    """(rootdir, ini file) as pytest's own determine_setup finds them for these free
    arguments; None when this pytest's cannot be called as pytest 8.0 to 9.x call it."""
    try:
        from _pytest.config.findpaths import determine_setup as pytest_determine_setup

        parameters = inspect.signature(pytest_determine_setup).parameters
    except (ImportError, TypeError, ValueError):
        return None
    known: dict[str, Any] = {
        "inifile": getattr(parsed, "inifilename", None),
        "override_ini": getattr(parsed, "override_ini", None),
        "args": args,
        "rootdir_cmd_arg": getattr(parsed, "rootdir", None) or None,
        "invocation_dir": here,
    }
    needed = [
        name
        for name, p in parameters.items()
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    if any(name not in known for name in needed):
        return None
    try:
        found = pytest_determine_setup(**{name: value for name, value in known.items() if name in parameters})
        return Path(found[0]), (Path(found[1]) if found[1] is not None else None)
    except Exception:  # noqa: BLE001 - whatever it raises, the setup cannot be proven the same
        return None


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):  # a name too long, a NUL byte: no path pytest could take
        return False


def _ini(path: Path | None) -> str:
    return f"ini file {path}" if path is not None else "no ini file"
