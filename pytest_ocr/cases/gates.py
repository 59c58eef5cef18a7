"""Aggregate gates as declared (an ``aggregate:`` block, ``--ocr-gate``): thresholds on a
run's macro or micro averages, judged after every item ran, per engine
(``cer.micro: "< 0.03"``), optionally within an engine, a tag or a group (``tag:receipts``).

A gate over fewer cases than its ``min_cases`` (default 1) fails: an empty or tiny
selection (``-k`` that matched nothing of a tag, an engine that crashed on every image)
must not pass a gate by having nothing to measure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..codec import Coded, text
from ..errors import OcrError, did_you_mean
from ..metrics import METRICS
from .rules import ThresholdError, Tolerance, ToleranceError, format_number
from .rules import parse as parse_threshold

KINDS = ("macro", "micro")
SCOPE_KINDS = ("engine", "tag", "group")
_SCOPE = re.compile(r"^(engine|tag|group):([A-Za-z0-9_][A-Za-z0-9_.\-]*)$")
_CLI = re.compile(r"^\s*((?:(?:engine|tag|group):\S+\s+)*)([a-z0-9_]+)\.([a-z]+)\s*(.+)$")


class GateError(OcrError, ValueError):
    """A gate that cannot be parsed; ``keypath`` locates it in its block."""

    def __init__(self, message: str, keypath: tuple = ()):
        super().__init__(message)
        self.keypath = keypath


@dataclass(frozen=True)
class Gate(Coded):
    metric: str
    kind: str  # macro | micro
    op: str
    bound: float
    scope: tuple[tuple[str, str], ...] = ()  # (("tag", "receipts"),), in the order written
    min_cases: int = 1
    source: str = ""  # where it was declared: "file:line" or "--ocr-gate"
    file: str | None = None  # a suite's gates cover that file's items only
    # Against the baseline (``regression: {cer.macro: "0.002@95%"}``, ``--ocr-gate
    # "cer.macro:+0.002@95%"``): how much worse than the baseline the aggregate may get over
    # the items both runs measured; op and bound are then unused.
    tolerance: Tolerance | None = field(default=None, metadata=text(Tolerance.parse))  # as written: "0.002@95%"

    @property
    def expression(self) -> str:
        if self.tolerance is not None:
            return f"{self.metric}.{self.kind}:+{self.tolerance}"
        return f"{self.metric}.{self.kind} {self.op} {format_number(self.bound)}"

    def subject(self, engine: str) -> str:
        """What is measured: ``tesseract: tag:receipts cer.micro``."""
        scope = " ".join(f"{k}:{v}" for k, v in self.scope if k != "engine")
        return f"{engine}: {scope + ' ' if scope else ''}{self.metric}.{self.kind}"

    @property
    def identity(self) -> tuple[Any, ...]:
        """What makes two declarations one gate: each process that ran a file's items reports
        its gates, and a merged run gets them from every shard."""
        return (self.file, self.source, self.expression, self.scope)

    def label(self, engine: str) -> str:
        """The gate's name as a test: ``tesseract: tag:receipts cer.micro < 0.1``, or
        ``tesseract: cer.macro:+0.002@95% against the baseline``."""
        if self.tolerance is not None:
            return f"{self.subject(engine)}:+{self.tolerance} against the baseline"
        return f"{self.subject(engine)} {self.op} {format_number(self.bound)}"


def _gate(name: str, expression: object, scope: tuple, min_cases: int, keypath: tuple) -> Gate:
    metric, dot, kind = name.rpartition(".")
    if not dot or kind not in KINDS:
        raise GateError(f"a gate is METRIC.macro or METRIC.micro (e.g. cer.micro), not {name!r}", keypath)
    if metric not in METRICS:
        raise GateError(
            f"unknown metric {metric!r} in gate {name!r}{did_you_mean(metric, METRICS)} "
            f"(known: {', '.join(sorted(METRICS))})",
            keypath,
        )
    try:
        threshold = parse_threshold(name, expression)
    except ThresholdError as exc:
        raise GateError(str(exc), keypath) from None
    return Gate(metric, kind, threshold.op, threshold.bound, scope, min_cases)


def parse_block(block: object, keypath: tuple = ("aggregate",)) -> tuple[list[tuple[Gate, tuple]], list[GateError]]:
    """The gates of an ``aggregate:`` block, each with its key path (for its line), and
    every problem found (all of them, not just the first)."""
    gates: list[tuple[Gate, tuple]] = []
    problems: list[GateError] = []

    def walk(node: object, scope: tuple, min_cases: int, path: tuple) -> None:
        if not isinstance(node, dict):
            problems.append(
                GateError(
                    f'expected a mapping of gates such as {{cer.micro: "< 0.03"}}, got {type(node).__name__}', path
                )
            )
            return
        if "min_cases" in node:
            value = node["min_cases"]
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                problems.append(
                    GateError(f"min_cases must be a whole number of 1 or more, not {value!r}", path + ("min_cases",))
                )
            else:
                min_cases = value
        for key, value in node.items():
            if key == "min_cases":
                continue
            where = path + (key,)
            scoped = _SCOPE.match(str(key))
            if scoped:
                kind = scoped.group(1)
                if any(k == kind for k, _ in scope) or (kind == "engine" and scope):
                    problems.append(
                        GateError(
                            f"scope {key!r} inside {' '.join(f'{k}:{v}' for k, v in scope)}: "
                            "an engine scope comes first, and each kind once",
                            where,
                        )
                    )
                    continue
                walk(value, scope + ((kind, scoped.group(2)),), min_cases, where)
                continue
            try:
                gates.append((_gate(str(key), value, scope, min_cases, where), where))
            except GateError as exc:
                problems.append(exc)

    walk(block, (), 1, keypath)
    return gates, problems


def regression_gates(
    block: object, keypath: tuple, file: str | None
) -> tuple[list[tuple[Gate, tuple]], list[GateError]]:
    """The aggregate tolerances of a ``regression:`` block (``cer.macro: "0.002@95%"``) as
    gates against the baseline, each with its key path; the block's per-item tolerances
    (plain metric names) are the cases' own."""
    gates: list[tuple[Gate, tuple]] = []
    problems: list[GateError] = []
    for name, value in block.items() if isinstance(block, dict) else ():
        metric, dot, kind = str(name).rpartition(".")
        if not dot or value is None:
            continue
        where = keypath + (name,)
        if kind not in KINDS or metric not in METRICS:
            problems.append(
                GateError(
                    f"{name!r}: an aggregate tolerance is METRIC.macro or METRIC.micro with a known metric", where
                )
            )
            continue
        try:
            gates.append((Gate(metric, kind, "", 0.0, (), 1, "", file, Tolerance.parse(value)), where))
        except ToleranceError as exc:
            problems.append(GateError(str(exc), where))
    return gates, problems


