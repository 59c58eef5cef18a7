"""Shard reports (``--ocr-shard K/N --ocr-report``) joined into the one run they make
together (``pytest-ocr merge``): the results of every shard, the gates and datasets
their items declared, and the run's timing and status. Judged and built like a run of
its own (run/record.py), its report equals the report of the suite run unsharded,
timings aside.

Shards of different suites (other item keys), split differently (other N, other
durations), of another pytest-ocr, or whose engines differ (fingerprints) are refused:
their results do not make one run, and so is a report that contradicts itself (shard 7
of 3, a time that is not one, results of items that are not the shard's). A shard that
is missing, that stopped early, or whose report lacks results of items it lists as its
own leaves the merged run incomplete, and says how many items did not run and which.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..cases.gates import Gate
from ..cases.model import DatasetInfo
from ..cases.rules import ThresholdError
from ..cases.rules import parse as parse_threshold
from ..engines import fingerprint_changes
from ..errors import OcrError
from ..metrics import METRICS
from ..metrics.registry import Scorer
from ..scoring.repeats import judged_values
from ..scoring.thresholds import judge as judge_thresholds
from ..scoring.thresholds import not_applicable
from ..scoring.verdict import decide
from . import shard as sharding
from .record import RunInfo
from .result import CaseResult
from .shard import ShardInfo
from .stored import results_of, stored_scorers

LISTED = 10  # keys named in a message before "and N more"


class MergeError(OcrError, ValueError):
    """Shard reports that cannot be merged; the message names the files and why."""


@dataclass
class Merged:
    results: list[CaseResult]
    gates: list[Gate]
    datasets: list[DatasetInfo]
    run: RunInfo
    shards: list[ShardInfo]
    missing: list[int]  # indices of the shards not given
    project: str | None  # the project directory the shards ran in, when they all recorded the same
    scorers: dict[str, Scorer]  # what scored the shards' values (the same in every shard)


def _listed(keys: Sequence[str]) -> str:
    more = f" and {len(keys) - LISTED} more" if len(keys) > LISTED else ""
    return ", ".join(keys[:LISTED]) + more


def _same(reports: Sequence[tuple[str, dict[str, Any]]], what: str, value: Any, describe: str) -> None:
    """Every report has the first one's ``value(document)``, or a MergeError saying which differs."""
    first_path, first = reports[0]
    for path, document in reports[1:]:
        if value(document) != value(first):
            raise MergeError(
                f"{path} and {first_path} are shards of {what}: {describe} "
                f"({value(document)} and {value(first)}); merge the shards of one run"
            )


