"""What a case is, once its file has been loaded, validated and merged with defaults."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..engines import EngineSpec
from ..metrics import Normalization
from ..thresholds import Threshold


@dataclass(frozen=True)
class Case:
    id: str
    file: Path
    line: int
    image: Path  # absolute
    expected_text: str | None  # inline ground truth
    expected_text_file: Path | None  # read when the item runs, so one bad file fails one item
    engines: tuple[str, ...]
    thresholds: tuple[Threshold, ...]
    normalization: Normalization
    tags: tuple[str, ...]

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Defaults:
    """Settings inherited by cases (project config, then a suite's ``defaults:``)."""

    engine: tuple[str, ...] = ()
    thresholds: dict | None = None  # metric -> expression (None removes)
    normalize: dict | None = None
    tags: tuple[str, ...] = ()

    def merged(self, block: dict) -> Defaults:
        """These defaults overridden by a ``defaults:`` block or a case."""
        engine = block.get("engine")
        return Defaults(
            engine=tuple([engine] if isinstance(engine, str) else engine) if engine else self.engine,
            thresholds={**(self.thresholds or {}), **block.get("thresholds", {})},
            normalize={**(self.normalize or {}), **block.get("normalize", {})},
            tags=tuple(dict.fromkeys(self.tags + tuple(block.get("tags", ())))),
        )


@dataclass(frozen=True)
class Scope:
    """What a case file inherits: defaults and engine declarations by name."""

    defaults: Defaults
    engines: dict  # name -> EngineSpec
