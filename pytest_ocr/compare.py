"""Two JSON reports side by side: what changed from BASE (e.g. the main branch's run)
to HEAD (this change's run), and which ``--fail-on`` rules that breaks.

Pure functions on report documents (dicts as ``report.json_report.build`` makes them);
``pytest-ocr compare`` and the plugin's baseline warnings are built on them. Items
are matched by their id. Items only in HEAD (new) or only in BASE (removed) are
listed, never failures: a rule compares what both runs measured.

Rules (``--fail-on``):

- ``METRIC:TOLERANCE``: any item whose METRIC got worse by more than TOLERANCE
  (``cer:+0.005`` absolute, ``cer:+10%`` relative to the old value);
- ``METRIC.macro:TOLERANCE`` / ``METRIC.micro:TOLERANCE``: an engine's aggregate
  (from the reports' ``summary``) got worse by more than TOLERANCE;
- ``errors``: an item that was measured in BASE (passed or failed) is an error in HEAD.

"Worse" follows each metric's direction (``METRICS[name].better``): up for CER,
down for field F1. A relative tolerance of an old value of 0 allows no change.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import jsonschema

from .metrics import METRICS
from .regression import EXACT, Delta, Tolerance, ToleranceError
from .report.json_report import SCHEMA_VERSION, report_schema
from .results import json_safe

KINDS = ("macro", "micro")
COUNTS = ("cases", "passed", "failed", "errors")
# Changes this small are float noise (a mean summed in another order), not a direction.
EPSILON = 1e-12
SHOWN_VALUE_CHARS = 80


class ReportError(ValueError):
    """A file that cannot be read as a pytest-ocr report; the message names the file."""


class RuleError(ValueError):
    """A ``--fail-on`` rule that cannot be parsed."""


# -- reading reports ------------------------------------------------------------------------


def _pointer(path) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _reject_constant(name: str):
    raise ValueError(f"{name} is not standard JSON")


def load_report(path: str | Path) -> dict:
    """A JSON report (``--ocr-report``), validated against the shipped report schema.

    Raises ReportError naming the file and what is wrong: missing, not UTF-8, not
    JSON (with line and column), or not a pytest-ocr report (the first schema error
    with its JSON pointer)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReportError(f"{path}: file not found") from None
    except UnicodeDecodeError as exc:
        raise ReportError(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise ReportError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        document = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ReportError(f"{path}: not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:  # NaN or Infinity
        raise ReportError(f"{path}: not JSON: {exc}") from None
    except RecursionError:
        raise ReportError(f"{path}: not a pytest-ocr report: nested too deeply") from None
    if not isinstance(document, dict) or not {"schema_version", "tool", "results"} <= document.keys():
        raise ReportError(f"{path}: not a pytest-ocr report (expected a JSON object with schema_version, tool, "
                          f"results, ... as --ocr-report writes)")
    if document["schema_version"] != SCHEMA_VERSION:
        raise ReportError(f"{path}: report schema version {document['schema_version']!r}; this pytest-ocr reads "
                          f"version {SCHEMA_VERSION}")
    validator = jsonschema.Draft202012Validator(report_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is not None:
        raise ReportError(f"{path}: not a valid pytest-ocr report: at {_pointer(error.absolute_path) or '/'}: "
                          f"{error.message}")
    seen: set[str] = set()
    for i, record in enumerate(document["results"]):
        if record["id"] in seen:
            raise ReportError(f"{path}: not a valid pytest-ocr report: at /results/{i}/id: duplicate id "
                              f"{record['id']!r}")
        seen.add(record["id"])
    return document


# -- engine fingerprints --------------------------------------------------------------------


def _leaves(value, prefix: str = "") -> dict[str, object]:
    """Key path -> value; nested mappings are walked, anything else (lists too) is a leaf.
    An empty mapping is a leaf, so ``kwargs: {}`` differs from no ``kwargs``."""
    if isinstance(value, dict) and value:
        found: dict[str, object] = {}
        for key, item in value.items():
            found.update(_leaves(item, f"{prefix}.{key}" if prefix else str(key)))
        return found
    return {prefix: value}


def _show(value) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= SHOWN_VALUE_CHARS else text[:SHOWN_VALUE_CHARS - 3] + "..."


def fingerprint_changes(old: dict | None, new: dict | None) -> list[str]:
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


# -- rules --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    scope: str  # "case", "macro", "micro" or "errors"
    metric: str | None = None
    tolerance: Tolerance | None = None

    def __str__(self) -> str:
        if self.scope == "errors":
            return "errors"
        name = self.metric if self.scope == "case" else f"{self.metric}.{self.scope}"
        return f"{name}:+{self.tolerance}"


RULE_FORMS = "METRIC:TOLERANCE (cer:+0.005, cer:+10%), METRIC.macro:TOLERANCE, METRIC.micro:TOLERANCE or errors"


def parse_rule(text: str) -> Rule:
    """A ``--fail-on`` rule; anything else raises RuleError saying what was expected."""
    stripped = text.strip()
    if stripped == "errors":
        return Rule("errors")
    name, colon, tolerance = stripped.partition(":")
    name = name.strip()
    if not colon:
        raise RuleError(f"bad rule {text!r}: expected {RULE_FORMS}")
    if name == "errors":
        raise RuleError(f"bad rule {text!r}: errors takes no tolerance (write just: errors)")
    metric, dot, kind = name.partition(".")
    if dot and kind not in KINDS:
        raise RuleError(f"bad rule {text!r}: an aggregate is METRIC.macro or METRIC.micro, not {name!r}")
    if metric not in METRICS:
        guess = difflib.get_close_matches(metric, METRICS, n=1)
        hint = f"; did you mean {guess[0]!r}?" if guess else f" (known: {', '.join(sorted(METRICS))})"
        raise RuleError(f"bad rule {text!r}: unknown metric {metric!r}{hint}")
    try:
        parsed = Tolerance.parse(tolerance.strip())
    except ToleranceError as exc:
        raise RuleError(f"bad rule {text!r}: {exc}") from None
    return Rule(kind if dot else "case", metric, parsed)


def parse_rules(texts) -> list[Rule]:
    return [parse_rule(t) for t in texts]


# -- the comparison -------------------------------------------------------------------------


def _direction(metric: str, old: float | None, new: float | None) -> str | None:
    """better / worse / same in the metric's direction; None when a side has no value."""
    if old is None or new is None:
        return None
    worse_by = Delta(metric, old, new, EXACT).worse_by
    if abs(worse_by) <= EPSILON:
        return "same"
    return "worse" if worse_by > 0 else "better"


@dataclass
class MetricDelta:
    metric: str
    old: float | None
    new: float | None
    change: float | None  # new - old
    direction: str | None  # better | worse | same; None when a side has no value

    @classmethod
    def of(cls, metric: str, old: float | None, new: float | None) -> MetricDelta:
        change = None if old is None or new is None else new - old
        return cls(metric, old, new, change, _direction(metric, old, new))


@dataclass
class AggregateDelta(MetricDelta):
    kind: str = "macro"  # macro | micro


@dataclass
class EngineComparison:
    engine: str
    base: dict[str, int]  # cases, passed, failed, errors
    head: dict[str, int]
    metrics: list[AggregateDelta]  # macro then micro of each metric both summaries have

    @property
    def unchanged(self) -> bool:
        return self.base == self.head and all(d.direction in ("same", None) for d in self.metrics)


@dataclass
class CaseComparison:
    id: str
    engine: str
    file: str
    line: int
    old_outcome: str
    new_outcome: str
    deltas: list[MetricDelta]
    violated: bool = False  # a per-case rule failed on it

    @property
    def regressed(self) -> bool:
        return self.violated or any(d.direction == "worse" for d in self.deltas)


@dataclass
class OutcomeChange:
    id: str
    engine: str
    old: str
    new: str
    error: str | None  # the first line of HEAD's error, if any


@dataclass
class FingerprintChange:
    engine: str
    changes: list[str]


@dataclass
class Violation:
    rule: str
    message: str
    id: str | None = None  # the item, for a per-case or errors rule
    engine: str | None = None


@dataclass
class Comparison:
    rules: list[str]
    engines: list[EngineComparison] = field(default_factory=list)
    new_engines: list[str] = field(default_factory=list)
    removed_engines: list[str] = field(default_factory=list)
    cases: list[CaseComparison] = field(default_factory=list)  # every item in both, by id
    new_items: list[str] = field(default_factory=list)
    removed_items: list[str] = field(default_factory=list)
    outcome_changes: list[OutcomeChange] = field(default_factory=list)
    fingerprints: list[FingerprintChange] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # e.g. a rule that found nothing to compare

    @property
    def failed(self) -> bool:
        return bool(self.violations)

    def regressed_cases(self) -> list[CaseComparison]:
        """Items that violated a rule or got worse on a compared metric: rule violations
        first, then by how much worse their first worse metric got (in compared order)."""
        order = {name: i for i, name in enumerate(dict.fromkeys(d.metric for c in self.cases for d in c.deltas))}

        def key(case: CaseComparison):
            worse = [d for d in case.deltas if d.direction == "worse"]
            if not worse:
                return (not case.violated, len(order), 0.0, case.id)
            first = worse[0]
            return (not case.violated, order[first.metric], -abs(first.change), case.id)

        return sorted((c for c in self.cases if c.regressed), key=key)

    def to_dict(self) -> dict:
        document = asdict(self)
        document["failed"] = self.failed
        for case, data in zip(self.cases, document["cases"]):
            data["regressed"] = case.regressed
        return json_safe(document)


def _first_line(text: str | None) -> str | None:
    if not text:
        return None
    lines = text.strip().splitlines()
    return lines[0] if lines else None


def _counts(summary: dict) -> dict[str, int]:
    return {name: summary.get(name, 0) for name in COUNTS}


def _engine_comparison(engine: str, old: dict, new: dict) -> EngineComparison:
    rows = []
    for metric in METRICS:  # metrics unknown to this version have no known direction
        if metric in old["metrics"] and metric in new["metrics"]:
            for kind in KINDS:
                o, n = old["metrics"][metric].get(kind), new["metrics"][metric].get(kind)
                rows.append(AggregateDelta(**asdict(MetricDelta.of(metric, o, n)), kind=kind))
    return EngineComparison(engine, _counts(old), _counts(new), rows)


def compare(base: dict, head: dict, rules: list[Rule] = ()) -> Comparison:
    """What changed from ``base`` to ``head`` (two report documents) and which rules broke.

    Per item, the compared metrics are those the rules name, or every metric both
    records have when no rule names one."""
    rules = list(rules)
    comparison = Comparison(rules=[str(r) for r in rules])
    compared = {str(r): 0 for r in rules}  # how many values each rule looked at

    # engines: aggregates, aggregate rules, fingerprints
    old_summary, new_summary = base["summary"], head["summary"]
    comparison.new_engines = sorted(new_summary.keys() - old_summary.keys())
    comparison.removed_engines = sorted(old_summary.keys() - new_summary.keys())
    for engine in sorted(old_summary.keys() & new_summary.keys()):
        comparison.engines.append(_engine_comparison(engine, old_summary[engine], new_summary[engine]))
        for rule in rules:
            if rule.scope not in KINDS:
                continue
            old = old_summary[engine]["metrics"].get(rule.metric, {}).get(rule.scope)
            new = new_summary[engine]["metrics"].get(rule.metric, {}).get(rule.scope)
            if old is None or new is None:
                continue
            compared[str(rule)] += 1
            delta = Delta(rule.metric, old, new, rule.tolerance)
            if delta.regressed:
                comparison.violations.append(
                    Violation(str(rule), f"{engine} ({rule.scope}): {delta.message()}", engine=engine))
    for engine in sorted(base["engines"].keys() & head["engines"].keys()):
        changes = fingerprint_changes(base["engines"][engine], head["engines"][engine])
        if changes:
            comparison.fingerprints.append(FingerprintChange(engine, changes))

    # items
    old_records = {r["id"]: r for r in base["results"]}
    new_records = {r["id"]: r for r in head["results"]}
    comparison.new_items = sorted(new_records.keys() - old_records.keys())
    comparison.removed_items = sorted(old_records.keys() - new_records.keys())
    named = list(dict.fromkeys(r.metric for r in rules if r.metric))
    case_rules = [r for r in rules if r.scope == "case"]
    error_rules = [r for r in rules if r.scope == "errors"]
    for item in sorted(old_records.keys() & new_records.keys()):
        old, new = old_records[item], new_records[item]
        old_values, new_values = old["metrics"], new["metrics"]
        names = named or [m for m in METRICS if old_values.get(m) is not None and new_values.get(m) is not None]
        case = CaseComparison(
            item, new["engine"], new["file"], new["line"], old["outcome"], new["outcome"],
            [MetricDelta.of(m, old_values[m], new_values[m]) for m in names
             if old_values.get(m) is not None and new_values.get(m) is not None],
        )
        for rule in case_rules:
            if old_values.get(rule.metric) is None or new_values.get(rule.metric) is None:
                continue
            compared[str(rule)] += 1
            delta = Delta(rule.metric, old_values[rule.metric], new_values[rule.metric], rule.tolerance)
            if delta.regressed:
                case.violated = True
                comparison.violations.append(Violation(str(rule), f"{item}: {delta.message()}", item, case.engine))
        if old["outcome"] != new["outcome"]:
            comparison.outcome_changes.append(
                OutcomeChange(item, case.engine, old["outcome"], new["outcome"], _first_line(new.get("error"))))
        for rule in error_rules:
            if old["outcome"] in ("passed", "failed"):
                compared[str(rule)] += 1
                if new["outcome"] == "error":
                    reason = _first_line(new.get("error")) or "no message"
                    comparison.violations.append(Violation(
                        str(rule), f"{item}: {old['outcome']} -> error: {reason}", item, case.engine))
        comparison.cases.append(case)

    for rule, count in compared.items():
        if count == 0:
            comparison.notes.append(f"rule {rule} compared nothing: no item or engine has its values in both reports")
    return comparison
