"""The README's two commands are what users and CI run: CI must run the test command verbatim."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys

import pytest
from conftest import DATA, REPO
from helpers.readme import FENCE, readme
from helpers.runs import make_runs


def readme_commands() -> list[str]:
    quick_start = (REPO / "README.md").read_text(encoding="utf-8").split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", quick_start)


def test_ci_runs_the_readme_test_command_verbatim():
    example, tests = readme_commands()
    assert example.endswith("pytest example_suite") and tests.endswith("pip install '.[test]' && python -m pytest")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    body = re.search(r"readme_test_command\(\) \{\n\s*(.+?)\n\}", ci).group(1)
    assert body == tests
    assert "\nreadme_test_command\nstatus=$?" in ci  # and it is what decides the exit status


def test_both_commands_install_the_same_tesseract_packages():
    example, tests = readme_commands()
    packages = [re.search(r"apt-get install -y ([^&]+) &&", command).group(1).split() for command in (example, tests)]
    assert [p for p in packages[1] if p != "chromium"] == packages[0]


def test_ci_runs_the_linters_tox_runs():
    tox = (REPO / "tox.ini").read_text(encoding="utf-8").split("[testenv:lint]", 1)[1]
    commands = [line.strip() for line in tox.split("commands =", 1)[1].splitlines() if line.startswith("    ")]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert commands == [
        "ruff check pytest_ocr tests benchmarks",
        "ruff format --check pytest_ocr tests benchmarks",
        "mypy",
    ]
    assert "\n".join(commands) in ci and ci.index("mypy\n") < ci.index("readme_test_command\nstatus")


# -- the README as GitHub renders it -------------------------------------------------------------


def test_every_table_renders_whole():
    """A line between two rows (a paragraph slipped into a table) cuts it in two, and the
    rows after it render as text: every block of table lines must be one whole table."""
    import cmarkgfm

    text = readme()
    prose = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)  # tables in code blocks are no tables
    blocks: list[list[str]] = []
    previous = ""
    for line in prose.splitlines():
        if line.startswith("|"):
            if previous.startswith("|"):
                blocks[-1].append(line)
            else:
                blocks.append([line])
        previous = line
    html = cmarkgfm.github_flavored_markdown_to_html(text)
    tables = re.findall(r"<table>(.*?)</table>", html, re.S)
    assert len(tables) == len(blocks) > 10
    for block, table in zip(blocks, tables, strict=True):
        assert table.count("<tr>") == len(block) - 1, block[0]  # every line a row but the separator
    stray = [p for p in re.findall(r"<p>(.*?)</p>", html, re.S) if re.search(r"(^|\n)\|", p)]
    assert not stray, f"table lines rendered as text: {stray[0][:200]}"


@pytest.mark.slow
def test_every_command_the_readme_gives_to_run_is_run(tmp_path):
    """The `sh` blocks are what the README tells users to run. The Quick start's two are
    run by CI (above) and by test_example_suite; every other line is run here, for real,
    on real reports and a real page, as a user would paste it (without a shell)."""
    runnable = [(m.start(), m.group(2)) for m in FENCE.finditer(readme()) if m.group(1) == "sh"]
    quick_start = readme_commands()
    commands = [line for _, block in runnable for line in block.splitlines() if line not in quick_start]
    assert [block.strip() for _, block in runnable[:2]] == quick_start
    assert len(commands) == 8

    (tmp_path / "runs").mkdir()
    runs = make_runs(tmp_path / "runs")
    shutil.copy(runs / "base.json", tmp_path / "main.json")
    shutil.copy(runs / "head.json", tmp_path / "pr.json")
    page = DATA / "pages" / "tess_phototest.gt.txt"
    shutil.copy(page, tmp_path / "page.gt.txt")
    (tmp_path / "page.ocr.txt").write_text(page.read_text(encoding="utf-8").replace("e", "c"), encoding="utf-8")
    shutil.copytree(REPO / "example_suite", tmp_path / "example_suite")  # for score --case
    (tmp_path / "output.txt").write_text("TAN CHAY YEE\nTOTAL 9.00", encoding="utf-8")
    summary = tmp_path / "summary.md"
    for command in commands:
        command = command.split("  #", 1)[0].strip()
        command, _, target = command.partition(" >> ")
        argv = shlex.split(command)
        assert argv[0] == "pytest-ocr", command
        result = subprocess.run(
            [sys.executable, "-m", "pytest_ocr.cli", *argv[1:]],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=120,
        )
        # compare exits 1 when a --fail-on rule is violated (HEAD is worse): that is its job
        assert result.returncode in ((0, 1) if "--fail-on" in argv else (0,)), command + "\n" + result.stderr
        assert result.stdout.strip() and "Traceback" not in result.stderr, command
        if target:
            assert target == '"$GITHUB_STEP_SUMMARY"'
            summary.write_text(result.stdout, encoding="utf-8")
    assert summary.read_text(encoding="utf-8").startswith("#")  # the Markdown went where the README says


def test_the_limits_table_lists_every_limit_with_its_option_and_default():
    """Every bound on hostile input has its option and its default in the README's table."""
    from pytest_ocr.limits import DEFAULT, NAMES, OPTIONS

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("**Limits.**") : readme.index("Every error you can cause is shown")]
    for name in NAMES:
        row = re.search(rf"^\| `{OPTIONS[name]}` \| ([^|]+) \|", table, re.M)
        assert row is not None, f"{OPTIONS[name]} is not in the README's limits table"
        assert float(row[1].replace(",", "")) == getattr(DEFAULT, name), (name, row[1])
