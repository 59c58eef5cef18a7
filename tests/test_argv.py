"""A pytest-ocr option's value given as a separate token is a test path to the first parse
pytest makes of its command line, before it knows plugins' options, and an existing one
outside the project moves the rootdir and drops the project's ini file (issue 26, 1).
A real project with an ini file, run in real pytest sessions, for every option that
takes a path, in both spellings."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA, requires_tesseract

from pytest_ocr.browser.chromium import find_browser

pytestmark = pytest.mark.slow

PYPROJECT = """\
[tool.pytest.ini_options]
ocr_config = "ocr.yaml"
"""
# Everything the items need is in the project's configuration: without it, the engine is unknown.
CONFIG = """\
engines:
  tess6: {type: tesseract, psm: 6}
defaults:
  normalize: {casefold: true}
  thresholds: {cer: "< 0.5"}
"""
SUITE = """\
cases:
  - {id: en, image: img/line.jpg, expected: {text_file: img/line.gt.txt}, engine: tess6}
"""
CHROMIUM = find_browser()
# these tests' own sessions are no pytest-xdist workers, also when the suite runs under -n
WITHOUT_XDIST = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST_")}


def _pytest(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**WITHOUT_XDIST, "PYTEST_ADDOPTS": "", **(env or {})},
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tmp/project (the ini file, its ocr_config, a case file, a page) beside tmp/artifacts
    (a report, as a CI job downloads it), and a directory of the project with a copy."""
    root = tmp_path_factory.mktemp("argv")
    project = root / "project"
    (project / "img").mkdir(parents=True)
    shutil.copy(DATA / "lines" / "rapidocr_en_rec.jpg", project / "img" / "line.jpg")
    shutil.copy(DATA / "lines" / "rapidocr_en_rec.gt.txt", project / "img" / "line.gt.txt")
    (project / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (project / "ocr.yaml").write_text(CONFIG, encoding="utf-8")
    (project / "lines.ocr.yaml").write_text(SUITE, encoding="utf-8")
    for where in (root / "artifacts", project / "inside"):
        (where / "results").mkdir(parents=True)
        (where / "cache").mkdir()
    made = _pytest(project, f"--ocr-report={root / 'artifacts' / 'report.json'}")
    assert made.returncode == 0, made.stdout + made.stderr
    report = json.loads((root / "artifacts" / "report.json").read_text(encoding="utf-8"))
    assert report["engines"]["tess6"]["config"]["psm"] == 6
    shutil.copy(root / "artifacts" / "report.json", project / "inside" / "report.json")
    for where in (root / "artifacts", project / "inside"):
        (where / "report.html").write_text("", encoding="utf-8")  # an output that exists: pytest sees a path
    return project


# option, its value (a path that exists) relative to the artifacts' directory, options it needs
OPTIONS = [
    ("--ocr-report", "report.json", ()),
    ("--ocr-html", "report.html", ()),
    ("--ocr-results-dir", "results", ()),
    ("--ocr-baseline", "report.json", ()),
    ("--ocr-cache-dir", "cache", ()),
    ("--ocr-shard-durations", "report.json", ("--ocr-shard=1/1",)),
    ("--ocr-chromium", None, ()),  # the system's Chromium: a path outside any project
]


def test_every_option_that_takes_a_path_is_tested(tmp_path: Path) -> None:
    shown = _pytest(tmp_path, "--help").stdout
    paths = set(re.findall(r"^ +(--ocr-[a-z-]+)=(?:PATH|DIR|REPORT)\b", shown, re.M))
    assert paths == {option for option, _, _ in OPTIONS}


def _ran_with_the_project_configuration(result: subprocess.CompletedProcess[str], project: Path) -> None:
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"rootdir: {project}\nconfigfile: pyproject.toml\n" in result.stdout
    assert "1 passed" in result.stdout and "tess6" in result.stdout  # ocr_config's engine ran the item


@requires_tesseract
@pytest.mark.parametrize("option, name, needs", OPTIONS, ids=[o for o, _, _ in OPTIONS])
def test_a_path_outside_the_project_as_a_separate_token_stops_the_run(
    project: Path, option: str, name: str | None, needs: tuple[str, ...]
) -> None:
    outside = str(project.parent / "artifacts" / name) if name else CHROMIUM
    assert Path(outside).exists()

    separate = _pytest(project, *needs, option, outside)
    assert separate.returncode == 4, separate.stdout + separate.stderr
    assert separate.stdout == ""  # nothing collected, nothing run
    (line,) = separate.stderr.strip().splitlines()
    moved = re.fullmatch(
        f"ERROR: {option} {outside}: pytest took this path for a test path before pytest-ocr's options were "
        f"known and chose rootdir (.+) with no ini file instead of rootdir {project} with ini file "
        f"{project / 'pyproject.toml'}: write {option}={outside}",
        line,
    )
    assert moved and moved[1] != str(project), line

    joined = _pytest(project, *needs, f"{option}={outside}")
    _ran_with_the_project_configuration(joined, project)

    if name is not None:  # a separate token inside the project leaves the rootdir where it is
        inside = _pytest(project, *needs, option, f"inside/{name}")
        _ran_with_the_project_configuration(inside, project)
    else:
        tools = project / "tools"
        tools.mkdir(exist_ok=True)
        (tools / "chromium").symlink_to(CHROMIUM)
        inside = _pytest(project, option, "tools/chromium")
        _ran_with_the_project_configuration(inside, project)


@requires_tesseract
def test_the_rootdir_named_is_the_one_pytest_chose_and_the_configuration_is_lost_without_the_check(
    project: Path,
) -> None:
    """What the run would have been: a pytest-xdist worker is not checked (its controller
    was), so one shows pytest's own choice, the rootdir the error names, and the
    project's engine unknown."""
    outside = str(project.parent / "artifacts" / "report.json")
    checked = _pytest(project, "--ocr-baseline", outside)
    assert checked.returncode == 4
    rootdir = re.search(r"chose rootdir (\S+) with no ini file", checked.stderr)[1]
    unchecked = _pytest(project, "--ocr-baseline", outside, env={"PYTEST_XDIST_WORKER": "gw0"})
    assert f"rootdir: {rootdir}\n" in unchecked.stdout and "configfile:" not in unchecked.stdout
    assert "unknown engine 'tess6'" in unchecked.stdout and unchecked.returncode == 1, unchecked.stdout


@requires_tesseract
def test_pytest_addopts_are_what_pytest_parsed_first_too(project: Path) -> None:
    outside = project.parent / "artifacts" / "report.json"
    result = _pytest(project, env={"PYTEST_ADDOPTS": f"--ocr-baseline {outside}"})
    assert result.returncode == 4 and result.stderr.startswith(f"ERROR: --ocr-baseline {outside}: pytest took")
    joined = _pytest(project, env={"PYTEST_ADDOPTS": f"--ocr-baseline={outside}"})
    _ran_with_the_project_configuration(joined, project)


@requires_tesseract
def test_two_options_are_named_in_one_line(project: Path) -> None:
    artifacts = project.parent / "artifacts"
    report, results = artifacts / "report.json", artifacts / "results"
    result = _pytest(project, "--ocr-report", str(report), "--ocr-results-dir", str(results))
    assert result.returncode == 4
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"ERROR: --ocr-report {report}, --ocr-results-dir {results}: pytest took these paths ")
    assert line.endswith(f"write --ocr-report={report} --ocr-results-dir={results}")


