"""pytest loads pytest-ocr in every session of an environment it is installed in: a
session without OCR case files must not pay for loading cases, engines, metrics or
outputs (benchmarks/bench_plugin_import.py measures what it does pay)."""

from __future__ import annotations

import json
import os
import shutil
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
    "scipy",  # OmniDocBench's scoring (the omnidocbench extra): only when a case uses its metrics
    "pylatexenc",
    "sqlalchemy",  # the history store's (pytest_ocr/history/): only with --ocr-history
    "psycopg",
    "pytest_ocr.history.store",
    "pytest_ocr.engines",  # its registry reads every installed distribution's entry points
    "pytest_ocr.metrics",
    "pytest_ocr.cases.loader",
    "pytest_ocr.scoring.facts",
    "pytest_ocr.run.result",
    "pytest_ocr.run.record",
    "pytest_ocr.report.outputs",
)

# What a suite scored by the text metrics alone does not need: each metric family's module
# (metrics/adapters_*.py) and its libraries are imported when a case first uses one of its
# metrics (metrics/registry.py); jsonschema when a case file is invalid or a stored report is read;
# the fact checks and their parsers when a case has facts to check.
OTHER_METRIC_FAMILIES = (
    "bs4",
    "lxml",
    "fuzzysearch",
    "pytest_ocr.metrics.facts.check",
    "markdown_it",
    "apted",
    "jsonschema",
    "tiktoken",
    "regex",
    "pytest_ocr.metrics.adapters_tables",
    "pytest_ocr.metrics.adapters_output",
    "pytest_ocr.metrics.teds",
    "pytest_ocr.metrics.markdown_text",
    "scipy",
    "pylatexenc",
    "pytest_ocr.metrics.adapters_omnidocbench",
    "pytest_ocr.metrics.omnidocbench.clean",
    "pytest_ocr.metrics.omnidocbench.match",
)
LINE_IMAGE = (
    Path(__file__).parent.parent / "example_suite" / "data" / "lines" / "archiscribe_bub_gb_ZrE5AAAAcAAJ_ceb5e954.png"
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


def _heavy(modules: list[str], heavy: tuple[str, ...] = HEAVY) -> list[str]:
    return [m for m in modules if any(m == h or m.startswith(h + ".") for h in heavy)]


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


def test_a_suite_scored_by_text_metrics_imports_no_other_metric_family(tmp_path: Path) -> None:
    shutil.copyfile(LINE_IMAGE, tmp_path / "line.png")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (tmp_path / "conftest.py").write_text(DUMP_MODULES, encoding="utf-8")
    (tmp_path / "preds.csv").write_text("image,text\nline.png,Tbe quick brown fox\n", encoding="utf-8")
    (tmp_path / "line.ocr.yaml").write_text(
        "engines: {stored: {type: predictions, path: preds.csv}}\n"
        "defaults: {engine: stored, metrics: [cer, wer, char_accuracy, token_f1, ser], thresholds: {cer: < 0.5}}\n"
        "cases: [{id: line, image: line.png, expected: {text: The quick brown fox}}]\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--ocr-report", "report.json"],
        cwd=tmp_path,
        env=_environment(),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    scored = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))["results"][0]["metrics"]
    assert scored["cer"] == 1 / 19 and set(scored) >= {"wer", "char_accuracy", "token_f1", "ser"}
    modules = json.loads((tmp_path / "modules.json").read_text(encoding="utf-8"))
    assert "pytest_ocr.metrics.adapters_text" in modules  # the text family was loaded to score
    assert _heavy(modules, OTHER_METRIC_FAMILIES) == []
