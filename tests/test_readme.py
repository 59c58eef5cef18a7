"""The README's two commands are what users and CI run: CI must run the test command verbatim."""

from __future__ import annotations

import re

from conftest import REPO


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
