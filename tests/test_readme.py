"""The README and the documentation pages (docs/) are what users read and paste: the README's
two commands are what users and CI run (CI must run the test command verbatim), every other
command they give is run or parsed, every case file in them is valid, every table renders."""

from __future__ import annotations

import importlib.util
import re
import shlex
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

import jsonschema
import pytest
import yaml
from conftest import DATA, REPO
from helpers.readme import DOCS, FENCE, documents, fenced_blocks, readme
from helpers.runs import make_runs


def quick_start_commands(path: Path) -> list[str]:
    quick_start = path.read_text(encoding="utf-8").split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", quick_start)


def readme_commands() -> list[str]:
    return quick_start_commands(REPO / "README.md")


def test_the_tutorial_starts_with_the_readmes_two_commands():
    assert quick_start_commands(DOCS / "tutorial.md") == readme_commands()


def test_ci_runs_the_readme_test_command_verbatim():
    example, tests = readme_commands()
    assert example.endswith("pytest example_suite")
    assert tests.endswith("pip install '.[test]' && python -m pytest -n auto")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    body = re.search(r"readme_test_command\(\) \{\n\s*(.+?)\n\}", ci).group(1)
    assert body == tests
    assert "\nreadme_test_command\nstatus=$?" in ci  # and it is what decides the exit status
    # tox runs the same suite the same way (its section [testenv] is every Python's)
    tox = (REPO / "tox.ini").read_text(encoding="utf-8").split("[testenv]", 1)[1].split("\n[", 1)[0]
    assert "\ncommands = python -m pytest -n auto {posargs}\n" in tox


def test_both_commands_install_the_same_tesseract_packages():
    example, tests = readme_commands()
    packages = [re.search(r"apt-get install -y ([^&]+) &&", command).group(1).split() for command in (example, tests)]
    # the tests add the services they start: Chromium and PostgreSQL
    assert [p for p in packages[1] if p not in ("chromium", "postgresql")] == packages[0]


def tox_commands(environment: str) -> list[str]:
    tox = (REPO / "tox.ini").read_text(encoding="utf-8").split(f"[testenv:{environment}]", 1)[1].split("\n[", 1)[0]
    return [line.strip() for line in tox.split("commands =", 1)[1].splitlines() if line.startswith("    ")]


def test_ci_runs_the_linters_and_the_docs_build_tox_runs():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    commands = tox_commands("lint")
    assert commands == [
        "ruff check pytest_ocr tests benchmarks",
        "ruff format --check pytest_ocr tests benchmarks",
        "mypy",
    ]
    assert "\n".join(commands) in ci and ci.index("mypy\n") < ci.index("readme_test_command\nstatus")
    # the site is built strictly (a broken link or anchor fails), after the linters and before the tests
    assert tox_commands("docs") == ["mkdocs build --strict --site-dir {envtmpdir}/site"]
    build = ci.index("mkdocs build --strict ")
    assert ci.index("mypy\n") < build < ci.index("readme_test_command\nstatus")
    assert "pip install -q '.[test,lint,docs]'" in ci


# -- the pages as GitHub (and the site) render them ---------------------------------------------


@cache
def hooks() -> ModuleType:
    """docs/hooks.py, the mkdocs hook that writes the reference pages' generated tables."""
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_is_short_and_links_to_pages_that_exist():
    text = readme()
    assert text.count("\n") <= 250
    links = re.findall(r"\]\(([^)#]+?)(?:#[^)]*)?\)", text)
    relative = [link for link in links if "://" not in link]
    assert sum(link.startswith("docs/") for link in relative) >= 15
    missing = [link for link in relative if not (REPO / link).exists()]
    assert not missing, missing


def test_every_page_is_in_the_site_navigation():
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    pages = {str(path.relative_to(DOCS)) for path in DOCS.rglob("*.md")}
    listed = set(re.findall(r"^\s+- (?:[^:\n]+: )?(\S+\.md)$", config, re.M))
    assert pages == listed


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_table_renders_whole(path):
    """A line between two rows (a paragraph slipped into a table) cuts it in two, and the
    rows after it render as text: every block of table lines must be one whole table. The
    pages are checked as the site shows them, with their generated tables."""
    import cmarkgfm

    text = hooks().expand(path.read_text(encoding="utf-8"))
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
    assert len(tables) == len(blocks)
    for block, table in zip(blocks, tables, strict=True):
        assert table.count("<tr>") == len(block) - 1, block[0]  # every line a row but the separator
    stray = [p for p in re.findall(r"<p>(.*?)</p>", html, re.S) if re.search(r"(^|\n)\|", p)]
    assert not stray, f"table lines rendered as text: {stray[0][:200]}"


