"""git, asked about the project's commits, and the commits and ref names that reach it.

A commit or a branch name from a CI's variables, ``PYTEST_OCR_*`` or an option is text from
outside: given to git as it is, ``--output=FILE`` was read as an option and made ``git log``
write FILE. So each is checked before it reaches git or the store (``check``): a commit id
(4 to 64 hex digits, as git abbreviates them and as SHA-1 and SHA-256 spell them whole) or a
ref name that ``git check-ref-format --branch`` accepts, and no longer than the store keeps;
anything else is refused in one line naming where it came from. And every call puts
``--end-of-options`` before the values it passes (``run_git``), so that git reads none of them
as an option even if a check missed one.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

from ..errors import OcrError, shortened

GIT_TIMEOUT_S = 10.0
COMMIT_ID = re.compile(r"[0-9a-fA-F]{4,64}")
MAX_REF = 255  # the store's branch column
# What git check-ref-format refuses anywhere in a name (besides control characters).
_REFUSED = set(" ~^:?*[\\")
EXPECTED_COMMIT = "a commit id (4 to 64 hex digits) or a ref name git accepts"
EXPECTED_BRANCH = "a branch name git accepts"


class RefError(OcrError):
    """A commit or a ref name that is neither a commit id nor a name git accepts: one line."""


def is_commit_id(value: str) -> bool:
    return COMMIT_ID.fullmatch(value) is not None


def ref_problem(name: str) -> str | None:
    """Why git would not take ``name`` as a branch name (the rules of ``git check-ref-format
    --branch``, and a printable one), or None."""
    if not name:
        return "it is empty"
    if len(name) > MAX_REF:
        return f"it is longer than {MAX_REF} characters"
    if name.startswith("-"):
        return "it starts with '-', as an option does"
    if any(c in _REFUSED or ord(c) < 0x20 or ord(c) == 0x7F for c in name):
        return "it holds a space, a control character or one of ~^:?*[\\"
    if not name.isprintable():
        return "it holds a character that is not printable"
    if name == "@" or "@{" in name:
        return "it is '@' or holds '@{'"
    if ".." in name or "//" in name or name.startswith("/") or name.endswith(("/", ".")):
        return "it holds '..' or '//', or starts or ends with '/', or ends with '.'"
    if any(part.startswith(".") or part.endswith(".lock") for part in name.split("/")):
        return "a part of it starts with '.' or ends with '.lock'"
    return None


def check(value: str, source: str, commit: bool = True) -> str:
    """``value`` as given when it is a commit id (``commit``) or a ref name git accepts; else
    RefError naming ``source`` (the variable or option it came from) and what was expected."""
    if commit and is_commit_id(value):
        return value
    problem = ref_problem(value)
    if problem is None:
        return value
    expected = EXPECTED_COMMIT if commit else EXPECTED_BRANCH
    raise RefError(f"{source}: expected {expected}, not {shortened(value, 60)!r} ({problem})")


def resolve(project: Path, value: str, source: str) -> str:
    """The commit ``value`` names, as git's whole id: a checked commit id or ref name that git
    resolves in ``project``, else a commit id as given (lowercase; a shallow clone may not have
    it). RefError for anything else, naming ``source``."""
    check(value, source)
    found = run_git(project, "rev-parse", "--verify", "-q", revisions=[f"{value}^{{commit}}"])
    if found and is_commit_id(found[0]):
        return found[0]
    if is_commit_id(value):
        return value.lower()
    raise RefError(f"{source}: {shortened(value, 60)!r} is not a commit id, and git finds no commit it names")


def run_git(project: Path, *options: str, revisions: Sequence[str] = (), paths: bool = False) -> list[str] | None:
    """``git -C PROJECT OPTIONS --end-of-options REVISIONS`` (then ``--`` with ``paths``: no
    path follows): its lines, or None when git is missing, fails or takes longer than
    GIT_TIMEOUT_S. An argument list, no shell; nothing after ``--end-of-options`` is an option."""
    try:
        done = subprocess.run(
            ["git", "-C", str(project), *options, "--end-of-options", *revisions, *(["--"] if paths else [])],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.splitlines() if done.returncode == 0 else None
