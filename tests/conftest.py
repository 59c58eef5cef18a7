from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, settings

from pytest_ocr import redaction
from pytest_ocr.run.stored import report_schema

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "example_suite" / "data"

# An engine users write in plain Python: reads the "OCR output" from a side-car
# file next to the image, so plugin tests control exactly what the engine returns
# while running the real `python` engine type end to end.
SIDECAR_ENGINE = """
from pathlib import Path

def read(image_path):
    sidecar = Path(image_path).with_suffix(".ocr.txt")
    if not sidecar.exists():
        raise RuntimeError("engine crashed on " + Path(image_path).name)
    return sidecar.read_text(encoding="utf-8")
"""

ENGINE_CONFIG = """
engines:
  fake:
    type: python
    function: sidecar_engine:read
defaults:
  engine: fake
"""


# pythonpath (not sys.path tweaks) so that pytest-xdist workers find the engine too.
INI = "[pytest]\npythonpath = .\nocr_config = ocr-config.yaml\n"

# Property tests that must give the same examples every run (a failure is reproducible
# without hypothesis's database) and may take their time on large texts.
PROPERTY = settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def levenshtein(a, b) -> int:
    """Levenshtein distance by the textbook single-row dynamic programme (the one of
    cer-review-tibetan.md §2.1): an oracle independent of rapidfuzz."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


@pytest.fixture(autouse=True)
def _no_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sessions run by tests have no terminal width unless a test gives one (pytest-xdist
    workers have COLUMNS=80 in their environment, and GNU readline, once imported, puts
    COLUMNS in the process's own environment, which os.environ does not show but
    subprocesses inherit)."""
    monkeypatch.delenv("COLUMNS", raising=False)
    os.unsetenv("COLUMNS")


@pytest.fixture(autouse=True, scope="session")
def _not_an_xdist_worker() -> Iterator[None]:
    """A session a test starts is not a pytest-xdist worker, though the test may run in one:
    inherited, PYTEST_XDIST_WORKER would switch off the checks a controller makes (the
    command line's paths, pytest_ocr/plugin/argv.py) and the suite would pass under -n and
    fail serially. Session-scoped, so that module-scoped fixtures (sessions, workers and
    engines built once per module) are made without them too: an engine's thread budget
    follows PYTEST_XDIST_WORKER_COUNT."""
    with pytest.MonkeyPatch.context() as patch:
        for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
            patch.delenv(name, raising=False)
        yield


@pytest.fixture(autouse=True)
def _no_secrets_of_other_tests() -> Iterator[None]:
    """Engines register their secrets for the process (pytest_ocr/redaction.py); one test's
    are not another's."""
    yield
    redaction.forget()


@pytest.fixture
def suite(pytester: pytest.Pytester):
    """A pytester dir with the sidecar engine as default and helpers to add cases."""
    pytester.makepyfile(sidecar_engine=SIDECAR_ENGINE)
    pytester.makefile(".yaml", **{"ocr-config": ENGINE_CONFIG})
    pytester.makeini(INI)
    return Suite(pytester)


class Suite:
    def __init__(self, pytester: pytest.Pytester):
        self.pytester = pytester
        self.path = pytester.path

    def image(self, name: str, ocr_text: str | None, source: str = "pages/tess_phototest.tif") -> str:
        """Copy a real image under ``name`` and set what the sidecar engine will 'read'."""
        target = self.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DATA / source, target)
        if ocr_text is not None:
            target.with_suffix(".ocr.txt").write_text(ocr_text, encoding="utf-8")
        return name

    def write(self, name: str, text: str) -> Path:
        path = self.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path


def run(suite: Suite, *args: str) -> pytest.RunResult:
    """A pytest session in the suite's directory, in this process (pytester)."""
    return suite.pytester.runpytest("-p", "no:cacheprovider", "-p", "no:hypothesispytest", *args)


def load_report(suite: Suite, name: str = "report.json") -> dict:
    """The suite's JSON report, valid against its schema."""
    report = json.loads((suite.path / name).read_text(encoding="utf-8"))
    jsonschema.validate(report, report_schema())
    return report


requires_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None, reason="the tesseract binary is not installed"
)


@dataclass
class Bounded:
    """A pytest session (or a `pytest-ocr merge`) run in a subprocess under a memory limit and a timeout."""

    returncode: int
    output: str  # stdout and stderr together
    seconds: float
    max_rss_mb: float  # the peak resident memory of the session (its largest process)

    def report(self, root: Path, name: str = "report.json") -> dict:
        """The JSON report it wrote, checked against the shipped schema."""
        document = json.loads((root / name).read_text(encoding="utf-8"))
        jsonschema.validate(document, report_schema())
        return document


# Runs the session (python -m ARGV[2:]) and writes its peak resident memory (KiB) to the file named by argv[1].
# A process started from this test process would count this process's resident size as
# its own peak (Linux keeps the high-water mark of the memory an exec replaces, and a fork
# is a copy of this process); started from this small launcher, it counts its own.
LAUNCHER = """
import os, subprocess, sys
proc = subprocess.Popen([sys.executable, "-m", *sys.argv[2:]])
_, status, usage = os.wait4(proc.pid, 0)
with open(sys.argv[1], "w") as peak:
    peak.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


PYTEST = ("pytest", "-p", "no:cacheprovider", "-p", "no:hypothesispytest")
MERGE = ("pytest_ocr.cli", "merge")  # `pytest-ocr merge`


def run_bounded(
    root: Path,
    *args: str,
    memory_mb: int = 1024,
    timeout: float = 120,
    env: dict | None = None,
    command: tuple[str, ...] = PYTEST,
    prefix: tuple[str, ...] = (),
) -> Bounded:
    """``python -m pytest ARGS`` (``python -m COMMAND ARGS`` with ``command``, e.g. MERGE) in
    ``root`` with its address space capped at ``memory_mb`` (RLIMIT_AS: an allocation beyond
    it fails instead of swapping the machine) and killed after ``timeout`` seconds (the test
    then fails, saying so). For hostile-input tests: they assert the time and memory it took
    stayed bounded, not only its outcome. ``prefix``: a program the launcher is run by (one
    that sets up a read-only mount, then runs the rest of its arguments)."""
    limit = memory_mb * 1024 * 1024

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    peak = root / ".peak-rss-kib"
    start = time.monotonic()
    proc = subprocess.Popen(
        [*prefix, sys.executable, "-c", LAUNCHER, str(peak), *command, *args],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=cap,
        env={**os.environ, **(env or {})},
        start_new_session=True,  # the launcher, the session and what it starts: one group
    )
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
        pytest.fail(f"the session did not end within {timeout} s:\n{output[-3000:]}")
    seconds = time.monotonic() - start
    assert peak.exists(), f"the session ended without its launcher noting its memory:\n{output[-3000:]}"
    return Bounded(proc.returncode, output, seconds, int(peak.read_text()) / 1024)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[object]:
    """A throwaway PostgreSQL server for this test process (tests/helpers/postgres.py)."""
    from helpers.postgres import server

    with server() as running:
        yield running


# The history store's backends: every history test runs on SQLite and on a real PostgreSQL server.
HISTORY_BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)]


@pytest.fixture(params=HISTORY_BACKENDS)
def history_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty history store's URL: an SQLite file, or a database on the PostgreSQL server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store' / 'history.sqlite'}"
    return request.getfixturevalue("postgres_server").new_database()
