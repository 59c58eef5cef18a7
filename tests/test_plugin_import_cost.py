"""pytest loads pytest-ocr in every session of an environment it is installed in: a
session without OCR case files must not pay for loading cases, engines, metrics or
outputs (benchmarks/bench_plugin_import.py measures what it does pay)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# What the plugin uses once there are OCR cases, none of which a session without them needs.
HEAVY = (
    "numpy",
    "lxml",
    "bs4",
    "soupsieve",
    "html5lib",
    "pypdfium2",
    "markdown_it",
    "apted",
    "PIL",
    "tiktoken",
    "rapidfuzz",
    "regex",
    "fuzzysearch",
    "yaml",
    "jsonschema",
    "jsonschema_rs",
    "defusedxml",
    "wcwidth",  # its tables: 10 ms
    "pytest_ocr.engines",  # its registry reads every installed distribution's entry points
    "pytest_ocr.metrics",
    "pytest_ocr.cases.loader",
    "pytest_ocr.scoring.facts",
    "pytest_ocr.run.result",
    "pytest_ocr.run.record",
    "pytest_ocr.report.outputs",
)

DUMP_MODULES = """
import json
import sys


def pytest_unconfigure(config):
    with open("modules.json", "w", encoding="utf-8") as f:
        json.dump(sorted(sys.modules), f)
"""

PLAIN_TESTS = """
import pytest


@pytest.mark.parametrize("n", [1, 2, 3])
def test_positive(n):
    assert n > 0


def test_fails():
    assert 1 + 1 == 3
"""


def _environment() -> dict[str, str]:
    """This environment, without what would change which plugins the session loads."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") or k == "PYTEST_OCR_CHROMIUM"}


def _heavy(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)]


def test_importing_the_plugin_imports_nothing_heavy(tmp_path: Path) -> None:
    code = "import json, sys; import pytest_ocr.plugin; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=_environment(), capture_output=True, text=True, check=True
    )
    modules = json.loads(done.stdout)
    assert "pytest_ocr.plugin.collector" in modules  # the plugin itself was imported
    assert _heavy(modules) == []


def test_a_session_without_case_files_imports_nothing_heavy(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (tmp_path / "conftest.py").write_text(DUMP_MODULES, encoding="utf-8")
    (tmp_path / "test_plain.py").write_text(PLAIN_TESTS, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA"],
        cwd=tmp_path,
        env=_environment(),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stdout + done.stderr  # the one failing test, reported as ever
    assert "1 failed, 3 passed" in done.stdout
    modules = json.loads((tmp_path / "modules.json").read_text(encoding="utf-8"))
    assert "pytest_ocr.plugin.collector" in modules  # pytest loaded the plugin
    assert _heavy(modules) == []