def merge(reports: Sequence[tuple[str, dict[str, Any]]]) -> Merged:
    """``reports``: (path, validated report document) of each shard, in any order."""
    if not reports:
        raise MergeError("no shard reports given")
    for path, document in reports:
        if not document.get("shard"):
            raise MergeError(f"{path} is not a shard's report (its run had no --ocr-shard); merge joins shard reports")
    shards = [(path, _shard(path, document["shard"])) for path, document in reports]
    _same(reports, "different pytest-ocr versions", lambda d: d["tool"]["version"], "tool versions differ")
    _same(reports, "different splits", lambda d: d["shard"]["total"], "their N in --ocr-shard K/N differs")
    for path, shard in shards:
        if shard.suite == "unknown":
            raise MergeError(
                f"{path}: shard {shard.index}/{shard.total} does not know its suite: its run collected or ran no "
                f"OCR item (a usage error, or workers that died first; see that job's output)"
            )
    _same(
        reports,
        "different suites",
        lambda d: f"{d['shard']['suite_items']} items, suite {d['shard']['suite'][:12]}",
        "the OCR items selected differ (other case files, cases, engines, -k or -m)",
    )
    _same(
        reports,
        "different splits",
        lambda d: d["shard"]["partition"],
        "the items were shared out differently (--ocr-shard-durations given to some shards only, or another report)",
    )
    given: dict[int, str] = {}
    for path, shard in shards:
        if shard.index in given:
            raise MergeError(f"shard {shard.index}/{shard.total} given twice: {given[shard.index]} and {path}")
        given[shard.index] = path
    _check_engines(reports)
    owner: dict[str, str] = {}
    twice: list[str] = []
    for path, shard in shards:
        for key in shard.keys:
            if key in owner:
                twice.append(f"{key} ({owner[key]} and {path})")
            owner[key] = path
    if twice:
        raise MergeError(f"items in more than one shard: {_listed(twice)}")

    total = shards[0][1].total
    missing = [k for k in range(1, total + 1) if k not in given]
    if not missing:
        _whole(shards)
    missing_items = shards[0][1].suite_items - len(owner)
    if missing_items < 0:
        raise MergeError(
            f"{', '.join(path for path, _ in shards)}: the shards list {len(owner)} items (/shard/keys), more than "
            f"their suite's {shards[0][1].suite_items} (/shard/suite_items)"
        )
    results: dict[str, CaseResult] = {}
    scorers: dict[str, tuple[str, Scorer]] = {}  # metric -> (the first shard that has it, its scorer)
    runs = [document["run"] for _, document in reports]
    reasons = []
    not_run = missing_items
    for (path, shard), (_, document), run in zip(shards, reports, runs, strict=True):
        recorded = results_of(document)
        mine = set(shard.keys)
        foreign = [r.key for r in recorded if r.key not in mine]
        if foreign:
            raise MergeError(
                f"{path}: results of items that are not shard {shard.index}/{shard.total}'s (/shard/keys): "
                f"{_listed(foreign)}; a shard's report holds the results of its own items only"
            )
        for index, result in enumerate(recorded):
            _judged_again(path, index, result)
        results.update((r.key, r) for r in recorded)
        _same_scorers(scorers, path, stored_scorers(document, recorded))
        lost = sorted(mine - {r.key for r in recorded})
        not_run += max(len(lost), run.get("not_run", 0))
        said = [run["interruption"]] if run.get("interruption") else []
        if lost:
            said.append(f"{len(lost)} of its {shard.items} OCR item(s) without a result in {path}: {_listed(lost)}")
        if said:
            reasons.append(f"shard {shard.index}/{shard.total}: {'; '.join(said)}")
    if missing:
        shown = ", ".join(f"{k}/{total}" for k in missing)
        reasons.insert(0, f"shard(s) {shown} missing: {missing_items} OCR item(s) not in the merged run")
    projects = {s.project for _, s in shards}
    return Merged(
        sorted(results.values(), key=lambda r: r.key),
        _gates(shards),
        _datasets(shards),
        _run(reports, not_run, "; ".join(reasons) or None),
        [s for _, s in sorted(shards, key=lambda ps: ps[1].index)],
        missing,
        projects.pop() if len(projects) == 1 else None,
        {name: scorer for name, (_, scorer) in sorted(scorers.items())},
    )


def _judged_again(path: str, index: int, result: CaseResult) -> None:
    """A measured result's checks and outcome as its recorded values and thresholds give
    them, by the predicates its item ran (thresholds.judge, verdict.decide; a shard judges
    its items against the baseline as they end, and writes none); a MergeError naming the
    first that its report says otherwise. A shard's report is an artifact that anyone who can
    run a job of the pull request can write: an item marked passed whose check failed would
    pass the merged run."""
    if not result.measured:
        return
    where = f"{path}: at /results/{index}"
    try:
        thresholds = [parse_threshold(metric, expression) for metric, expression in result.thresholds.items()]
    except ThresholdError as exc:
        raise MergeError(f"{where}/thresholds: {exc}") from None
    repeats = result.repeats or {}
    values = judged_values(result.metrics, repeats.get("judge"), repeats.get("metrics") or [])
    checks = judge_thresholds(thresholds, values, not_applicable(result.metrics, result.details))
    if checks != result.checks:
        j = 0
        while j < min(len(checks), len(result.checks)) and checks[j] == result.checks[j]:
            j += 1
        said = result.checks[j].message() if j < len(result.checks) else "no check"
        given = checks[j].message() if j < len(checks) else "no check"
        raise MergeError(
            f"{where}/checks/{j}: {result.key}: the report says '{said}', but its values and thresholds give "
            f"'{given}'; merge the shards' reports as they wrote them"
        )
    decided = decide(checks, result.baseline).outcome
    if decided != result.outcome:
        against = " and its baseline comparison" if result.baseline is not None else ""
        raise MergeError(
            f"{where}/outcome: {result.key} is recorded {result.outcome}, but its checks{against} say {decided}; "
            f"merge the shards' reports as they wrote them"
        )


def _same_scorers(seen: dict[str, tuple[str, Scorer]], path: str, scorers: dict[str, Scorer]) -> None:
    """The shard at ``path`` scored each metric as the shards before it did, or a MergeError naming them."""
    for name, scorer in scorers.items():
        first_path, first = seen.setdefault(name, (path, scorer))
        if first != scorer:
            raise MergeError(
                f"{path} and {first_path} are shards scored differently: {name} by {scorer} and {first}; "
                f"merge the shards of one run (or re-score both with one pytest-ocr: pytest-ocr rescore)"
            )


