"""Where a run came from: its commit, branch, parent commits and commit time, and the CI job
that ran it, with the link to that job.

Read from git where the project is a repository (``git -C project``: an argument list, no
shell, a timeout), then overridden by what the CI says, because a CI checkout is often a
detached HEAD or a merge commit the CI made: GitHub Actions, GitLab CI, and last the plain
``PYTEST_OCR_COMMIT``, ``PYTEST_OCR_BRANCH`` and ``PYTEST_OCR_RUN_URL`` any CI can set. With
neither git nor a CI's variables a run is recorded without a commit, and a note says so.

And what made its numbers: pytest-ocr's version and the versions of the packages its
scores are computed with (a scorer that changed moves a metric without any commit).
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from pathlib import Path

GIT_TIMEOUT_S = 10.0
# The packages whose code computes pytest-ocr's scores (pyproject.toml's dependencies that
# metrics/ and run/aggregate.py call): a new version of one can move a metric.
SCORERS = (
    "rapidfuzz",
    "regex",
    "numpy",
    "apted",
    "lxml",
    "markdown-it-py",
    "beautifulsoup4",
    "fuzzysearch",
    "tiktoken",
)
PLAIN = (("commit", "PYTEST_OCR_COMMIT"), ("branch", "PYTEST_OCR_BRANCH"), ("run_url", "PYTEST_OCR_RUN_URL"))


@dataclass(frozen=True)
class Provenance:
    commit: str | None = None
    branch: str | None = None
    parents: tuple[str, ...] = ()
    commit_time: str | None = None  # ISO 8601, the committer's
    ci: str | None = None  # github | gitlab
    job: str | None = None
    run_url: str | None = None
    notes: tuple[str, ...] = field(default=(), compare=False)  # why something is missing


def of(project: Path, environ: Mapping[str, str]) -> Provenance:
    """The run's provenance: git's, then the CI's variables over it."""
    found = _git(project, "HEAD")
    env = _from_ci(environ)
    commit = env.get("commit")
    if commit and commit != found.commit:  # the CI's commit: its parents and time, if git has it
        found = replace(_git(project, commit), branch=found.branch, notes=())
    found = replace(
        found,
        commit=env.get("commit") or found.commit,
        branch=env.get("branch") or found.branch,
        ci=env.get("ci"),
        job=env.get("job"),
        run_url=env.get("run_url"),
    )
    if found.commit is None:
        return replace(
            found,
            notes=(
                "no commit: the project is not a git repository (or git is missing) and no CI variable names one "
                "(GITHUB_SHA, CI_COMMIT_SHA, PYTEST_OCR_COMMIT)",
            ),
        )
    return found


def _git(project: Path, revision: str) -> Provenance:
    log = _run_git(project, "log", "-1", "--format=%H%n%P%n%cI", revision, "--")
    if log is None or len(log) < 3:
        return Provenance()
    branch = _run_git(project, "symbolic-ref", "--short", "-q", "HEAD") if revision == "HEAD" else None
    return Provenance(
        commit=log[0],
        branch=branch[0] if branch else None,
        parents=tuple(log[1].split()),
        commit_time=log[2] or None,
    )


def _run_git(project: Path, *args: str) -> list[str] | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(project), *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.splitlines() if done.returncode == 0 else None


def _from_ci(environ: Mapping[str, str]) -> dict[str, str | None]:
    def get(name: str) -> str | None:
        return environ.get(name, "").strip() or None

    found: dict[str, str | None] = {}
    if get("GITHUB_ACTIONS") == "true":
        server, repository, run = get("GITHUB_SERVER_URL"), get("GITHUB_REPOSITORY"), get("GITHUB_RUN_ID")
        found = {
            "ci": "github",
            "commit": get("GITHUB_SHA"),
            # a pull request's run: its head branch (GITHUB_REF_NAME is "123/merge")
            "branch": get("GITHUB_HEAD_REF") or get("GITHUB_REF_NAME"),
            "job": get("GITHUB_JOB"),
            "run_url": f"{server}/{repository}/actions/runs/{run}" if server and repository and run else None,
        }
    elif get("GITLAB_CI") == "true":
        found = {
            "ci": "gitlab",
            "commit": get("CI_COMMIT_SHA"),
            "branch": get("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME") or get("CI_COMMIT_REF_NAME"),
            "job": get("CI_JOB_NAME"),
            "run_url": get("CI_JOB_URL") or get("CI_PIPELINE_URL"),
        }
    for key, name in PLAIN:
        if get(name):
            found[key] = get(name)
    return found


def scorer_versions() -> dict[str, str]:
    """The installed version of each scoring package (none: not installed)."""
    versions = {}
    for name in SCORERS:
        try:
            versions[name] = package_version(name)
        except PackageNotFoundError:
            continue
    return versions
