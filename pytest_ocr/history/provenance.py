"""Where a run came from: its commit, branch, parent commits and commit time, and the CI job
that ran it, with the link to that job.

Read from git where the project is a repository (``git -C project``: an argument list, no
shell, a timeout), then overridden by what the CI says, because a CI checkout is often a
detached HEAD or a merge commit the CI made: GitHub Actions, GitLab CI, and last the plain
``PYTEST_OCR_COMMIT``, ``PYTEST_OCR_BRANCH`` and ``PYTEST_OCR_RUN_URL`` any CI can set. With
neither git nor a CI's variables a run is recorded without a commit, and a note says so.
A variable's value is text from outside: a commit must be a commit id or a ref name git
accepts (recorded as the commit id git resolves it to), a branch a ref name, the job's
address an http(s) one (git.py); anything else is refused in one line naming the variable.

And what made its numbers: pytest-ocr's version and the versions of the packages its
scores are computed with (a scorer that changed moves a metric without any commit).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from pathlib import Path
from urllib.parse import urlsplit

from ..errors import OcrError, shortened
from .git import RefError, check, is_commit_id, resolve, run_git

MAX_RUN_URL = 1000  # the store's run_url column
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


class ProvenanceError(OcrError):
    """A CI variable whose value cannot be the run's commit, branch or job address: one line."""


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
    """The run's provenance: git's, then the CI's variables over it. ProvenanceError (one line,
    naming the variable) for a commit, branch or address that is not one (git.py)."""
    env = _from_ci(environ)
    commit, branch, run_url = env.get("commit"), env.get("branch"), env.get("run_url")
    try:
        if commit:
            commit = resolve(project, commit, _named(environ, "commit"))
        if branch:
            check(branch, _named(environ, "branch"), commit=False)
    except RefError as exc:
        raise ProvenanceError(str(exc)) from None
    if run_url:  # GitHub's is made of three variables, unless PYTEST_OCR_RUN_URL gives it
        composed = env.get("ci") == "github" and not _get(environ, "PYTEST_OCR_RUN_URL")
        check_run_url(run_url, GITHUB_RUN_URL if composed else _named(environ, "run_url"))
    found = _git(project, "HEAD")
    if commit and commit != found.commit:  # the CI's commit: its parents and time, if git has it
        found = replace(_git(project, commit), branch=found.branch, notes=())
    found = replace(
        found,
        commit=commit or found.commit,
        branch=branch or found.branch,
        ci=env.get("ci"),
        job=env.get("job"),
        run_url=run_url,
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
    log = run_git(project, "log", "-1", "--format=%H%n%P%n%cI", revisions=[revision], paths=True)
    if log is None or len(log) < 3 or not is_commit_id(log[0]):
        return Provenance()
    branch = run_git(project, "symbolic-ref", "--short", "-q", revisions=["HEAD"]) if revision == "HEAD" else None
    return Provenance(
        commit=log[0],
        branch=branch[0] if branch else None,
        parents=tuple(log[1].split()),
        commit_time=log[2] or None,
    )


# Each value of the provenance a CI's variables give, by the variable it is read from: the
# first one set wins, the plain PYTEST_OCR_* over the CI's own.
GITHUB = {"commit": ("GITHUB_SHA",), "branch": ("GITHUB_HEAD_REF", "GITHUB_REF_NAME"), "job": ("GITHUB_JOB",)}
GITLAB = {
    "commit": ("CI_COMMIT_SHA",),
    "branch": ("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", "CI_COMMIT_REF_NAME"),
    "job": ("CI_JOB_NAME",),
    "run_url": ("CI_JOB_URL", "CI_PIPELINE_URL"),
}
# The run's address under GitHub, as a message names it
GITHUB_RUN_URL = "GITHUB_SERVER_URL/GITHUB_REPOSITORY/actions/runs/GITHUB_RUN_ID"


def _ci(environ: Mapping[str, str]) -> tuple[str | None, dict[str, tuple[str, ...]]]:
    """The CI the run is in, and which variables give each value there."""
    if _get(environ, "GITHUB_ACTIONS") == "true":
        return "github", GITHUB
    if _get(environ, "GITLAB_CI") == "true":
        return "gitlab", GITLAB
    return None, {}


def _named(environ: Mapping[str, str], key: str) -> str:
    """The variable the value ``key`` was read from (for a message)."""
    _, variables = _ci(environ)
    plain = dict(PLAIN)[key]
    return next((name for name in (plain, *variables.get(key, ())) if _get(environ, name)), plain)


def _get(environ: Mapping[str, str], name: str) -> str | None:
    return environ.get(name, "").strip() or None


def _from_ci(environ: Mapping[str, str]) -> dict[str, str | None]:
    """What the CI's variables say, as they say it (``of`` checks each value)."""
    ci, variables = _ci(environ)
    found: dict[str, str | None] = {"ci": ci} if ci else {}
    for key, names in variables.items():
        found[key] = next((value for name in names if (value := _get(environ, name))), None)
    if ci == "github":
        server, repository, run = (_get(environ, f"GITHUB_{n}") for n in ("SERVER_URL", "REPOSITORY", "RUN_ID"))
        found["run_url"] = f"{server}/{repository}/actions/runs/{run}" if server and repository and run else None
    for key, name in PLAIN:
        if _get(environ, name):
            found[key] = _get(environ, name)
    return found


def check_run_url(url: str, source: str) -> str:
    """A CI job's address as a link can hold it: http(s) with a host, no space or control
    character, at most MAX_RUN_URL characters; ProvenanceError naming ``source`` otherwise
    (``javascript:...`` is never a link in any view)."""
    try:
        parts = urlsplit(url)
    except ValueError:  # an unclosed [IPv6 host
        parts = urlsplit("")
    if (
        parts.scheme.lower() not in ("http", "https")
        or not parts.netloc
        or len(url) > MAX_RUN_URL
        or any(c.isspace() for c in url)
        or not url.isprintable()
    ):
        raise ProvenanceError(
            f"{source}: expected an http(s) address of at most {MAX_RUN_URL} characters without spaces, "
            f"not {shortened(url, 60)!r}"
        )
    return url


def scorer_versions() -> dict[str, str]:
    """The installed version of each scoring package (none: not installed)."""
    versions = {}
    for name in SCORERS:
        try:
            versions[name] = package_version(name)
        except PackageNotFoundError:
            continue
    return versions
