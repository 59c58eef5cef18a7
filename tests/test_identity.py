"""An item's key does not move with pytest's rootdir: a baseline outside the project
matches the same items whichever rootdir pytest chose; a baseline that matches nothing
fails the gating and says so; one that matches few warns."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA, SIDECAR_ENGINE

from pytest_ocr.run.identity import project_dir, relative

pytestmark = pytest.mark.slow

# No ini file anywhere: pytest's rootdir is the common ancestor of the path-like arguments.
SUITE = """engines: {fake: {type: python, function: "sidecar_engine:read"}}
defaults: {engine: fake, thresholds: {cer: "< 0.5"}}
cases:
"""


def project(root: Path, outputs: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "sidecar_engine.py").write_text(SIDECAR_ENGINE, encoding="utf-8")
    lines = []
    for name, text in outputs.items():
        shutil.copy(DATA / "pages" / "tess_phototest.tif", root / f"{name}.tif")
        (root / f"{name}.ocr.txt").write_text(text, encoding="utf-8")
        lines.append(f"  - {{id: {name}, image: {name}.tif, expected: {{text: hello world}}}}")
    (root / "s.ocr.yaml").write_text(SUITE + "\n".join(lines) + "\n", encoding="utf-8")
    return root


def pytest_in(root: Path, *args: str) -> tuple[int, str]:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:hypothesispytest",
            "--ocr-no-cache",
            *args,
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return proc.returncode, proc.stdout + proc.stderr


@pytest.fixture
def places(tmp_path):
    root = project(tmp_path / "work" / "project", {"a": "hello world", "b": "hello world", "c": "hello world"})
    artifacts = tmp_path / "ci" / "artifacts"
    artifacts.mkdir(parents=True)
    return root, artifacts


def test_an_outside_baseline_matches_the_same_items_whichever_the_rootdir(places):
    root, artifacts = places
    baseline = artifacts / "main.json"
    code, out = pytest_in(root, f"--ocr-report={baseline}")
    assert code == 0, out
    (root / "b.ocr.txt").write_text("hello wXrld", encoding="utf-8")  # a regression within the threshold
    outside = artifacts.parent.parent
    keys = {}
    for rootdir in ([], [f"--rootdir={outside}"]):
        code, out = pytest_in(root, f"--ocr-baseline={baseline}", *rootdir, "--ocr-report=head.json", "-v")
        assert code == 1, out  # b got worse than the baseline: failed
        assert "vs baseline" in out and "3 of 3 items found their record" in out, out
        assert "fake: 3 compared, 0 new, 1 regressed" in out
        assert f"rootdir: {outside if rootdir else root}\n" in out
        keys[bool(rootdir)] = [r["key"] for r in json.loads((root / "head.json").read_text())["results"]]
    # the node ids moved with the rootdir; the keys did not
    assert keys[True] == keys[False] == ["s.ocr.yaml::a[fake]", "s.ocr.yaml::b[fake]", "s.ocr.yaml::c[fake]"]
    # given as a separate token, pytest takes the path for a test path and moves the rootdir
    # before pytest-ocr's options are known: a usage error (tests/test_argv.py holds the rest)
    code, out = pytest_in(root, "--ocr-baseline", str(baseline))
    assert code == 4 and f"write --ocr-baseline={baseline}" in out, out
    compared = subprocess.run(
        [sys.executable, "-m", "pytest_ocr.cli", "compare", str(baseline), "head.json", "--fail-on", "cer:+0.05"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert compared.returncode == 1 and "items: 3 in both, 0 new, 0 removed" in compared.stdout


def test_a_baseline_that_matches_no_item_fails_the_gating_and_says_so(places, tmp_path):
    root, artifacts = places
    other = project(tmp_path / "other", {"x": "hello world", "y": "hello world"})
    code, out = pytest_in(other, f"--ocr-report={artifacts / 'other.json'}")
    assert code == 0, out
    code, out = pytest_in(root, f"--ocr-baseline={artifacts / 'other.json'}", "--ocr-report=r.json")
    assert code == 1, out
    assert "ocr-gates::baseline matches this run - " in out  # a failed test of its own
    assert "none of the 3 items found its record in" in out and "(2 records), so nothing was compared" in out
    report = json.loads((root / "r.json").read_text())
    assert [g["name"] for g in report["gates"] if not g["passed"]] == ["baseline matches this run"]
    assert report["baseline"]["matched"] == 0 and report["baseline"]["current"] == 3
    # compare says the same of the two reports, and fails when it has rules to check
    compared = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest_ocr.cli",
            "compare",
            str(artifacts / "other.json"),
            "r.json",
            "--fail-on",
            "cer:+0.05",
        ],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert compared.returncode == 1
    assert "warning: no item of HEAD (3 items) is in BASE (2 items)" in compared.stdout
    assert "[items in both] no item is in both reports, so no rule compared anything" in compared.stdout


def test_a_baseline_that_matches_few_items_warns_with_the_share(places):
    root, artifacts = places
    code, out = pytest_in(
        root,
        "--deselect",
        "s.ocr.yaml::b[fake]",
        "--deselect",
        "s.ocr.yaml::c[fake]",
        f"--ocr-report={artifacts / 'one.json'}",
    )
    assert code == 0, out
    code, out = pytest_in(root, f"--ocr-baseline={artifacts / 'one.json'}")
    assert code == 0, out
    assert "warning: only 1 of 3 items (33%) found their record in the baseline" in out
    code, out = pytest_in(root, f"--ocr-baseline={artifacts / 'one.json'}", "--ocr-baseline-min-match", "0.3")
    assert code == 0 and "warning: only" not in out
    compared = subprocess.run(
        [sys.executable, "-m", "pytest_ocr.cli", "compare", str(artifacts / "one.json"), str(artifacts / "one.json")],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert compared.returncode == 0 and "warning" not in compared.stdout


def test_the_project_directory(tmp_path):
    (tmp_path / "repo" / "sub" / "deeper").mkdir(parents=True)
    (tmp_path / "repo" / "pyproject.toml").write_text("")
    assert project_dir(None, tmp_path / "repo" / "sub" / "deeper") == tmp_path / "repo"
    assert project_dir(tmp_path / "repo" / "sub" / "tox.ini", tmp_path) == tmp_path / "repo" / "sub"
    assert relative(tmp_path / "repo" / "s.ocr.yaml", tmp_path / "repo") == "s.ocr.yaml"
    assert relative(Path("/elsewhere/s.ocr.yaml"), tmp_path / "repo") == "/elsewhere/s.ocr.yaml"