def test_the_pages_have_their_tables():
    """The reference pages' generated tables are there, each with its rows."""
    from pytest_ocr.metrics import METRICS

    expanded = {name: hooks().expand(f"<!-- generated: {name} -->") for name in hooks().GENERATORS}
    assert all(text.count("\n|") >= 10 or "```text" in text for text in expanded.values()), expanded.keys()
    assert all(f"| `{name}`" in expanded["metrics"] for name in METRICS)
    assert "### projectConfig" in expanded["case-file-schema"] and "`cases`" in expanded["case-file-schema"]
    assert "### result" in expanded["report-schema"] and "`schema_version`" in expanded["report-schema"]
    assert "| `--ocr-report=PATH` |" in expanded["pytest-options"] and "| `ocr_config` |" in expanded["pytest-options"]
    assert "### pytest-ocr merge" in expanded["cli-help"]
    markers = [p for p in documents() if "<!-- generated: " in p.read_text(encoding="utf-8")]
    assert len(markers) == len(hooks().GENERATORS)
    with pytest.raises(ValueError, match="unknown generated section 'nope'"):
        hooks().expand("<!-- generated: nope -->")


def test_the_options_page_lists_every_option_the_parser_has():
    """The options page's table (written for people) names exactly the options pytest-ocr adds
    to pytest (its generated section below it holds their help)."""
    from _pytest.config.argparsing import Parser

    from pytest_ocr import plugin

    parser = Parser(_ispytest=True)
    plugin.pytest_addoption(parser)
    page = (DOCS / "reference" / "options.md").read_text(encoding="utf-8")
    table = [line for line in page.splitlines() if line.startswith("| `")]
    named = {name for line in table for name in re.findall(r"`((?:--ocr-[a-z-]+)|ocr_\w+)", line.split(" | ")[0])}
    options = {name for option in parser.getgroup("ocr").options for name in option.names()}
    assert named == options | set(parser._inidict)


@pytest.mark.slow
def test_every_command_the_readme_gives_to_run_is_run(tmp_path):
    """The `sh` blocks are what the README and the pages tell users to run. The Quick start's
    two are run by CI (above) and by test_example_suite; every other line is run here, for real,
    on real reports and a real page, as a user would paste it (without a shell)."""
    runnable = [block for _, _, language, block in fenced_blocks() if language == "sh"]
    quick_start = readme_commands()
    commands = [line for block in runnable for line in block.splitlines() if line not in quick_start]
    assert [block.strip() for block in runnable[:2]] == quick_start
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
    """Every bound on hostile input has its option and its default in the limits page's table."""
    from pytest_ocr.limits import DEFAULT, NAMES, OPTIONS

    table = (DOCS / "reference" / "limits.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(--ocr-max-[a-z-]+)` \|", table, re.M)
    assert sorted(rows) == sorted(OPTIONS[name] for name in NAMES)
    for name in NAMES:
        row = re.search(rf"^\| `{OPTIONS[name]}` \| ([^|]+) \|", table, re.M)
        assert row is not None, f"{OPTIONS[name]} is not in the limits table"
        assert float(row[1].replace(",", "")) == getattr(DEFAULT, name), (name, row[1])


# -- case files ------------------------------------------------------------------------------------


def unknown_metrics(names: list[str]) -> list[str]:
    from pytest_ocr.metrics import unknown_metrics

    return list(unknown_metrics(names))


