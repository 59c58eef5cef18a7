"""A Python function as an engine: ``function: "module:attr"`` is called as
``fn(image_path: str, **kwargs)`` for each image.

The module is imported normally, so it must be importable (e.g. through pytest's
``pythonpath`` ini option). Only when the module itself is not found is the import
retried once with the declaring file's directory (``base_dir``) first on ``sys.path``, so
that ``function: my_ocr:read`` works for a ``my_ocr.py`` next to the config. That entry
is removed again right after the import: such a module should import its own helpers at
its top level, not lazily inside the function.

The attribute path may be dotted (``pkg.mod:Class.method``); it is plain attribute
access, so a method must be a static or class method, or belong to a module-level
instance. The function may return a ``str``, a ``Recognition`` or a dict with ``text``
and optionally ``lines``, ``confidence`` and ``raw``.
"""

from __future__ import annotations

import importlib
import sys
import traceback
from pathlib import Path
from typing import Any

from . import _options
from .base import EngineError, EngineSpec, Recognition

SCHEMA = {"function": (str, _options.REQUIRED), "kwargs": (dict[str, Any], {})}

RESULT_TYPES = {"text": str, "lines": list[str] | None, "confidence": float | None, "raw": Any}
EXPECTED = "a str, a Recognition or a dict with key 'text' (and optionally 'lines', 'confidence', 'raw')"
TRACEBACK_FRAMES = 5


def _import(module_name: str, base_dir: Path) -> Any:
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


class PythonEngine:
    def __init__(self, spec: EngineSpec) -> None:
        options = _options.check_options(spec, SCHEMA)
        self.target = options["function"]
        self.kwargs = options["kwargs"]
        module_name, colon, attr_path = self.target.partition(":")
        if not colon or not module_name or not attr_path:
            raise _options.error(spec, f"option 'function' must look like 'module:function', got {self.target!r}")
        try:
            module = _import(module_name, spec.base_dir)
        except Exception as exc:
            raise _options.error(spec, f"cannot import module {module_name!r}: {type(exc).__name__}: {exc}") from exc
        self.function = module
        for attr in attr_path.split("."):
            try:
                self.function = getattr(self.function, attr)
            except AttributeError as exc:
                raise _options.error(spec, f"cannot find {attr_path!r} in module {module_name!r}: {exc}") from exc
        if not callable(self.function):
            raise _options.error(spec, f"{self.target!r} is a {type(self.function).__name__}, not a function")
        top_level = sys.modules.get(module_name.partition(".")[0])
        self.version = getattr(module, "__version__", None) or getattr(top_level, "__version__", None)

    def recognize(self, image: Path) -> Recognition:
        try:
            result = self.function(str(image), **self.kwargs)
        except Exception as exc:
            frames = "".join(traceback.format_tb(exc.__traceback__)[1:][-TRACEBACK_FRAMES:])
            raise EngineError(
                f"{self.target} raised {type(exc).__name__}: {exc}\n"
                f"while reading {image}; traceback (most recent call last):\n{frames.rstrip()}"
            ) from exc
        if isinstance(result, Recognition):
            return result
        if isinstance(result, str):
            return Recognition(text=result)
        if (
            isinstance(result, dict)
            and result.keys() <= RESULT_TYPES.keys()
            and all(_options.matches(result.get(key), kind) for key, kind in RESULT_TYPES.items())
        ):
            confidence = result.get("confidence")
            confidence = None if confidence is None else float(confidence)
            return Recognition(result["text"], result.get("lines"), confidence, result.get("raw"))
        shown = repr(result)
        shown = shown if len(shown) <= 200 else shown[:200] + "..."
        raise EngineError(f"{self.target} returned {type(result).__name__} {shown} for {image}; expected {EXPECTED}")

    def fingerprint(self) -> dict:
        return {"type": "python", "version": self.version, "config": {"function": self.target, "kwargs": self.kwargs}}