def parse_cli(text: str) -> Gate:
    """``--ocr-gate "cer.micro<0.05"`` or ``"engine:tesseract tag:receipts cer.micro < 0.1"``."""
    match = _CLI.match(text)
    if not match:
        raise GateError(
            f"--ocr-gate {text!r}: expected [engine:NAME] [tag:NAME | group:NAME] METRIC.macro|micro "
            f'OPERATOR NUMBER, e.g. "cer.micro<0.05" or "tag:receipts field_f1.macro >= 0.8"'
        )
    scope_text, metric, kind, expression = match.groups()
    if expression.startswith(":"):  # against the baseline, as a --fail-on rule is written
        if metric not in METRICS or kind not in KINDS:
            raise GateError(f"--ocr-gate {text!r}: expected METRIC.macro|micro:TOLERANCE with a known metric")
        try:
            tolerance = Tolerance.parse(expression[1:].strip())
        except ToleranceError as exc:
            raise GateError(f"--ocr-gate {text!r}: {exc}") from None
        scope = tuple((k, v) for k, _, v in (token.partition(":") for token in scope_text.split()))
        return Gate(metric, kind, "", 0.0, scope, 1, "--ocr-gate", None, tolerance)
    block: dict = {f"{metric}.{kind}": expression.strip()}
    for token in reversed(scope_text.split()):
        block = {token: block}
    (found, problems) = parse_block(block, ())
    if problems:
        raise GateError(f"--ocr-gate {text!r}: {problems[0]}")
    gate = found[0][0]
    return Gate(**{**gate.__dict__, "source": "--ocr-gate"})
