"""Option checking shared by the built-in engines.

Engine options come from user-written config files, so every mistake must end in an
EngineError that says which engine, where it was declared, which key and what is valid.
"""

from __future__ import annotations

import os
import types
import typing
from pathlib import Path
from typing import Any

from .base import EngineError, EngineSpec

REQUIRED = object()

# Options whose values engines register as secrets (redaction.py): not echoed in errors either.
SECRET_OPTIONS = frozenset({"headers", "env"})

# Values a YAML/TOML scalar can take; matches() does not count a bool as a number.
Scalar = str | int | float | bool


def describe(spec: EngineSpec) -> str:
    where = f" (declared at {spec.source})" if spec.source else ""
    return f"{spec.type} engine {spec.name!r}{where}"


def error(spec: EngineSpec, message: str) -> EngineError:
    return EngineError(f"{describe(spec)}: {message}")


def type_name(expected: Any) -> str:
    if expected is float:
        return "number"
    return expected.__name__ if isinstance(expected, type) else str(expected).replace("typing.", "")


def matches(value: Any, expected: Any) -> bool:
    """isinstance() for the option types: classes, unions, list[X] and dict[K, V]."""
    if expected is Any:
        return True
    # bool is an int subclass, but `psm: true` is a mistake, not 1.
    if expected in (int, float):
        return isinstance(value, (int, float) if expected is float else int) and not isinstance(value, bool)
    origin = typing.get_origin(expected)
    if origin in (types.UnionType, typing.Union):
        return any(matches(value, arg) for arg in typing.get_args(expected))
    if origin is list:
        (item,) = typing.get_args(expected)
        return isinstance(value, list) and all(matches(v, item) for v in value)
    if origin is dict:
        key, item = typing.get_args(expected)
        return isinstance(value, dict) and all(matches(k, key) and matches(v, item) for k, v in value.items())
    return isinstance(value, expected)


def check_options(spec: EngineSpec, schema: dict[str, tuple[Any, Any]]) -> dict[str, Any]:
    """``spec.options`` checked against ``schema`` (key -> (type, default)), defaults filled in.

    A default of REQUIRED makes the key mandatory; an explicit ``None`` means "use the default".
    """
    options = spec.options
    if not isinstance(options, dict):
        raise error(spec, f"options must be a mapping, got {type(options).__name__}")
    valid = ", ".join(f"{key} ({type_name(kind)})" for key, (kind, _) in schema.items())
    unknown = sorted(set(options) - set(schema))
    if unknown:
        raise error(spec, f"unknown option {unknown[0]!r}; valid options: {valid}")
    checked = {}
    for key, (kind, default) in schema.items():
        value = options.get(key)
        if value is None:
            if default is REQUIRED:
                raise error(spec, f"option {key!r} ({type_name(kind)}) is required; valid options: {valid}")
            checked[key] = default
        elif not matches(value, kind):
            shown = " (values not shown: they may be secrets)" if key in SECRET_OPTIONS else f" {value!r}"
            raise error(spec, f"option {key!r} must be {type_name(kind)}, got {type(value).__name__}{shown}")
        else:
            checked[key] = value
    return checked


def check_timeout(spec: EngineSpec, timeout: float) -> float:
    if timeout <= 0:
        raise error(spec, f"option 'timeout' must be a positive number of seconds, got {timeout!r}")
    return float(timeout)


def resolve(spec: EngineSpec, path: str) -> Path:
    """A path option: absolute as given, relative to the declaring file's directory otherwise."""
    return Path(spec.base_dir, Path(path).expanduser())


def threads(spec: EngineSpec, given: int | None) -> int | None:
    """How many threads an engine's inference may use: its ``threads`` option when given;
    under pytest-xdist, the cores this process may run on shared out among the workers
    (at least one each), so that workers do not fight over cores; else None (the
    library's own default, usually every core). Outputs do not depend on it, so it is
    not part of an engine's fingerprint."""
    if given is not None:
        if given < 1:
            raise error(spec, f"option 'threads' must be a positive number of threads, got {given!r}")
        return given
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    if not workers.isdigit() or int(workers) < 2:
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, cores // int(workers))
