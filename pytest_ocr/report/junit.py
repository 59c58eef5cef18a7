"""JUnit XML (``--junitxml``): an item's metrics and a gate's value as properties of
their test cases, read from the same result the other outputs show."""

from __future__ import annotations

from ..run.gates import GateResult
from ..run.result import CaseResult


def item_properties(result: CaseResult) -> list[tuple[str, object]]:
    properties: list[tuple[str, object]] = [(f"ocr.{name}", value) for name, value in result.metrics.items()]
    if result.repeats:  # how alike its repeated outputs were (scoring/repeats.py)
        properties += [(f"ocr.repeats.{key}", result.repeats[key]) for key in ("n", "unstable", "identical")]
    return properties


def gate_properties(result: GateResult) -> list[tuple[str, object]]:
    return [("ocr.gate.value", result.value), ("ocr.gate.cases", result.cases)]
