"""Baselines from the history store (issue 29 point 3): ``--ocr-baseline history:main`` and
``history:merge-base[:BRANCH]`` in real pytest sessions, real git repositories (a clone with
its origin, branches, a merge-base) and real CI variables, on SQLite and on a real
PostgreSQL server. A run judged against history:main is judged exactly as against the JSON
report of that same run: the same verdicts, regressed items, tests of repeats and paired
statistics (with repeats of a sampling service and checks whose facts are lost)."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from engine_helpers import sampling
from helpers.history import Done, clean_environment, git, merge, repository, session, text_suite
from helpers.postgres import PASSWORD, USER

from pytest_ocr.history import counts
from pytest_ocr.history.baseline import HistoryBaselineError, Wanted, wanted
from pytest_ocr.history.store import Store
from pytest_ocr.history.url import parse

TIMES = {"started", "duration_s", "inference_s", "cached_inference_s", "rasterise_s"}


def report_of(root: Path, name: str) -> dict:
    return json.loads((root / name).read_text(encoding="utf-8"))


def judged(document: dict) -> dict:
    """What a run against its baseline decided: every item's verdict and comparison, the
    comparison of the run (engines, moves with their paired statistics, the tests of repeats)
    and the gates; without the run's times, the order its repeats came in, and the baseline's name."""
    return {
        "results": [{k: in_order(k, v) for k, v in r.items() if k not in TIMES} for r in document["results"]],
        "baseline": {k: v for k, v in document["baseline"].items() if k != "path"},
        "gates": document["gates"],
    }


def in_order(name: str, value: object) -> object:
    """An item's repeats in one order: they come back from the service in any order."""
    if name != "repeats" or not isinstance(value, dict):
        return value
    return {**value, "outputs": sorted(value["outputs"]), "metrics": sorted(value["metrics"], key=json.dumps)}


def sampled_suite(root: Path, url: str) -> list[tuple[bytes, str]]:
    """The sampling service's suite in ``root/example_suite`` (its own pytest.ini: the project),
    each case with two checks (facts) on the start and the end of its line, which may fail."""
    suite = root / "example_suite"
    items = sampling.suite(suite, url, n=12)
    cases = json.loads((suite / "sampled.ocr.yaml").read_text(encoding="utf-8"))
    cases["defaults"]["thresholds"]["checks_passed"] = ">= 0"  # a fact that fails fails no item: losing one does
    for case, (_, text) in zip(cases["cases"], items, strict=True):
        case["checks"] = [
            {"id": "start", "type": "present", "text": text[:15]},
            {"id": "end", "type": "present", "text": text[-15:]},
        ]
    (suite / "sampled.ocr.yaml").write_text(json.dumps(cases), encoding="utf-8")
    return items


