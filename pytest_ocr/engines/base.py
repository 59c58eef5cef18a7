"""What an OCR engine is to pytest-ocr: one image in, a Recognition out."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable


class EngineError(Exception):
    """An engine could not produce output for an image.

    The message is shown to the user as is, so it says what failed and what to do
    (e.g. which package to install). The item becomes an error, not a failure.
    """


@dataclass
class Recognition:
    """What an engine read from one image.

    ``text`` is the whole recognized text; ``lines`` the per-line text when the engine
    knows it; ``confidence`` a mean confidence in [0, 1] when the engine reports one;
    ``raw`` a small JSON-safe value with engine-specific output worth keeping;
    ``fields`` key fields when the engine returns them itself (an HTTP worker's JSON,
    a vision LLM asked for JSON); ``warnings`` things worth telling the user about the
    output (e.g. a repetition loop in generated text), shown in reports.
    """

    text: str
    lines: list[str] | None = None
    confidence: float | None = None
    raw: Any = None
    fields: dict | None = None
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class EngineSpec:
    """A configured engine: a user-facing name, its type and its options.

    ``base_dir`` is the directory of the file that declared it; relative paths in
    the options are resolved against it.
    """

    name: str
    type: str
    options: dict = field(default_factory=dict)
    base_dir: Path = Path(".")
    # Where the engine was declared ("file:line"), for error messages only.
    source: str = field(default="", compare=False)

    def key(self) -> str:
        """Identity of this configuration within one process (instances are shared)."""
        payload = json.dumps([self.type, self.options, str(self.base_dir)], sort_keys=True, default=str)
        return hashlib.sha256(payload.encode()).hexdigest()


@runtime_checkable
class Engine(Protocol):
    """The interface every engine implements.

    Engines are built once per process per configuration by their factory
    ``factory(spec: EngineSpec) -> Engine`` and then called for many images.
    """

    def recognize(self, image: Path) -> Recognition:
        """Read one image. Raise EngineError with a clear message on failure."""
        ...

    def fingerprint(self) -> dict:
        """Everything that determines the output: ``{"type", "version", "config"}``.

        Never include secrets. ``config`` holds the options that affect recognition.
        """
        ...


def fingerprint_id(fingerprint: dict) -> str:
    """A short stable hash of a fingerprint, for reports and cache keys."""
    payload = json.dumps(fingerprint, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]