def _shard(path: str, data: dict[str, Any]) -> ShardInfo:
    """A (schema-valid) report's ``shard``, when what it says holds together (what a schema cannot say)."""
    for i, gate in enumerate(data["gates"]):
        if gate["metric"] not in METRICS:
            raise MergeError(f"{path}: at /shard/gates/{i}/metric: unknown metric {gate['metric']!r}")
        try:
            Gate.from_dict(gate)
        except ValueError as exc:  # its tolerance
            raise MergeError(f"{path}: at /shard/gates/{i}/tolerance: {exc}") from None
    shard = ShardInfo.from_dict(data)
    if shard.index > shard.total:
        raise MergeError(
            f"{path}: at /shard/index: shard {shard.index} of {shard.total}; expected 1 to {shard.total} "
            f"(K of --ocr-shard K/N)"
        )
    if shard.items > shard.suite_items:
        raise MergeError(
            f"{path}: at /shard/items: {shard.items} items; expected at most the suite's {shard.suite_items} "
            f"(/shard/suite_items)"
        )
    twice = [key for key, n in Counter(shard.keys).items() if n > 1]
    if twice:
        raise MergeError(f"{path}: at /shard/keys: items listed more than once: {_listed(twice)}")
    if len(shard.keys) != shard.items:
        raise MergeError(
            f"{path}: at /shard/keys: {len(shard.keys)} items listed; expected {shard.items}, as /shard/items says"
        )
    return shard


def _whole(shards: Sequence[tuple[str, ShardInfo]]) -> None:
    """Every shard given: together their items are the suite their reports declare, split as declared."""
    first = shards[0][1]
    paths = ", ".join(path for path, _ in shards)
    if sharding.fingerprint(k for _, s in shards for k in s.keys) != first.suite:
        raise MergeError(
            f"{paths}: the items the shards list (/shard/keys) are not the suite they declare (/shard/suite, "
            f"{first.suite_items} items); merge the shards' reports as they wrote them"
        )
    if sharding.fingerprint(f"{k}\t{s.index}" for _, s in shards for k in s.keys) != first.partition:
        raise MergeError(
            f"{paths}: the items the shards list (/shard/keys) are not shared out as their split declares "
            f"(/shard/partition); merge the shards' reports as they wrote them"
        )


def _check_engines(reports: Sequence[tuple[str, dict[str, Any]]]) -> None:
    seen: dict[str, tuple[str, dict[str, Any]]] = {}
    for path, document in reports:
        for engine, fingerprint in document["engines"].items():
            if engine not in seen:
                seen[engine] = (path, fingerprint)
                continue
            first_path, first = seen[engine]
            changes = fingerprint_changes(first, fingerprint)
            if changes:
                raise MergeError(
                    f"engine {engine} differs between {first_path} and {path}: {'; '.join(changes)}; "
                    f"the shards of one run run the same engines"
                )


def _gates(shards: Sequence[tuple[str, ShardInfo]]) -> list[Gate]:
    """Every gate any shard's items declared, once (as the controller keeps them)."""
    gates: dict[tuple[Any, ...], Gate] = {}
    for _, shard in shards:
        for gate in shard.gates:
            gates.setdefault(gate.identity, gate)
    return list(gates.values())


def _datasets(shards: Sequence[tuple[str, ShardInfo]]) -> list[DatasetInfo]:
    datasets: dict[str, DatasetInfo] = {}
    for _, shard in shards:
        for dataset in shard.datasets:
            datasets.setdefault(dataset.file, dataset)
    return sorted(datasets.values(), key=lambda d: d.file)


def _time(path: str, run: dict[str, Any], key: str) -> datetime:
    try:
        return datetime.fromisoformat(run[key])
    except ValueError:  # the schema's pattern passes a 13th month
        raise MergeError(f"{path}: at /run/{key}: expected a date and time (ISO 8601), got {run[key]!r}") from None


def _run(reports: Sequence[tuple[str, dict[str, Any]]], not_run: int, interruption: str | None) -> RunInfo:
    """From the first shard's start to the last one's end; the most workers any shard had."""
    runs = [document["run"] for _, document in reports]
    started = min(_time(path, document["run"], "started_at") for path, document in reports)
    finished = max(_time(path, document["run"], "finished_at") for path, document in reports)
    first = runs[0]
    return RunInfo(
        started_at=started.isoformat(),
        finished_at=finished.isoformat(),
        duration_s=max(0.0, (finished - started).total_seconds()),
        workers=max(run.get("workers", 0) for run in runs),
        status="interrupted" if not_run or interruption else "complete",
        not_run=not_run,
        interruption=(interruption or "stopped early") if not_run or interruption else None,
        shards=len(reports),
        pytest=first["pytest"],
        python=first["python"],
        platform=first["platform"],
    )