@pytest.mark.slow  # pytest sessions
def test_history_main_judges_a_run_as_that_runs_report_does(tmp_path: Path, history_url: str) -> None:
    server = sampling.SamplingServer()
    try:
        root = tmp_path / "project"
        items = sampled_suite(root, server.url)
        repository(root)
        repeats = ("--ocr-repeat=5", "--ocr-no-cache")
        server.use(sampling.readings(items), 11)
        base = session(root, *repeats, "--ocr-report=base.json", f"--ocr-history={history_url}")
        assert base.returncode == 0, base.output
        assert "OCR history: run 1 of suite example_suite" in base.stdout

        # The change, on a branch: its runs record there, so history:main stays main's run.
        git(root, "checkout", "-q", "-b", "feature")
        (root / "change.txt").write_text("worse\n", encoding="utf-8")
        git(root, "add", "change.txt")
        git(root, "commit", "-q", "-m", "worse")
        worse = sampling.readings(items, 0.05)
        server.use(worse, 12)
        gates = ("--ocr-gate=cer.micro:+0.001@95%", "--ocr-gate=wer.macro:+0.5")  # aggregates against the baseline
        from_file = session(root, *repeats, *gates, "--ocr-baseline=base.json", "--ocr-report=file.json")
        server.use(worse, 12)  # the same draws again
        from_history = session(
            root,
            *repeats,
            *gates,
            "--ocr-baseline=history:main",
            "--ocr-report=history.json",
            f"--ocr-history={history_url}",
        )
    finally:
        server.stop()
    assert from_file.returncode == from_history.returncode == 1, from_history.output
    file, history = report_of(root, "file.json"), report_of(root, "history.json")
    assert judged(history) == judged(file)
    assert history["baseline"]["path"].startswith("history:main (run 1 of suite example_suite, commit ")
    assert file["baseline"]["path"].endswith("base.json")

    # What was compared is all of it: repeats' tests, lost facts, paired statistics of both averages.
    comparison = file["baseline"]
    [engine] = comparison["engines"]
    assert engine["compared"] == 12 and engine["repeated"] == 12 and engine["regressed"]
    assert comparison["families"] and comparison["families"][0]["item_tests"] == 24  # cer and checks_passed
    assert {p["kind"] for m in engine["metrics"] for p in m["paired"]} == {"macro", "micro"}
    lost = [f for r in file["results"] for f in (r["baseline"] or {}).get("lost_facts", [])]
    assert lost, "no check that held before failed: the facts were not compared"
    verdicts = {g["name"]: g["passed"] for g in file["gates"]}
    assert verdicts["vlm: cer.micro:+0.001@95% against the baseline"] is False, verdicts
    assert verdicts["vlm: wer.macro:+0.5 against the baseline"] is True, verdicts
    assert "FAILED" in from_history.stdout and "vs baseline history:main (run 1" in from_history.stdout

    # pytest-ocr compare with BASE from history: the same comparison as with BASE the report
    project = root / "example_suite"
    by_file = compare(project, str(root / "base.json"), str(root / "file.json"))
    by_history = compare(project, "history:main", str(root / "file.json"), f"--history={history_url}")
    assert by_file.returncode == by_history.returncode == 1, by_history.output
    compared_file, compared_history = json.loads(by_file.stdout), json.loads(by_history.stdout)
    assert compared_history.pop("path").startswith("history:main (run 1 of suite example_suite, commit ")
    compared_file.pop("path")
    assert compared_history == compared_file
    assert compared_file["cases"] and compared_file["violations"]
    text = compare(project, "history:main", str(root / "file.json"), f"--history={history_url}", as_json=False)
    assert text.stdout.startswith("pytest-ocr compare: history:main (run 1 of suite example_suite, commit ")


RULES = ("--fail-on=cer:+0.01", "--fail-on=cer.micro:+0.002@95%", "--fail-on=wer.macro:+0.01")


