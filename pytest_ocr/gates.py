"""Aggregate gates: thresholds on a run's macro or micro averages, judged after every
item ran, per engine (``cer.micro: "< 0.03"``), optionally within an engine, a tag or a
group (``tag:receipts``).

A gate over fewer cases than its ``min_cases`` (default 1) fails: an empty or tiny
selection (``-k`` that matched nothing of a tag, an engine that crashed on every image)
must not pass a gate by having nothing to measure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .metrics import METRICS
from .results import CaseResult, aggregate_metric
from .thresholds import Threshold, ThresholdError, format_number
from .thresholds import parse as parse_threshold

KINDS = ("macro", "micro")
SCOPE_KINDS = ("engine", "tag", "group")
_SCOPE = re.compile(r"^(engine|tag|group):([A-Za-z0-9_][A-Za-z0-9_.\-]*)$")
_CLI = re.compile(r"^\s*((?:(?:engine|tag|group):\S+\s+)*)([a-z0-9_]+)\.([a-z]+)\s*(.+)$")


class GateError(ValueError):
    """A gate that cannot be parsed; ``keypath`` locates it in its block."""

    def __init__(self, message: str, keypath: tuple = ()):
        super().__init__(message)
        self.keypath = keypath


@dataclass(frozen=True)
class Gate:
    metric: str
    kind: str  # macro | micro
    op: str
    bound: float
    scope: tuple[tuple[str, str], ...] = ()  # (("tag", "receipts"),), in the order written
    min_cases: int = 1
    source: str = ""  # where it was declared: "file:line" or "--ocr-gate"
    file: str | None = None  # a suite's gates cover that file's items only

    @property
    def expression(self) -> str:
        return f"{self.metric}.{self.kind} {self.op} {format_number(self.bound)}"

    def subject(self, engine: str) -> str:
        """What is measured: ``tesseract: tag:receipts cer.micro``."""
        scope = " ".join(f"{k}:{v}" for k, v in self.scope if k != "engine")
        return f"{engine}: {scope + ' ' if scope else ''}{self.metric}.{self.kind}"

    def label(self, engine: str) -> str:
        """The gate's name as a test: ``tesseract: tag:receipts cer.micro < 0.1``."""
        return f"{self.subject(engine)} {self.op} {format_number(self.bound)}"

    def to_dict(self) -> dict:
        return {"metric": self.metric, "kind": self.kind, "op": self.op, "bound": self.bound,
                "scope": [list(s) for s in self.scope], "min_cases": self.min_cases, "source": self.source,
                "file": self.file}

    @classmethod
    def from_dict(cls, data: dict) -> Gate:
        return cls(**{**data, "scope": tuple(tuple(s) for s in data["scope"])})


def _gate(name: str, expression: object, scope: tuple, min_cases: int, keypath: tuple) -> Gate:
    metric, dot, kind = name.rpartition(".")
    if not dot or kind not in KINDS:
        raise GateError(f"a gate is METRIC.macro or METRIC.micro (e.g. cer.micro), not {name!r}", keypath)
    if metric not in METRICS:
        raise GateError(f"unknown metric {metric!r} in gate {name!r} (known: {', '.join(sorted(METRICS))})", keypath)
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
            problems.append(GateError(f"expected a mapping of gates such as {{cer.micro: \"< 0.03\"}}, "
                                      f"got {type(node).__name__}", path))
            return
        if "min_cases" in node:
            value = node["min_cases"]
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                problems.append(GateError(f"min_cases must be a whole number of 1 or more, not {value!r}",
                                          path + ("min_cases",)))
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
                    problems.append(GateError(f"scope {key!r} inside {' '.join(f'{k}:{v}' for k, v in scope)}: "
                                              "an engine scope comes first, and each kind once", where))
                    continue
                walk(value, scope + ((kind, scoped.group(2)),), min_cases, where)
                continue
            try:
                gates.append((_gate(str(key), value, scope, min_cases, where), where))
            except GateError as exc:
                problems.append(exc)

    walk(block, (), 1, keypath)
    return gates, problems


def parse_cli(text: str) -> Gate:
    """``--ocr-gate "cer.micro<0.05"`` or ``"engine:tesseract tag:receipts cer.micro < 0.1"``."""
    match = _CLI.match(text)
    if not match:
        raise GateError(f"--ocr-gate {text!r}: expected [engine:NAME] [tag:NAME | group:NAME] METRIC.macro|micro "
                        f"OPERATOR NUMBER, e.g. \"cer.micro<0.05\" or \"tag:receipts field_f1.macro >= 0.8\"")
    scope_text, metric, kind, expression = match.groups()
    block: dict = {f"{metric}.{kind}": expression.strip()}
    for token in reversed(scope_text.split()):
        block = {token: block}
    (found, problems) = parse_block(block, ())
    if problems:
        raise GateError(f"--ocr-gate {text!r}: {problems[0]}")
    gate = found[0][0]
    return Gate(**{**gate.__dict__, "source": "--ocr-gate"})


@dataclass
class GateResult:
    name: str
    passed: bool
    message: str
    value: float | None
    cases: int
    gate: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"name": self.name, "passed": self.passed, "message": self.message, "value": self.value,
                "cases": self.cases, "gate": self.gate}


def _members(results: list[CaseResult], scope: tuple) -> list[CaseResult]:
    for kind, name in scope:
        if kind == "tag":
            results = [r for r in results if name in r.tags]
        elif kind == "group":
            results = [r for r in results if r.group == name]
    return results


def judge(gate: Gate, engine: str, results: list[CaseResult]) -> GateResult:
    """One gate on one engine's results (already limited to the gate's file): the
    verdict and its message from the same comparison."""
    members = [r for r in _members(results, gate.scope) if r.metrics.get(gate.metric) is not None]
    name = gate.label(engine)
    where = f" (declared at {gate.source})" if gate.source else ""
    if len(members) < gate.min_cases:
        message = (f"{gate.subject(engine)}: FAILED: only {len(members)} case(s) with {gate.metric} "
                   f"(min_cases {gate.min_cases}); a gate does not pass on a selection this small{where}")
        return GateResult(name, False, message, None, len(members), gate.to_dict())
    value = getattr(aggregate_metric(members, gate.metric), gate.kind)
    passed = value is not None and Threshold(gate.metric, gate.op, gate.bound).check(value)
    shown = "undefined" if value is None else format_number(value)
    message = (f"{gate.subject(engine)} = {shown} over {len(members)} case(s), "
               f"expected {gate.op} {format_number(gate.bound)}: {'ok' if passed else 'FAILED'}{where}")
    return GateResult(name, passed, message, value, len(members), gate.to_dict())


def evaluate(gates: list[Gate], results: list[CaseResult]) -> list[GateResult]:
    """Every gate on every engine it concerns. A gate scoped to an engine is judged for
    that engine even when none of its items ran (and then fails on min_cases); an
    unscoped one for each engine that ran items of the gate's file (all files for
    project and command-line gates)."""
    outcomes = []
    for gate in gates:
        pool = [r for r in results if gate.file is None or r.file == gate.file]
        engines = [name for kind, name in gate.scope if kind == "engine"] or sorted({r.engine for r in pool})
        if not engines:
            outcomes.append(GateResult(gate.label("(no engine)"), False,
                                       f"{gate.subject('(no engine)')}: FAILED: no OCR item ran"
                                       f"{f' (declared at {gate.source})' if gate.source else ''}", None, 0,
                                       gate.to_dict()))
            continue
        for engine in engines:
            outcomes.append(judge(gate, engine, [r for r in pool if r.engine == engine]))
    return outcomes
