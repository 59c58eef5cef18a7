"""A baseline from the history store: ``--ocr-baseline history:BRANCH`` (the latest complete
run of the suite on BRANCH) and ``history:merge-base[:BRANCH]`` (the run of the merge-base
of HEAD and the branch a pull request goes into, as Codecov compares), for the run,
``pytest-ocr merge --baseline`` and ``pytest-ocr compare``.

The merge-base is GitLab's ``CI_MERGE_REQUEST_DIFF_BASE_SHA`` when set; under GitHub Actions
(a ``pull_request`` run, ``GITHUB_BASE_REF`` set) ``git merge-base HEAD origin/$GITHUB_BASE_REF``;
otherwise ``git merge-base HEAD main``; ``history:merge-base:BRANCH`` names the branch
(``BRANCH``, else ``origin/BRANCH``) over all of these. When that commit has no complete run
(its CI job did not record, or failed), the nearest ancestor that has one along its first
parents is used, and a note says which.

The run read back is a ``run.baseline.Baseline`` as a JSON report of the same run makes it
(and for ``pytest-ocr compare``, a ``RunRecord`` whose summaries are made from those records):
each item's outcome, metric values, counts, repeats' values and the checks that held are
what the comparison reads (run/comparison.py, run/noise.py, run/paired.py), and the store
keeps them (schema.py); the engines' fingerprints tell a changed configuration.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import OcrError
from ..run.aggregate import summarize
from ..run.baseline import Baseline
from ..run.baseline_defaults import HISTORY
from ..run.record import RunInfo, RunRecord
from ..run.result import CaseResult
from ..run.stored import scored_names
from ..scoring.facts import FactRecord
from .git import RefError, check, resolve, run_git
from .store import ItemRow, RunRow, Store, StoreError
from .url import HistoryTarget

MERGE_BASE = "merge-base"
DEFAULT_TARGET = "main"
MAX_ANCESTORS = 1000  # first parents looked at back from a merge-base without a run


class HistoryBaselineError(OcrError):
    """A history baseline that cannot be read: one line, the store named without credentials."""


class BaselineRefError(HistoryBaselineError):
    """A branch or commit (given, or a CI variable) that git would not accept: bad input (git.py)."""


@dataclass(frozen=True)
class Wanted:
    """What ``history:...`` asks for: a branch's latest run, or (no branch) the merge-base's."""

    branch: str | None = None
    target: str | None = None  # history:merge-base:TARGET; None: from the CI, else main


def wanted(given: str) -> Wanted:
    """What ``given`` asks for; BaselineRefError when it names no branch git would accept."""
    rest = given.removeprefix(HISTORY).strip()
    if rest == MERGE_BASE:
        return Wanted()
    if not rest or rest == MERGE_BASE + ":":
        raise BaselineRefError(f"{given}: expected history:BRANCH, history:merge-base or history:merge-base:BRANCH")
    try:
        if rest.startswith(MERGE_BASE + ":"):
            return Wanted(target=check(rest[len(MERGE_BASE) + 1 :].strip(), "history:merge-base:BRANCH", commit=False))
        return Wanted(branch=check(rest, "history:BRANCH", commit=False))
    except RefError as exc:
        raise BaselineRefError(str(exc)) from None


def load(given: str, where: HistoryTarget, project: Path, environ: Mapping[str, str]) -> Baseline:
    """The run ``given`` names in the store, as a baseline. Raises HistoryBaselineError."""
    return _read(given, where, project, environ)[0]


def run_record(
    given: str, where: HistoryTarget, project: Path, environ: Mapping[str, str]
) -> tuple[RunRecord, Baseline]:
    """The run ``given`` names in the store, as ``pytest-ocr compare`` reads BASE: its
    records, engines and each engine's summary (counts, aggregates, repeats' stability),
    made from them as the run made its own. Raises HistoryBaselineError."""
    baseline, run = _read(given, where, project, environ)
    return _record(baseline, run), baseline


def record_at(commit: str, where: HistoryTarget) -> RunRecord:
    """The latest complete run of the suite at ``commit``, read as ``run_record`` reads BASE
    (the pull-request comment's HEAD when no report is given). Raises HistoryBaselineError."""
    url, suite = where.url, where.suite
    try:
        with Store.read(url) as store:
            run = store.run_of(suite, commit)
            if run is None:
                raise HistoryBaselineError(
                    f"HEAD: no complete run of suite {suite!r} at commit {commit[:12]} in {url.shown} "
                    f"(record it with --ocr-history, or give its report with --report)"
                )
            baseline = _baseline(store, run, f"run {run.id} of suite {suite}, commit {commit[:12]}", [])
    except StoreError as exc:
        raise HistoryBaselineError(f"HEAD: history store {url.shown}: {exc}") from None
    return _record(baseline, run)


def target_branch(given: str, environ: Mapping[str, str]) -> str:
    """The branch a ``history:...`` baseline compares with: the one it names, else the one the
    pull request or merge request goes into, else main."""
    asked = wanted(given)
    named = asked.branch or asked.target
    if named:
        return named
    for variable in ("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", *_github_base(environ)):
        found = environ.get(variable, "").strip()
        if found:
            try:
                return check(found, variable, commit=False)
            except RefError as exc:
                raise BaselineRefError(str(exc)) from None
    return DEFAULT_TARGET


def _github_base(environ: Mapping[str, str]) -> tuple[str, ...]:
    """GitHub's variable naming the branch a pull request goes into, under GitHub Actions."""
    return ("GITHUB_BASE_REF",) if environ.get("GITHUB_ACTIONS") == "true" else ()


def _record(baseline: Baseline, run: RunRow) -> RunRecord:
    # only complete runs are read
    info = RunInfo(run.started_at, run.finished_at, run.duration_s, run.workers, "complete")
    results = sorted(baseline.results.values(), key=lambda r: r.key)
    return RunRecord(info, results, baseline.engines, summarize(results), scorers=baseline.scorers)


def _read(given: str, where: HistoryTarget, project: Path, environ: Mapping[str, str]) -> tuple[Baseline, RunRow]:
    asked = wanted(given)
    url, suite = where.url, where.suite
    if url.backend == "sqlite" and not Path(url.shown.removeprefix("sqlite:///")).is_file():
        raise HistoryBaselineError(f"{given}: no history store at {url.shown} (runs are recorded with --ocr-history)")
    notes: list[str] = []
    try:
        with Store.read(url) as store:
            if asked.branch is not None:
                run = store.latest_complete(suite, asked.branch)
                if run is None:
                    raise HistoryBaselineError(
                        f"{given}: no complete run of suite {suite!r} on branch {asked.branch} in {url.shown}"
                    )
            else:
                try:
                    commit, how = merge_base(asked.target, project, environ)
                except RefError as exc:
                    raise BaselineRefError(f"{given}: {exc}") from None
                except HistoryBaselineError as exc:
                    raise HistoryBaselineError(f"{given}: {exc}") from None
                run = _nearest(store, suite, commit, project)
                if run is None:
                    raise HistoryBaselineError(
                        f"{given}: no complete run of suite {suite!r} at the merge-base {commit[:12]} ({how}) "
                        f"or any of its {MAX_ANCESTORS} nearest ancestors in {url.shown}"
                    )
                if run.commit != commit:
                    notes.append(
                        f"{given}: the merge-base {commit[:12]} ({how}) has no complete run of suite {suite!r}; "
                        f"compared with its nearest ancestor that has one, {(run.commit or '')[:12]}"
                    )
            commit = f", commit {run.commit[:12]}" if run.commit else ""
            baseline = _baseline(store, run, f"{given} (run {run.id} of suite {suite}{commit})", notes)
    except StoreError as exc:
        raise HistoryBaselineError(f"{given}: history store {url.shown}: {exc}") from None
    return baseline, run


def _baseline(store: Store, run: RunRow, name: str, notes: list[str]) -> Baseline:
    items = store.items(run.id)
    engines = {e.engine: e.fingerprint for e in store.engines([run.id])}
    results = {i.key: _result(i) for i in items}
    scored = scored_names(list(results.values()))
    scorers = {metric: found for metric in sorted(scored) if (found := run.scorer(metric)) is not None}
    return Baseline(None, results, engines, True, name, notes, scorers=scorers)


def merge_base(target: str | None, project: Path, environ: Mapping[str, str]) -> tuple[str, str]:
    """The merge-base commit of HEAD and the target branch, and how it was found; RefError for
    a variable that names no commit or branch (git.py)."""
    if target is None:
        gitlab = environ.get("CI_MERGE_REQUEST_DIFF_BASE_SHA", "").strip()
        if gitlab:
            return resolve(project, gitlab, "CI_MERGE_REQUEST_DIFF_BASE_SHA"), "CI_MERGE_REQUEST_DIFF_BASE_SHA"
        github = "".join(environ.get(v, "").strip() for v in _github_base(environ))
        if github:
            check(github, "GITHUB_BASE_REF", commit=False)
        refs = [f"origin/{github}", github] if github else [DEFAULT_TARGET, f"origin/{DEFAULT_TARGET}"]
    else:
        refs = [check(target, "history:merge-base:BRANCH", commit=False), f"origin/{target}"]
    for ref in refs:
        found = run_git(project, "merge-base", revisions=["HEAD", ref])
        if found:
            return found[0], f"merge-base of HEAD and {ref}"
    raise HistoryBaselineError(
        f"git finds no merge-base of HEAD and {refs[0]} in {project} (a shallow clone "
        f"has none: fetch the history, e.g. actions/checkout's fetch-depth: 0 or GitLab's GIT_DEPTH: 0; "
        f"history:merge-base:BRANCH names the branch)"
    )


def _nearest(store: Store, suite: str, commit: str, project: Path) -> RunRow | None:
    """The run of ``commit``, else of its nearest first-parent ancestor that has one."""
    found = store.run_of(suite, commit)
    if found is not None:
        return found
    ancestors = run_git(
        project, "rev-list", "--first-parent", f"--max-count={MAX_ANCESTORS + 1}", revisions=[commit], paths=True
    )
    runs = store.complete_at(suite, ancestors[1:]) if ancestors else {}
    return next((runs[c] for c in (ancestors or [])[1:] if c in runs), None)


def _result(item: ItemRow) -> CaseResult:
    """An item read back as its record in a JSON report reads for a comparison (a report
    holds no NaN nor infinity: neither does this)."""
    repeats = None
    if item.repeats is not None:
        r = item.repeats
        repeats = {
            "n": len(r.values),
            "metrics": [_finite(values) for values in r.values],
            "identical": r.identical,
            "pairwise_cer": r.pairwise_cer,
            "unstable": r.unstable,
        }
    return CaseResult(
        key=item.key,
        id=item.key,
        case="",
        file="",
        line=0,
        engine=item.engine,
        image=None,
        outcome=item.outcome,  # type: ignore[arg-type]  # one of OUTCOMES, as the store's code says
        metrics=_finite(item.values),
        details={metric: {"counts": counts} for metric, counts in item.counts.items()},
        repeats=repeats,
        facts=None if item.held is None else [FactRecord(i, "", None, True, "") for i in item.held],
        cached=item.cached,
    )


def _finite(values: Mapping[str, float | None]) -> dict[str, float | None]:
    return {m: v if v is not None and math.isfinite(v) else None for m, v in values.items()}
