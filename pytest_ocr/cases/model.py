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
    cer_denominator: str = "ref"
    metrics: tuple[str, ...] = ()  # computed besides the defaults and the thresholded ones
    group: str | None = None

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
    cer_denominator: str = "ref"
    metrics: tuple[str, ...] = ()
    group: str | None = None

    def merged(self, block: dict) -> Defaults:
        """These defaults overridden by a ``defaults:`` block or a case: mappings key by
        key, lists added up, single values replaced."""
        engine = block.get("engine")
        normalize = block.get("normalize", {})
        if isinstance(normalize, str):
            normalize = {"profile": normalize}
        return Defaults(
            engine=tuple([engine] if isinstance(engine, str) else engine) if engine else self.engine,
            thresholds={**(self.thresholds or {}), **block.get("thresholds", {})},
            normalize={**(self.normalize or {}), **normalize},
            tags=tuple(dict.fromkeys(self.tags + tuple(block.get("tags", ())))),
            cer_denominator=block.get("cer_denominator", self.cer_denominator),
            metrics=tuple(dict.fromkeys(self.metrics + tuple(block.get("metrics", ())))),
            group=block.get("group", self.group),
        )


@dataclass(frozen=True)
class Scope:
    """What a case file inherits: defaults and engine declarations by name."""

    defaults: Defaults
    engines: dict  # name -> EngineSpec