def compare(directory: Path, base: str, head: str, *args: str, as_json: bool = True) -> Done:
    """``pytest-ocr compare BASE HEAD`` in ``directory``, with a rule on items and two on aggregates."""
    argv = [sys.executable, "-m", "pytest_ocr.cli", "compare", base, head, *RULES, *args]
    done = subprocess.run(
        argv + (["--json"] if as_json else []),
        cwd=directory,
        env=clean_environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    return Done(done.returncode, done.stdout, done.stderr)


def commit_all(root: Path, message: str) -> str:
    (root / f"{message}.txt").write_text(message, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


def baseline_named(root: Path, name: str = "report.json") -> str:
    return report_of(root, name)["baseline"]["path"]


@pytest.mark.slow  # pytest sessions
def test_merge_base_from_git_and_from_each_ci_in_a_clone(tmp_path: Path, history_url: str) -> None:
    """main upstream: c0 and c1 recorded, c2's run interrupted; a clone whose local main is back at
    c0, on a feature branch from origin/main (c2). Each way of naming the merge-base finds its
    commit's complete run."""
    upstream = text_suite(tmp_path / "upstream" / "project")
    c0 = repository(upstream)
    assert session(upstream, f"--ocr-history={history_url}").returncode == 0
    c1 = commit_all(upstream, "c1")
    assert session(upstream, f"--ocr-history={history_url}").returncode == 0
    # c2 breaks an item, and its run stopped at it (-x): recorded as interrupted, never a baseline
    lines = upstream / "example_suite" / "lines.ocr.yaml"
    text = lines.read_text(encoding="utf-8")
    lines.write_text(text.replace("text_file: data/lines/rapidocr_en_rec.gt.txt", "text: nothing like it"), "utf-8")
    c2 = commit_all(upstream, "c2")
    stopped = session(upstream, "-x", f"--ocr-history={history_url}")
    assert stopped.returncode == 1 and "interrupted" in stopped.stdout, stopped.output
    work = tmp_path / "work" / "project"
    git(tmp_path, "clone", "-q", str(upstream), str(work))
    git(work, "checkout", "-q", "-b", "feature")
    (work / "example_suite" / "lines.ocr.yaml").write_text(text, encoding="utf-8")  # the item mended
    commit_all(work, "c3")
    git(work, "branch", "-f", "main", c0)  # a local main behind origin's
    env = {"PYTEST_OCR_HISTORY_URL": history_url}  # read from here, and this run recorded there too
    github = {
        **env,
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_BASE_REF": "main",
        "GITHUB_HEAD_REF": "feature",
        "GITHUB_REF_NAME": "7/merge",
    }
    gitlab = {**env, "GITLAB_CI": "true", "CI_MERGE_REQUEST_DIFF_BASE_SHA": c1, "CI_COMMIT_REF_NAME": "feature"}

    def against(given: str, environment: dict[str, str], *args: str) -> tuple[str, str]:
        done = session(work, f"--ocr-baseline={given}", "--ocr-report=report.json", *args, env=environment)
        assert done.returncode == 0, done.output
        return baseline_named(work), done.stdout

    # no CI: git merge-base HEAD main (the local main)
    named, _ = against("history:merge-base", env)
    assert named == f"history:merge-base (run 1 of suite project, commit {c0[:12]})"
    # GitHub Actions, a pull request into main: origin/main's merge-base, c2, has no run: its parent's
    named, out = against("history:merge-base", github)
    assert named == f"history:merge-base (run 2 of suite project, commit {c1[:12]})"
    assert (
        f"history:merge-base: the merge-base {c2[:12]} (merge-base of HEAD and origin/main) has no complete run "
        f"of suite 'project'; compared with its nearest ancestor that has one, {c1[:12]}"
    ) in out
    # GitLab's merge request names its diff base
    named, out = against("history:merge-base", gitlab)
    assert named == f"history:merge-base (run 2 of suite project, commit {c1[:12]})"
    assert "nearest ancestor" not in out
    # the target branch named: it wins over the CI's
    named, _ = against("history:merge-base:main", github)
    assert named == f"history:merge-base:main (run 1 of suite project, commit {c0[:12]})"
    # the latest complete run on main: c1's (the clone's runs recorded on feature); on xdist workers too
    named, out = against("history:main", env, "-n", "2")
    assert named == f"history:main (run 2 of suite project, commit {c1[:12]})"
    assert "vs baseline history:main (run 2 of suite project" in out


@pytest.mark.slow  # pytest sessions
def test_a_history_baseline_that_cannot_be_found_is_one_line(tmp_path: Path, history_url: str) -> None:
    root = text_suite(tmp_path / "project")
    repository(root)
    store = history_url.replace(PASSWORD, "***").split("@")[-1]
    assert session(root, f"--ocr-history={history_url}").returncode == 0
    for args, says in [
        (("--ocr-baseline=history:release",), "no complete run of suite 'project' on branch release in "),
        (
            ("--ocr-baseline=history:merge-base:nowhere",),
            "history:merge-base:nowhere: git finds no merge-base of HEAD and nowhere in ",
        ),
        (
            ("--ocr-baseline=history:main", "--ocr-baseline-write=update"),
            "a run from history is not a file to write; runs are recorded in the history store with --ocr-history",
        ),
    ]:
        done = session(root, *args, f"--ocr-history={history_url}")
        assert done.returncode == 4, done.output
        [line] = [line for line in done.stderr.splitlines() if line.strip()]
        assert says in line and "--ocr-baseline" in line
        assert PASSWORD not in done.output and USER not in done.output
        if "release" in says:
            assert line.endswith(store if history_url.startswith("postgresql") else history_url), line
    # no store at all: the project's SQLite file is not made by reading it
    other = text_suite(tmp_path / "other")
    done = session(other, "--ocr-baseline=history:main")
    assert done.returncode == 4
    assert f"history:main: no history store at sqlite:///{other}/.pytest-ocr/history.sqlite" in done.stderr
    assert not (other / ".pytest-ocr").exists()
    # once a run is recorded there (bare --ocr-history), a run with no history option reads it
    repository(other)
    assert session(other, "--ocr-history").returncode == 0
    done = session(other, "--ocr-baseline=history:main", "--ocr-report=report.json")
    assert done.returncode == 0, done.output
    assert baseline_named(other).startswith("history:main (run 1 of suite other, commit ")
    with Store.open(parse(None, other)) as store:  # read, not recorded: a run records only when asked to
        assert len(store.runs("other")) == 1 and "OCR history:" not in done.stdout


@pytest.mark.slow  # pytest sessions
def test_merged_shards_against_history_main_are_judged_as_against_the_report(tmp_path: Path, history_url: str) -> None:
    root = text_suite(tmp_path / "project")
    repository(root)
    assert session(root, "--ocr-report=base.json", f"--ocr-history={history_url}").returncode == 0
    # the change: fraktur's engine reads worse
    recognitions = root / "recognitions" / "tesseract-fraktur.jsonl"
    lines = [json.loads(line) for line in recognitions.read_text(encoding="utf-8").splitlines()]
    recognitions.write_text(
        "".join(json.dumps({**r, "text": r["text"].replace("e", "x")}) + "\n" for r in lines), encoding="utf-8"
    )
    # and the project's tesseract reads its outputs from another file: its configuration changed
    shutil.copy(root / "recognitions" / "tesseract.jsonl", root / "recognitions" / "tesseract-moved.jsonl")
    config = root / "ocr-config.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace("tesseract.jsonl", "tesseract-moved.jsonl"))
    git(root, "checkout", "-q", "-b", "feature")
    commit_all(root, "worse")
    for baseline, name in (("base.json", "file"), ("history:main", "history")):
        for k in (1, 2):
            shard = session(
                root,
                f"--ocr-shard={k}/2",
                f"--ocr-baseline={baseline}",
                f"--ocr-report={name}{k}.json",
                f"--ocr-history={history_url}",
            )
            assert shard.returncode in (0, 1), shard.output
        done = merge(
            root,
            f"{name}1.json",
            f"{name}2.json",
            "-o",
            f"{name}.json",
            f"--baseline={baseline}",
            f"--history={history_url}",
        )
        assert done.returncode == 1, done.output
    file, history = report_of(root, "file.json"), report_of(root, "history.json")
    assert judged(history) == judged(file)
    engines = {e["engine"]: e for e in history["baseline"]["engines"]}
    assert engines["tesseract-fraktur"]["regressed"] and engines["tesseract-fraktur"]["config_changes"]  # its file
    assert engines["tesseract"]["config_changes"] and not engines["tesseract"]["regressed"]
    assert not engines["rapidocr"]["config_changes"]
    done = merge(root, "history1.json", "history2.json", "--baseline=history:main", "--baseline-write=update")
    assert done.returncode == 4
    assert "--baseline-write with --baseline history:main: a run from history is not a file to write" in done.stderr


@pytest.mark.parametrize(
    "values",
    [
        [0, 1, 63, 64, 8191, 8192, 2**40, 2**53 - 1],  # whole counts: a varint each
        [0.0, 3.0, 2.5, 1e300, 2.0**53, -1, -0.5],  # whole floats read back as ints; the rest as doubles
        [None, 7, None],  # an item without one of its engine's counts
        [],
    ],
)
def test_counts_are_read_back_as_recorded(values: list) -> None:
    decoded = counts.decode(counts.encode(values))
    assert decoded == values
    assert all(type(d) is type(v) for d, v in zip(decoded, values, strict=True) if v is None or v != int(v))


def test_small_whole_counts_take_a_byte_or_two() -> None:
    assert len(counts.encode([0, 63])) == 2 and len(counts.encode([64, 8191])) == 4
    assert len(counts.encode([2.5])) == 9
    assert math.isnan(counts.decode(counts.encode([math.nan]))[0])


@pytest.mark.parametrize(
    ("given", "branch", "target"),
    [
        ("history:main", "main", None),
        ("history:feature/x", "feature/x", None),
        ("history:merge-base", None, None),
        ("history:merge-base:release/2.0", None, "release/2.0"),
    ],
)
def test_what_a_history_baseline_asks_for(given: str, branch: str | None, target: str | None) -> None:
    assert wanted(given) == Wanted(branch, target)


@pytest.mark.parametrize("given", ["history:", "history: ", "history:merge-base:"])
def test_a_history_baseline_without_a_branch_says_what_is_expected(given: str) -> None:
    with pytest.raises(
        HistoryBaselineError, match="expected history:BRANCH, history:merge-base or history:merge-base:BRANCH"
    ):
        wanted(given)