def case_file_validator(definition: str | None = None) -> jsonschema.protocols.Validator:
    import json
    from importlib import resources

    schema = json.loads(resources.files("pytest_ocr.cases").joinpath("case-file.schema.json").read_text("utf-8"))
    target = schema if definition is None else {"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]}
    return jsonschema.Draft202012Validator(target)


def metric_names(data: object) -> set[str]:
    """The metric names a case file's thresholds, regression tolerances and metrics: lists use
    (the schema takes any name there; loading checks them against the registry)."""
    names: set[str] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            if key in ("thresholds", "regression") and isinstance(value, dict):
                names |= {name.split(".", 1)[0] for name in value}  # a regression on an aggregate: cer.micro
            elif key == "metrics" and isinstance(value, list):
                names |= {name for name in value if isinstance(name, str)}
            else:
                names |= metric_names(value)
    elif isinstance(data, list):
        for value in data:
            names |= metric_names(value)
    return names


def case_file_errors(block: str) -> list[str]:
    """What the case-file schema says of a YAML block: a whole case file (``# name.ocr.yaml``),
    the project configuration (``# ocr.yaml``), or a fragment, valid when it is the keys of a
    case or of a suite (given an image, or a case, to be whole)."""
    data = yaml.safe_load(block)
    first = block.split("\n", 1)[0]
    if re.match(r"# \S+\.ocr\.ya?ml\b", first):
        candidates = [(None, data)]
        if "or the project configuration" in first:
            candidates.append(("projectConfig", data))
    elif first == "# ocr.yaml":
        candidates = [("projectConfig", data)]
    else:
        candidates = [(None, {"image": "page.png", "expected": {"text": "x"}, **data})]
        candidates += [(None, {"cases": [{"id": "a", "image": "a.png", "expected": {"text": "x"}}], **data})]
    unknown = unknown_metrics(sorted(metric_names(data)))
    if unknown:
        return [f"unknown metric {name!r}" for name in unknown]
    found = []
    for definition, document in candidates:
        errors = [
            f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in case_file_validator(definition).iter_errors(document)
        ]
        if not errors:
            return []
        found += errors
    return found


def case_file_blocks() -> list[tuple[str, str]]:
    """(where, text) of every YAML block that is a case file, the project configuration or a
    part of one (the CI recipes are YAML too, and tested in test_readme_ci)."""
    return [
        (f"{path.relative_to(REPO)}:{line}", text)
        for path, line, language, text in fenced_blocks()
        if language == "yaml" and not text.startswith(("# .github/", "# .gitlab-ci.yml"))
    ]


def test_every_case_file_in_the_pages_is_valid():
    blocks = case_file_blocks()
    assert len(blocks) >= 18
    assert sum(bool(re.match(r"# \S+\.ocr\.ya?ml\b", text)) for _, text in blocks) >= 8
    for where, text in blocks:
        assert not case_file_errors(text), f"{where}: {case_file_errors(text)}"


def test_the_case_file_check_finds_the_mistakes_it_is_here_for():
    whole = next(text for _, text in case_file_blocks() if text.startswith("# receipts.ocr.yaml\n"))
    assert not case_file_errors(whole)
    assert case_file_errors(whole.replace("thresholds: {cer:", "thresholds: {cerr:", 1))
    assert case_file_errors(whole.replace("engine: tesseract-psm6", "engin: tesseract-psm6", 1))
    assert case_file_errors(whole.replace("tags: [faded]", "tags: faded", 1))
    assert case_file_errors("match:\n  total: exactly\n")  # a fragment is held to the schema too
    assert not case_file_errors("match:\n  total: numeric\n")
    assert case_file_errors("# ocr.yaml\ncases: []\n")


def test_the_metrics_explanation_explains_every_metric():
    """Its table (written for people; the reference page's is generated) names every metric of
    the registry, and no other."""
    from pytest_ocr.metrics import METRICS

    page = (DOCS / "explanation" / "metrics.md").read_text(encoding="utf-8")
    table = page[page.index("| name | meaning | better |") :].split("\n\n", 1)[0]
    named = {name for line in table.splitlines()[2:] for name in re.findall(r"`(\w+)`", line.split(" | ")[0])}
    assert named == set(METRICS)


def test_the_case_file_table_explains_every_key_a_case_takes():
    """Its table (written for people; the schema section below it is generated) names every key
    of a case; `engines:` and `aggregate:` are file-level blocks its prose explains."""
    import json
    from importlib import resources

    schema = json.loads(resources.files("pytest_ocr.cases").joinpath("case-file.schema.json").read_text("utf-8"))
    keys = set(schema["$defs"]["suiteCase"]["properties"]) | set(schema["$defs"]["singleCase"]["properties"])
    page = (DOCS / "reference" / "case-files.md").read_text(encoding="utf-8")
    table = page[page.index("| key | meaning |") :].split("\n\n", 1)[0]
    named = {
        key.split(".")[0] for line in table.splitlines()[2:] for key in re.findall(r"`([\w.]+)`", line.split(" | ")[0])
    }
    assert named == keys - {"engines", "aggregate"}
    assert "under `engines:`" in page and "an `aggregate:` block" in page
