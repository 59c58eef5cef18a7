"""Engine types by name: built-ins, the ``pytest_ocr.engines`` entry points, and
types registered from conftest files through the ``pytest_ocr_register_engines`` hook.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from .base import Engine, EngineBase, EngineError, EngineSpec

ENTRY_POINT_GROUP = "pytest_ocr.engines"

# Imported only when used: rapidocr pulls in onnxruntime and OpenCV.
BUILTIN_TYPES = {
    "tesseract": "pytest_ocr.engines.tesseract:TesseractEngine",
    "rapidocr": "pytest_ocr.engines.rapidocr:RapidOCREngine",
    "command": "pytest_ocr.engines.command:CommandEngine",
    "predictions": "pytest_ocr.engines.predictions:PredictionsEngine",
    "page-outputs": "pytest_ocr.engines.page_outputs:PageOutputsEngine",
    "omnidocbench-outputs": "pytest_ocr.engines.page_outputs:OmniDocBenchOutputsEngine",
    "python": "pytest_ocr.engines.python:PythonEngine",
    "http": "pytest_ocr.engines.http:HttpEngine",
    "openai": "pytest_ocr.engines.openai:OpenAIEngine",
}

Factory = Callable[[EngineSpec], Engine]


class _Declared(EngineBase):
    """An engine whose factory declared only ``recognize`` and ``fingerprint`` (and maybe some
    of the rest): what it declares is read once, here, and the defaults fill in the rest.
    Everything else is the engine's own (its methods are called directly, so a traceback
    from one has no frame of this class)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        for name in ("stored", "concurrency", "cacheable"):
            setattr(self, name, getattr(engine, name, getattr(EngineBase, name)))

    def __getattr__(self, name: str) -> Any:  # recognize, fingerprint, an engine's own (``outputs``)
        if name == "engine":  # not set yet (a copy being made): no endless lookup
            raise AttributeError(name)
        return getattr(self.engine, name)

    def close(self) -> None:
        close = getattr(self.engine, "close", None)
        if close is not None:
            close()


def declared(engine: Any) -> Engine:
    """``engine`` with every attribute of ``Engine``: itself when it derives from EngineBase."""
    if not isinstance(engine, EngineBase):
        engine = _Declared(engine)
    found: Engine = engine
    return found


def _load(target: str) -> Factory:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


class EngineRegistry:
    """Engine types (name -> factory) and the engine instances built from them.

    One instance per configuration per process: loading a model is paid once.
    """

    def __init__(self) -> None:
        self._factories: dict[str, Factory | str] = dict(BUILTIN_TYPES)
        self._instances: dict[str, Engine] = {}
        # A configuration that failed to build fails the same way for every case;
        # remember the error rather than paying for the attempt again.
        self._failures: dict[str, EngineError] = {}
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            self._factories[ep.name] = ep.value

    def register(self, type_name: str, factory: Factory) -> None:
        self._factories[type_name] = factory

    def types(self) -> list[str]:
        return sorted(self._factories)

    def __contains__(self, type_name: str) -> bool:
        return type_name in self._factories

    def create(self, spec: EngineSpec) -> Engine:
        key = spec.key()
        if key in self._failures:
            raise self._failures[key]
        if key not in self._instances:
            factory = self._factories.get(spec.type)
            if factory is None:
                raise EngineError(
                    f"unknown engine type {spec.type!r} for engine {spec.name!r}"
                    f"{' (declared at ' + spec.source + ')' if spec.source else ''}; "
                    f"known types: {', '.join(self.types())}"
                )
            if isinstance(factory, str):
                try:
                    factory = _load(factory)
                except ImportError as exc:
                    raise EngineError(f"engine type {spec.type!r} could not be imported: {exc}") from exc
                self._factories[spec.type] = factory
            try:
                self._instances[key] = declared(factory(spec))
            except EngineError as exc:
                self._failures[key] = exc
                raise
        return self._instances[key]

    def close(self) -> None:
        for engine in self._instances.values():
            engine.close()
        self._instances.clear()
