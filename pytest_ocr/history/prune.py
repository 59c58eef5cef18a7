"""Which runs ``pytest-ocr history prune --keep N`` removes: per suite and branch, every run
of a commit older than the branch's ``N`` latest commits (commits ordered by their latest
run). All attempts of a kept commit stay, so the run a branch's latest commit points at
(a ``history:BRANCH`` baseline) is never removed; runs without a branch are grouped as one
branch, and each run without a commit counts as a commit of its own."""

from __future__ import annotations

from collections.abc import Sequence

from .store import RunRow


def prunable(runs: Sequence[RunRow], keep: int) -> list[RunRow]:
    if keep < 1:
        raise ValueError("keep at least 1 commit per suite and branch")
    latest: dict[tuple[str, str | None, str], int] = {}
    for run in runs:
        commit = (run.suite, run.branch, run.commit or f"#{run.id}")
        latest[commit] = max(latest.get(commit, 0), run.id)
    kept: set[tuple[str, str | None, str]] = set()
    per_branch: dict[tuple[str, str | None], list[tuple[int, tuple[str, str | None, str]]]] = {}
    for commit, run_id in latest.items():
        per_branch.setdefault(commit[:2], []).append((run_id, commit))
    for commits in per_branch.values():
        kept.update(commit for _, commit in sorted(commits, reverse=True)[:keep])
    return [r for r in runs if (r.suite, r.branch, r.commit or f"#{r.id}") not in kept]