@requires_tesseract
def test_a_path_inside_the_project_beside_one_outside_can_keep_the_configuration(project: Path) -> None:
    """pytest looks for an ini file from each path given when their common ancestor has
    none: one inside the project finds the project's, and the run is the same."""
    outside = project.parent / "artifacts" / "report.json"
    result = _pytest(project, "--ocr-report", str(outside), "--ocr-html", "inside/report.html")
    _ran_with_the_project_configuration(result, project)


@requires_tesseract
def test_a_configuration_provably_the_same_runs(project: Path) -> None:
    """With the ini file named (-c), pytest's choice does not depend on the free arguments."""
    outside = str(project.parent / "artifacts" / "report.json")
    result = _pytest(project, "-c", "pyproject.toml", "--ocr-baseline", outside)
    _ran_with_the_project_configuration(result, project)
    assert "1 of 1 items found their record" in result.stdout


@requires_tesseract
def test_a_directory_of_the_project_with_its_own_ini_file_moves_the_rootdir(project: Path) -> None:
    """A directory of the project with an ini file of its own, given as a separate token, is
    where pytest looks first: the rootdir moves there, and the run stops."""
    sub = project / "sub"
    (sub / "results").mkdir(parents=True)
    (sub / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    try:
        result = _pytest(project, "--ocr-results-dir", "sub/results")
    finally:
        shutil.rmtree(sub)  # the other tests' project has one ini file
    assert result.returncode == 4, result.stdout + result.stderr
    assert f"chose rootdir {sub} with ini file {sub / 'pytest.ini'} instead of rootdir {project}" in result.stderr


@requires_tesseract
def test_a_project_without_an_ini_file_keeps_its_rootdir(tmp_path: Path, project: Path) -> None:
    """No ini file anywhere: pytest's rootdir is the invocation directory, which an outside
    path given as a separate token would move (and the cache and node ids with it)."""
    bare = tmp_path / "bare"
    shutil.copytree(project / "img", bare / "img")
    (bare / "lines.ocr.yaml").write_text("engines: {tess6: {type: tesseract, psm: 6}}\n" + SUITE, encoding="utf-8")
    (tmp_path / "out.json").write_text("", encoding="utf-8")
    result = _pytest(bare, "--ocr-report", "../out.json")
    assert result.returncode == 4, result.stdout + result.stderr
    assert f"chose rootdir {tmp_path} with no ini file instead of rootdir {bare} with no ini file" in result.stderr
    joined = _pytest(bare, "--ocr-report=../out.json")
    assert joined.returncode == 0 and f"rootdir: {bare}\n" in joined.stdout, joined.stdout + joined.stderr


@requires_tesseract
def test_pytest_xdist_workers_run_what_the_controller_checked(project: Path) -> None:
    result = _pytest(project, "-n", "2", "--ocr-baseline", "inside/report.json", "--ocr-report", "inside/report.json")
    _ran_with_the_project_configuration(result, project)
