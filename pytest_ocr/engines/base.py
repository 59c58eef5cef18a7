"""What an OCR engine is to pytest-ocr: one image in, a Recognition out."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..errors import OcrError


class EngineError(OcrError):
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
    repeat: int | None = None  # recognitions per item for its cases that do not say (`repeat:`)

    def key(self) -> str:
        """Identity of this configuration within one process (instances are shared).
        Computed once: every item of the engine asks for it."""
        found = self.__dict__.get("_key")
        if found is None:
            payload = json.dumps([self.type, self.options, str(self.base_dir)], sort_keys=True, default=str)
            found = hashlib.sha256(payload.encode()).hexdigest()
            object.__setattr__(self, "_key", found)
        return found


@runtime_checkable
class Engine(Protocol):
    """The interface every engine implements.

    Engines are built once per process per configuration by their factory
    ``factory(spec: EngineSpec) -> Engine`` and then called for many images. What a
    factory returns needs only ``recognize`` and ``fingerprint``: the registry gives an
    engine that declares none of the rest ``EngineBase``'s defaults.
    """

    stored: bool  # outputs made elsewhere, read back a page at a time (``outputs(document, page)``)
    concurrency: int  # recognitions it takes at once, from as many threads
    cacheable: bool  # False: its outputs are never cached (they are not a function of the image)

    def recognize(self, image: Path) -> Recognition:
        """Read one image. Raise EngineError with a clear message on failure."""
        ...

    def fingerprint(self) -> dict:
        """Everything that determines the output: ``{"type", "version", "config"}``.

        Never include secrets. ``config`` holds the options that affect recognition.
        """
        ...

    def close(self) -> None:
        """Release what the engine holds (connections, a worker process); at the end of the run."""
        ...


class EngineBase:
    """The defaults of what the plugin asks an engine besides ``recognize`` and ``fingerprint``."""

    stored = False
    concurrency = 1
    cacheable = True

    def close(self) -> None:
        """Nothing to release."""


def fingerprint_id(fingerprint: Mapping[str, Any]) -> str:
    """A short stable hash of a fingerprint, for reports and cache keys."""
    payload = json.dumps(fingerprint, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


SHOWN_VALUE_CHARS = 80


def _leaves(value: object, prefix: str = "") -> dict[str, object]:
    """Key path -> value; nested mappings are walked, anything else (lists too) is a leaf.
    An empty mapping is a leaf, so ``kwargs: {}`` differs from no ``kwargs``."""
    if isinstance(value, dict) and value:
        found: dict[str, object] = {}
        for key, item in value.items():
            found.update(_leaves(item, f"{prefix}.{key}" if prefix else str(key)))
        return found
    return {prefix: value}


def _show(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= SHOWN_VALUE_CHARS else text[: SHOWN_VALUE_CHARS - 3] + "..."


def fingerprint_changes(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> list[str]:
    """What changed between two engine fingerprints, one short line per key path:
    ``version: tesseract 5.3.0 -> tesseract 5.4.1``, ``config.lang: eng -> deu``,
    ``config.psm: added (6)``, ``config.oem: removed (was 1)``; [] when equal.
    ``fingerprint_id`` is ignored: it is a hash of the rest."""
    if old is None and new is None:
        return []
    if old is None or new is None:
        return ["no fingerprint before" if old is None else "no fingerprint now"]
    old_leaves = _leaves({k: v for k, v in old.items() if k != "fingerprint_id"})
    new_leaves = _leaves({k: v for k, v in new.items() if k != "fingerprint_id"})
    lines = []
    for path in [*old_leaves, *(p for p in new_leaves if p not in old_leaves)]:
        if path not in new_leaves:
            lines.append(f"{path}: removed (was {_show(old_leaves[path])})")
        elif path not in old_leaves:
            lines.append(f"{path}: added ({_show(new_leaves[path])})")
        elif old_leaves[path] != new_leaves[path]:
            lines.append(f"{path}: {_show(old_leaves[path])} -> {_show(new_leaves[path])}")
    return lines
