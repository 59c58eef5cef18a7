"""The example suite's text cases (lines, fraktur lines, receipts: 19 items on five engines)
as the history tests run them: every engine reads back what the real engine read once
(tests/data/golden/recognitions, as tests/test_golden_outputs.py replays the suite), so a
session takes a second or two; ``real=True`` keeps lines.ocr.yaml's real Tesseract engines.
And the sessions themselves: ``python -m pytest`` / ``pytest-ocr merge`` in a subprocess with
an environment of the test's choosing (no CI variable of the machine's leaks in). And long
histories made fast: one real run's record recorded again per generated commit through the
real ``Store.record``, with the values a test or a benchmark chooses."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
import yaml

from pytest_ocr.history.provenance import Provenance
from pytest_ocr.history.store import Store
from pytest_ocr.history.url import parse
from pytest_ocr.run.record import RunRecord

REPO = Path(__file__).resolve().parent.parent.parent
RECOGNITIONS = REPO / "tests" / "data" / "golden" / "recognitions"
TEXT_FILES = ("fraktur.ocr.yaml", "lines.ocr.yaml", "receipts.ocr.yaml")
BUILT_IN = ("tesseract", "rapidocr")  # engine types receipts.ocr.yaml names as engines without declaring them
CI_PREFIXES = ("GITHUB_", "GITLAB_", "CI_", "PYTEST_", "RUNNER_")


def text_suite(root: Path, files: tuple[str, ...] = TEXT_FILES, real: bool = False) -> Path:
    """The text cases in ``root/example_suite``, with a pytest.ini; ``root``."""
    suite = root / "example_suite"
    (suite / "data").mkdir(parents=True)
    for folder in ("lines", "receipts"):
        shutil.copytree(REPO / "example_suite" / "data" / folder, suite / "data" / folder)
    shutil.copytree(RECOGNITIONS, root / "recognitions")
    for name in files:
        document = yaml.safe_load((REPO / "example_suite" / name).read_text(encoding="utf-8"))
        if not real:
            for engine in document.get("engines") or {}:
                document["engines"][engine] = {"type": "predictions", "path": f"../recognitions/{engine}.jsonl"}
        (suite / name).write_text(yaml.safe_dump(document, allow_unicode=True, sort_keys=False), encoding="utf-8")
    project = {"engines": {n: {"type": "predictions", "path": f"recognitions/{n}.jsonl"} for n in BUILT_IN}}
    (root / "ocr-config.yaml").write_text(yaml.safe_dump(project), encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\nocr_config = ocr-config.yaml\n", encoding="utf-8")
    return root


def command_engine(root: Path, engine: str, script: str) -> None:
    """The project's ``engine`` made a command engine: ``script`` (root/reader.py) run on each image."""
    (root / "reader.py").write_text(script, encoding="utf-8")
    config = yaml.safe_load((root / "ocr-config.yaml").read_text(encoding="utf-8"))
    config["engines"][engine] = {"type": "command", "argv": [sys.executable, "reader.py", "{image}"], "version": "1"}
    (root / "ocr-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")


def clean_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This environment without any CI's or pytest's variables, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(CI_PREFIXES) and k != "CI"}
    env.update(extra or {})
    return env


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def session(root: Path, *args: str, env: Mapping[str, str] | None = None, timeout: float = 300) -> Done:
    """``python -m pytest example_suite ARGS`` in ``root``."""
    return _run(root, ["-m", "pytest", "example_suite", "-p", "no:cacheprovider", *args], env, timeout)


def merge(root: Path, *args: str, env: Mapping[str, str] | None = None, timeout: float = 300) -> Done:
    return _run(root, ["-m", "pytest_ocr.cli", "merge", *args], env, timeout)


def history(root: Path, url: str, *args: str) -> Done:
    """``pytest-ocr history ARGS --history=URL`` in ``root``, 200 columns wide."""
    return _run(root, ["-m", "pytest_ocr.cli", "history", *args, f"--history={url}"], {"COLUMNS": "200"}, 120)


def _run(root: Path, argv: list[str], env: Mapping[str, str] | None, timeout: float) -> Done:
    done = subprocess.run(
        [sys.executable, *argv],
        cwd=root,
        env=clean_environment(env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Done(done.returncode, done.stdout, done.stderr)


def git(root: Path, *args: str) -> str:
    """git in ``root`` with a fixed identity; its output, stripped."""
    env = clean_environment(
        {
            "GIT_AUTHOR_NAME": "Test",
            "GIT_AUTHOR_EMAIL": "test@example.org",
            "GIT_COMMITTER_NAME": "Test",
            "GIT_COMMITTER_EMAIL": "test@example.org",
        }
    )
    done = subprocess.run(["git", "-C", str(root), *args], env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def repository(root: Path, branch: str = "main") -> str:
    """``root`` made a git repository with everything in it committed on ``branch``; the commit."""
    git(root, "init", "-q", "-b", branch)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "suite")
    return git(root, "rev-parse", "HEAD")


def files_holding(root: Path, *secrets: str) -> list[str]:
    """Every file under ``root`` (outputs, the SQLite store aside) whose bytes hold one of ``secrets``."""
    found = []
    for path in root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            found += [f"{path}: {s}" for s in secrets if s.encode() in data]
    return found


def with_values(
    record: RunRecord,
    macro: Mapping[tuple[str, str], float],
    items: Mapping[tuple[str, str], float] | None = None,
) -> RunRecord:
    """``record`` with the macro means of ``macro`` ((engine, metric) -> value) and the item
    values of ``items`` ((key, metric) -> value) set; everything else as it was."""
    summaries = {
        engine: replace(
            s,
            metrics={
                m: replace(a, macro=macro[engine, m]) if (engine, m) in macro else a for m, a in s.metrics.items()
            },
        )
        for engine, s in record.summaries.items()
    }
    items = items or {}
    changed = {key for key, _ in items}
    results = [
        replace(r, metrics={m: items.get((r.key, m), v) for m, v in r.metrics.items()}) if r.key in changed else r
        for r in record.results
    ]
    return replace(record, summaries=summaries, results=results)


def record_runs(url: str, project: Path, records: Iterable[RunRecord], suite: str, branch: str = "main") -> list[str]:
    """Each of ``records`` recorded through ``Store.record`` as a run of ``suite`` at the next
    generated commit of ``branch``; the commits, oldest first."""
    commits = []
    with Store.open(parse(url, project)) as store:
        for i, record in enumerate(records):
            # 40 hex digits like git's, the first 12 (what the history commands show) distinct
            commits.append(hashlib.sha1(f"commit {i}".encode()).hexdigest())
            store.record(record, Provenance(commit=commits[-1], branch=branch), suite)
    return commits


def project_store(request: pytest.FixtureRequest) -> str:
    """A new history store for a module's project, by the fixture's backend parameter: the
    SQLite file beside the project (a URL relative to it), or a database on the PostgreSQL server."""
    if request.param == "sqlite":
        return "sqlite:///history.sqlite"
    return str(request.getfixturevalue("postgres_server").new_database())
