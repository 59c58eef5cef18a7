"""A Python function as an engine: ``function: "module:attr"`` is called as
``fn(image_path: str, **kwargs)`` for each image (found as ``pytest_ocr.imports``
describes). The function may return a ``str``, a ``Recognition`` or a dict with ``text``
and optionally ``lines``, ``confidence``, ``raw`` and ``fields``.
"""

from __future__ import annotations

import inspect
import sys
import traceback
from pathlib import Path
from typing import Any

from ..imports import FunctionNotFound, load_function
from . import _options
from .base import EngineError, EngineSpec, Recognition
from .cache import file_sha256

SCHEMA = {"function": (str, _options.REQUIRED), "kwargs": (dict[str, Any], {})}

RESULT_TYPES = {"text": str, "lines": list[str] | None, "confidence": float | None, "raw": Any, "fields": dict | None}
EXPECTED = "a str, a Recognition or a dict with key 'text' (and optionally 'lines', 'confidence', 'raw', 'fields')"
TRACEBACK_FRAMES = 5


def source_digest(function: Any, module: Any) -> str | None:
    """A short hash of the file that defines ``function``, or None when there is none.

    Editing the function changes its output but not its module's ``__version__``, so
    without this a cache keyed on the fingerprint would keep serving the old output. It
    covers that one file, not what the function imports or loads.
    """
    try:
        path = inspect.getsourcefile(inspect.unwrap(function))
    except TypeError:  # a partial, an instance, a built-in: the module it was found in
        path = None
    path = path or getattr(module, "__file__", None)
    try:
        return file_sha256(path)[:16] if path else None
    except OSError:
        return None


class PythonEngine:
    def __init__(self, spec: EngineSpec) -> None:
        options = _options.check_options(spec, SCHEMA)
        self.target = options["function"]
        self.kwargs = options["kwargs"]
        try:
            self.function, module = load_function(self.target, spec.base_dir)
        except FunctionNotFound as exc:
            raise _options.error(spec, f"option 'function': {exc}") from exc
        top_level = sys.modules.get(module.__name__.partition(".")[0])
        self.version = getattr(module, "__version__", None) or getattr(top_level, "__version__", None)
        self.source = source_digest(self.function, module)

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
            return Recognition(result["text"], result.get("lines"), confidence, result.get("raw"), result.get("fields"))
        shown = repr(result)
        shown = shown if len(shown) <= 200 else shown[:200] + "..."
        raise EngineError(f"{self.target} returned {type(result).__name__} {shown} for {image}; expected {EXPECTED}")

    def fingerprint(self) -> dict:
        config = {"function": self.target, "kwargs": self.kwargs, "source": self.source}
        return {"type": "python", "version": self.version, "config": config}
