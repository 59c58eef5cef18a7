"""A pytest-xdist worker killed mid-run loses only its in-flight item: every other item
runs (on the worker xdist starts in its place), the summary and the report hold them
all, and the lost item is an error in the report, not a silent gap."""

from __future__ import annotations

import json
import subprocess
import sys

import jsonschema
import pytest
from conftest import DATA

from pytest_ocr.run.stored import report_schema

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

KILLER_ENGINE = """
import os
import signal
from pathlib import Path

def read(image_path):
    if Path(image_path).stem == "kill":
        # the worker process dies here, as on an OOM kill or a segfault in a native engine
        # (os._exit is refused in pytest's process: tests/test_hostile_endings.py)
        os.kill(os.getpid(), signal.SIGKILL)
    return Path(image_path).with_suffix(".ocr.txt").read_text(encoding="utf-8")
"""


def test_a_killed_worker_loses_only_its_item(pytester):
    pytester.makepyfile(killer=KILLER_ENGINE)
    pytester.makeini("[pytest]\npythonpath = .\n")
    image = (DATA / "pages" / "tess_phototest.tif").read_bytes()
    cases = []
    for name in [f"img{i}" for i in range(8)] + ["kill"]:
        (pytester.path / f"{name}.tif").write_bytes(image)
        (pytester.path / f"{name}.ocr.txt").write_text("hello world")
        cases.append(f"  - {{id: {name}, image: {name}.tif, expected: {{text: hello world}}}}")
    pytester.makefile(
        ".ocr.yaml",
        suite="""
engines: {killer: {type: python, function: "killer:read"}}
defaults: {engine: killer, thresholds: {cer: "== 0"}}
aggregate: {cer.micro: "== 0"}
cases:
"""
        + "\n".join(cases)
        + "\n",
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "--ocr-report", "report.json")
    assert result.ret == 1
    out = result.stdout.str()
    assert "crashed while running" in out and "kill[killer]" in out
    report = json.loads((pytester.path / "report.json").read_text())
    outcomes = {r["case"]: r["outcome"] for r in report["results"]}
    assert outcomes == {**{f"img{i}": "passed" for i in range(8)}, "kill": "error"}
    lost = next(r for r in report["results"] if r["case"] == "kill")
    assert lost["error"].startswith("no result: ") and "crashed" in lost["error"]
    # located at its case's line (what the worker said when the item started), keyed like the others
    assert (lost["key"], lost["file"], lost["line"], lost["engine"]) == (
        "suite.ocr.yaml::kill[killer]",
        "suite.ocr.yaml",
        13,
        "killer",
    )
    assert report["summary"]["killer"]["cases"] == 9 and report["summary"]["killer"]["errors"] == 1
    # the gate still ran on the controller, over the 8 items that have a CER
    assert report["gates"][0]["passed"] and report["gates"][0]["cases"] == 8
    # the report of exactly this run is one the tools accept: the schema, compare, a baseline
    jsonschema.validate(report, report_schema())
    compared = subprocess.run(
        [sys.executable, "-m", "pytest_ocr.cli", "compare", "report.json", "report.json", "--fail-on", "errors"],
        cwd=pytester.path,
        capture_output=True,
        text=True,
    )
    assert compared.returncode == 0 and "items: 9 in both" in compared.stdout, compared.stdout + compared.stderr
    again = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--deselect", "suite.ocr.yaml::kill[killer]", "--ocr-baseline", "report.json"
    )
    assert again.ret == 0
    again.stdout.fnmatch_lines(["*vs baseline *report.json: 8 of 8 items found their record"])
