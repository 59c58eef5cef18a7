"""Errors name files as reports do, relative to the project: a run whose engine fails,
whose image and ground truth do not exist, whose engine is declared wrong and one of
whose case files is invalid writes no path of this machine's project directory into
any output (terminal, JUnit XML, JSON, HTML, results directory, GitHub annotations and
step summary), serially and on pytest-xdist workers."""

from __future__ import annotations

import json
import os
import shutil
import stat

import pytest
from conftest import DATA

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

FAILING = '#!/bin/sh\necho "cannot read $1" >&2\nexit 3\n'
SUITE = """engines:
  failing: {type: command, argv: ["./failing.sh", "{image}"]}
  misplaced: {type: command, argv: ["./failing.sh", "{image}"], cwd: nowhere}
cases:
  - {id: engine-fails, image: img/page.jpg, expected: {text: x}, engine: failing}
  - {id: no-image, image: img/absent.jpg, expected: {text: x}, engine: tesseract}
  - {id: no-truth, image: img/page.jpg, expected: {text_file: truth/absent.txt}, engine: tesseract}
  - {id: bad-engine, image: img/page.jpg, expected: {text: x}, engine: misplaced}
"""
INVALID = "cases:\n  - {id: c, image: img/page.jpg, expected: {text: x}, thresholds: {cerr: 0.1}}\n"

# What each error says, as reports name the files (the messages' own words otherwise).
EXPECTED = {
    "engine-fails": "command './failing.sh' on img/page.jpg exited with code 3; stderr:\ncannot read img/page.jpg",
    "no-image": "image not found: img/absent.jpg (case no-image at s.ocr.yaml:6)",
    "no-truth": "ground truth file not found: truth/absent.txt (case no-truth at s.ocr.yaml:7)",
    "bad-engine": "command engine 'misplaced' (declared at s.ocr.yaml:3): option 'cwd': directory nowhere does not "
    "exist",
}

# The terminal lines that say where this machine's files are, for whoever sits at it:
# pytest's own header and JUnit note, and pytest-ocr's notes of the files it wrote.
WHERE_FILES_ARE = ("rootdir: ", "configfile: ", "- generated xml file: ", "OCR report: ", "OCR HTML report: ")
WHERE_FILES_ARE += ("OCR results: ", "GitHub step summary: ")


@pytest.mark.parametrize("workers", [None, "2"])
def test_no_output_names_the_machines_project_directory(pytester, monkeypatch, workers):
    root = pytester.path
    (root / "img").mkdir()
    shutil.copy(DATA / "receipts" / "sroie_359.jpg", root / "img" / "page.jpg")
    script = root / "failing.sh"
    script.write_text(FAILING, encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    pytester.makeini("[pytest]\n")
    pytester.makefile(".ocr.yaml", s=SUITE, invalid=INVALID)
    (root / "out").mkdir()
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(root / "out" / "step-summary.md"))
    monkeypatch.setenv("GITHUB_WORKSPACE", str(root))
    outputs = ["--ocr-report=out/r.json", "--ocr-html=out/r.html", "--ocr-results-dir=out/results"]
    parallel = ["-n", workers] if workers else []
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "no:randomly", "--junitxml=out/junit.xml", *outputs, *parallel
    )
    result.assert_outcomes(errors=5)

    # the errors happened and say what they said before, with the files named relatively
    report = json.loads((root / "out" / "r.json").read_text(encoding="utf-8"))
    assert report["run"]["workers"] == (int(workers) if workers else 0)
    errors = {r["case"]: r["error"] for r in report["results"]}
    assert {case: errors[case] for case in EXPECTED} == EXPECTED
    assert errors["invalid-case-file"].startswith("invalid.ocr.yaml: 2 problems\n  invalid.ocr.yaml:2: ")
    terminal = result.stdout.str()
    for message in EXPECTED.values():
        assert message.splitlines()[0] in terminal

    # and no output names the project directory
    machine = {str(root), str(root.resolve())}
    files = [path for path in sorted((root / "out").rglob("*")) if path.is_file()]
    assert {path.relative_to(root / "out").parts[0] for path in files} == {
        "r.json", "r.html", "results", "junit.xml", "step-summary.md"
    }  # fmt: skip
    found = [
        (os.fspath(path.relative_to(root)), line)
        for path in files
        for line in path.read_text(encoding="utf-8").splitlines()
        if any(directory in line for directory in machine)
    ]
    found += [
        ("terminal", line)
        for line in result.outlines + result.errlines
        if any(directory in line for directory in machine) and not any(w in line for w in WHERE_FILES_ARE)
    ]
    assert not found, found
    annotations = [line for line in result.outlines if line.startswith("::error ")]
    assert len(annotations) == 5 and all("file=s.ocr.yaml" in a or "file=invalid.ocr.yaml" in a for a in annotations)
