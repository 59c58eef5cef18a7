"""Finding a user's Python function from a "module:function" string in a config file.

The module is imported normally, so it must be importable (e.g. through pytest's
``pythonpath`` ini option). Only when the module itself is not found is the import
retried once with the declaring file's directory first on ``sys.path``, so that
``my_ocr:read`` works for a ``my_ocr.py`` next to the config. That entry is removed
again right after the import: such a module should import its own helpers at its top
level, not lazily inside the function.

The attribute path may be dotted (``pkg.mod:Class.method``); it is plain attribute
access, so a method must be a static or class method, or belong to a module-level instance.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from .errors import OcrError


class FunctionNotFound(OcrError):
    """The message says what could not be found and why."""


def _import(module_name: str, base_dir: Path) -> ModuleType:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        # Only retry when the named module is missing, not something it imports.
        if not (module_name == exc.name or module_name.startswith(f"{exc.name}.")):
            raise
    path = str(Path(base_dir).absolute())
    sys.path.insert(0, path)
    try:
        return importlib.import_module(module_name)
    finally:
        sys.path.remove(path)


def load_function(target: str, base_dir: Path) -> tuple[Callable, ModuleType]:
    """The callable named by ``target`` and the module it was found in."""
    module_name, colon, attr_path = target.partition(":")
    if not colon or not module_name or not attr_path:
        raise FunctionNotFound(f"{target!r} must look like 'module:function'")
    try:
        module = _import(module_name, base_dir)
    except Exception as exc:
        raise FunctionNotFound(f"cannot import module {module_name!r}: {type(exc).__name__}: {exc}") from exc
    function = module
    for attr in attr_path.split("."):
        try:
            function = getattr(function, attr)
        except AttributeError as exc:
            raise FunctionNotFound(f"cannot find {attr_path!r} in module {module_name!r}: {exc}") from exc
    if not callable(function):
        raise FunctionNotFound(f"{target!r} is a {type(function).__name__}, not a function")
    return function, module


# How a compiled extension that could not be mapped for want of memory fails to import (dlopen's ENOMEM).
_NO_MEMORY = re.compile(r"failed to map segment|cannot allocate memory|out of memory", re.IGNORECASE)


def load_failure(module: str, error: BaseException) -> str:
    """Why ``module`` could not be imported when no module was missing: an ImportError that is
    not a ModuleNotFoundError (only that one means a package to install), or a MemoryError.
    Never advice to install what is installed: a process out of memory says so (a compiled
    extension the loader could not map, "failed to map segment from shared object", is that)."""
    detail = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    if isinstance(error, MemoryError) or _NO_MEMORY.search(str(error)):
        return f"{module} could not be loaded: this process is out of memory ({detail})"
    return f"{module} is installed but could not be imported ({detail})"
