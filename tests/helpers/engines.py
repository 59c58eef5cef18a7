"""Engine specs as a case file would give them, with the engines under tests/engine_helpers."""

from __future__ import annotations

from pathlib import Path

from pytest_ocr.engines import EngineSpec

HELPERS = Path(__file__).parent.parent / "engine_helpers"


def spec(type_: str, base_dir: Path = HELPERS, **options) -> EngineSpec:
    return EngineSpec(name=f"my-{type_}", type=type_, options=options, base_dir=base_dir, source="ocr.yaml:7")
