"""Shard reports (``--ocr-shard K/N --ocr-report``) joined into the one run they make
together (``pytest-ocr merge``): the results of every shard, the gates and datasets
their items declared, and the run's timing and status. Judged and built like a run of
its own (run/record.py), its report equals the report of the suite run unsharded,
timings aside.

Shards of different suites (other item keys), split differently (other N, other
durations), of another pytest-ocr, or whose engines differ (fingerprints) are refused:
their results do not make one run. A shard that is missing, or that stopped early,
leaves the merged run incomplete, and says how many items did not run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..cases.gates import Gate
from ..cases.model import DatasetInfo
from ..engines import fingerprint_changes
from ..errors import OcrError
from .record import RunInfo
from .result import CaseResult
from .shard import ShardInfo
from .stored import results_of

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
    shards = [(path, ShardInfo.from_dict(document["shard"])) for path, document in reports]
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

    results: dict[str, CaseResult] = {}
    where: dict[str, str] = {}
    twice: list[str] = []
    for path, document in reports:
        for result in results_of(document):
            if result.key in results:
                twice.append(f"{result.key} ({where[result.key]} and {path})")
            results[result.key] = result
            where[result.key] = path
    if twice:
        raise MergeError(f"items in more than one shard: {_listed(twice)}")

    total = shards[0][1].total
    missing = [k for k in range(1, total + 1) if k not in given]
    missing_items = shards[0][1].suite_items - sum(s.items for _, s in shards)
    runs = [document["run"] for _, document in reports]
    reasons = [
        f"shard {s.index}/{s.total}: {run['interruption']}"
        for (_, s), run in zip(shards, runs, strict=True)
        if run.get("interruption")
    ]
    if missing:
        shown = ", ".join(f"{k}/{total}" for k in missing)
        reasons.insert(0, f"shard(s) {shown} missing: {missing_items} OCR item(s) not in the merged run")
    not_run = missing_items + sum(run.get("not_run", 0) for run in runs)
    projects = {s.project for _, s in shards}
    return Merged(
        sorted(results.values(), key=lambda r: r.key),
        _gates(shards),
        _datasets(shards),
        _run(runs, not_run, "; ".join(reasons) or None, len(reports)),
        [s for _, s in sorted(shards, key=lambda ps: ps[1].index)],
        missing,
        projects.pop() if len(projects) == 1 else None,
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


def _run(runs: Sequence[dict[str, Any]], not_run: int, interruption: str | None, shards: int) -> RunInfo:
    """From the first shard's start to the last one's end; the most workers any shard had."""
    started = min(datetime.fromisoformat(run["started_at"]) for run in runs)
    finished = max(datetime.fromisoformat(run["finished_at"]) for run in runs)
    first = runs[0]
    return RunInfo(
        started_at=started.isoformat(),
        finished_at=finished.isoformat(),
        duration_s=max(0.0, (finished - started).total_seconds()),
        workers=max(run.get("workers", 0) for run in runs),
        status="interrupted" if not_run or interruption else "complete",
        not_run=not_run,
        interruption=(interruption or "stopped early") if not_run or interruption else None,
        shards=shards,
        pytest=first["pytest"],
        python=first["python"],
        platform=first["platform"],
    )
