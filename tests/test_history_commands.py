"""``pytest-ocr history``'s subcommands over real runs: real pytest sessions recorded over the
commits of a real git repository (the example suite's receipts, read back from recorded
outputs), on SQLite and on a real PostgreSQL server. What the commands print is checked
against the JSON reports of those runs, not against the store."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from helpers.history import command_engine, git, history, project_store, repository, session, text_suite
from helpers.postgres import PASSWORD, USER

from pytest_ocr.history.store import output_hash
from pytest_ocr.report.history_text import CARRIED, MARK, short
from pytest_ocr.report.numbers import number

SLOW_ITEM = "example_suite/receipts.ocr.yaml::sroie-359[tesseract]"
FLAKY_ITEM = "example_suite/receipts.ocr.yaml::sroie-395[rapidocr]"
READER = """import json, sys
from pathlib import Path
image = Path(sys.argv[1]).as_posix()
for line in (Path(__file__).parent / "recognitions" / "rapidocr.jsonl").read_text(encoding="utf-8").splitlines():
    row = json.loads(line)
    if image.endswith(row["image"]):
        sys.stdout.write(row["text"])
"""


def _edit_jsonl(path: Path, image: str, change: Any) -> None:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        if row["image"].endswith(image):
            row["text"] = change(row["text"])
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def _commit(root: Path, message: str) -> str:
    (root / "notes.txt").write_text(message + "\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Five commits of main, each run once; at the third Tesseract's output of one receipt
    got worse (a new predictions file: a new fingerprint); the second ran Tesseract only
    (RapidOCR carried); the last commit ran twice, RapidOCR's output of one receipt differing
    by a trailing newline between the attempts (a command engine: the same fingerprint)."""
    root = text_suite(tmp_path_factory.mktemp("history") / "repo", ("receipts.ocr.yaml",))
    command_engine(root, "rapidocr", READER)
    return {"root": root, "first": repository(root)}


def _runs(root: Path, url: str) -> list[dict[str, Any]]:
    """The five commits' sessions; each commit and its JSON report."""
    made: list[dict[str, Any]] = []

    def run(commit: str, name: str, *args: str) -> None:
        done = session(root, f"--ocr-report={name}", f"--ocr-history={url}", "--ocr-history-suite=receipts", *args)
        worse = len(made) >= 2  # from the third commit on, the receipt made worse fails its thresholds
        assert done.returncode == (1 if worse else 0) and "OCR history: run" in done.output, done.output[-2000:]
        made.append({"commit": commit, "report": json.loads((root / name).read_text(encoding="utf-8"))})

    first = git(root, "rev-parse", "HEAD")
    run(first, "r1.json")
    run(_commit(root, "two"), "r2.json", "-k", "tesseract")
    _edit_jsonl(root / "recognitions" / "tesseract.jsonl", "sroie_359.jpg", lambda t: t[: len(t) // 3])
    run(_commit(root, "three"), "r3.json")
    run(_commit(root, "four"), "r4.json")
    fifth = _commit(root, "five")
    run(fifth, "r5.json")
    _edit_jsonl(root / "recognitions" / "rapidocr.jsonl", "sroie_395.jpg", lambda t: t + "\n")
    run(fifth, "r5b.json")  # attempt 2 of the same commit: untracked change, same fingerprint
    return made


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def store(request: pytest.FixtureRequest, recorded: dict[str, Any], tmp_path_factory: pytest.TempPathFactory):
    """The runs recorded in a store of the backend (a fresh copy of the repository each)."""
    import shutil

    root = tmp_path_factory.mktemp(request.param) / "repo"
    shutil.copytree(recorded["root"], root)
    url = project_store(request)
    return {"root": root, "url": url, "runs": _runs(root, url)}


def _macro(report: dict[str, Any], engine: str, metric: str) -> float | None:
    summary = report["summary"].get(engine)
    return summary["metrics"][metric]["macro"] if summary else None


def _item(report: dict[str, Any], key: str) -> dict[str, Any]:
    return next(r for r in report["results"] if r["key"] == key)


def test_trend_draws_each_engines_metric_with_carried_commits_and_fingerprint_changes(store: dict[str, Any]) -> None:
    done = history(store["root"], store["url"], "trend", "--metric=cer", "--kind=macro", "--branch=main")
    assert done.returncode == 0, done.stderr
    runs = store["runs"]
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"branch main: 5 commits, {short(runs[0]['commit'])} .. {short(runs[-1]['commit'])}")
    rows = {line.split()[1]: line for line in lines if line.startswith("receipts ")}
    # the latest value is the second attempt's of the last commit: its report's
    assert f" {number(_macro(runs[-1]['report'], 'tesseract', 'cer'))} " in rows["tesseract"]
    assert f" {number(_macro(runs[-1]['report'], 'rapidocr', 'cer'))} " in rows["rapidocr"]
    tesseract, rapidocr = rows["tesseract"][-5:], rows["rapidocr"][-5:]
    assert CARRIED not in tesseract and rapidocr[1] == CARRIED and CARRIED not in rapidocr[:1] + rapidocr[2:]
    values = [_macro(r["report"], "tesseract", "cer") for r in (runs[0], runs[1], runs[2], runs[3], runs[5])]
    assert values[2] > values[1] and tesseract[2] > tesseract[1]  # the block rises with the value
    assert f"{MARK} receipts tesseract at commit {short(runs[2]['commit'])}: fingerprint changed" in lines
    assert "carried: the suite or engine did not run at that commit" in done.stdout
    assert PASSWORD not in done.stdout + done.stderr and USER not in done.stdout + done.stderr
    default = history(store["root"], store["url"], "trend", "--metric=cer", "--kind=macro")
    assert default.stdout == done.stdout  # the branch checked out: main


def test_regressions_name_the_commit_that_made_it_worse(store: dict[str, Any]) -> None:
    done = history(store["root"], store["url"], "regressions", "--metric=cer", "--branch=main", "--items")
    assert done.returncode == 0, done.stderr
    runs = store["runs"]
    before, after = (_macro(runs[i]["report"], "tesseract", "cer") for i in (1, 2))
    assert (
        f"receipts tesseract cer macro: worse at commit {short(runs[2]['commit'])}: {number(before)} -> {number(after)}"
        in done.stdout
    )
    old, new = (_item(runs[i]["report"], SLOW_ITEM)["metrics"]["cer"] for i in (1, 2))
    assert f"{SLOW_ITEM} cer: worse at commit {short(runs[2]['commit'])}: {number(old)} -> {number(new)}" in done.stdout
    assert "rapidocr cer" not in done.stdout  # nothing moved there


def test_item_shows_its_values_over_commits_and_where_it_changed(store: dict[str, Any]) -> None:
    done = history(store["root"], store["url"], "item", SLOW_ITEM, "--branch=main", "--metric=cer")
    assert done.returncode == 0, done.stderr
    runs = store["runs"]
    assert done.stdout.splitlines()[0] == f"{SLOW_ITEM} in suite receipts: 6 runs"
    for r in runs:
        item = _item(r["report"], SLOW_ITEM)
        expected = output_hash(item["prediction"])
        assert expected is not None and expected.hex() in done.stdout
        assert number(item["metrics"]["cer"]) in done.stdout
    assert " wer " not in done.stdout.splitlines()[1]  # the metrics asked for only
    changed = [line for line in done.stdout.splitlines() if line.startswith("changed at")]
    assert len(changed) == 1 and changed[0].startswith(f"changed at commit {short(runs[2]['commit'])}")
    assert "output" in changed[0] and "cer" in changed[0]


def test_flaky_finds_the_output_that_changed_under_the_same_fingerprint(store: dict[str, Any]) -> None:
    done = history(store["root"], store["url"], "flaky", "--branch=main")
    assert done.returncode == 0, done.stderr
    runs = store["runs"]
    first, second = (_item(runs[i]["report"], FLAKY_ITEM) for i in (4, 5))
    assert first["prediction"] != second["prediction"] and first["fingerprint_id"] == second["fingerprint_id"]
    assert done.stdout.splitlines()[0].startswith("1 flaky item(s) over 6 runs")
    assert f"{FLAKY_ITEM}: 1 change(s)" in done.stdout
    assert SLOW_ITEM not in done.stdout  # it changed with its engine's fingerprint: not flaky


def test_runs_show_export_and_prune(store: dict[str, Any], tmp_path: Path) -> None:
    root, url, runs = store["root"], store["url"], store["runs"]
    listed = history(root, url, "runs")
    assert listed.returncode == 0 and len(listed.stdout.splitlines()) == 1 + 6
    shown = history(root, url, "show", "1")
    assert shown.returncode == 0, shown.stderr
    assert f"commit {runs[0]['commit']} on main" in shown.stdout
    tesseract = runs[0]["report"]["engines"]["tesseract"]["fingerprint_id"]
    assert f"engine tesseract: fingerprint {tesseract}" in shown.stdout
    out = tmp_path / "export.json"
    exported = history(root, url, "export", f"--output={out}")
    assert exported.returncode == 0, exported.stderr
    assert PASSWORD not in out.read_text(encoding="utf-8") and USER not in out.read_text(encoding="utf-8")
    document = json.loads(out.read_text(encoding="utf-8"))
    assert [r["commit"] for r in document["runs"]] == [r["commit"] for r in runs]
    for run, made in zip(document["runs"], runs, strict=True):
        cer = next(
            a
            for a in run["aggregates"]
            if (a["engine"], a["metric"], a["kind"], a["scope"]) == ("tesseract", "cer", "macro", "")
        )
        assert cer["value"] == made["report"]["summary"]["tesseract"]["metrics"]["cer"]["macro"]
    csv_text = history(root, url, "export", "--format=csv").stdout
    assert csv_text.splitlines()[0].startswith("id,suite,commit,branch,attempt,status")
    assert repr(_macro(runs[2]["report"], "tesseract", "cer")) in csv_text
    for args, says in (
        (["show", "999"], "pytest-ocr history: RUN: no run 999 in "),
        (["item", "nothing::x[tesseract]"], "pytest-ocr history: KEY: no run of suite receipts has an item"),
        (["trend", "--suite=other"], "pytest-ocr history: --suite: no runs of other in "),
        (["show", "1", "--suite=other"], "pytest-ocr history: RUN: run 1 is of suite receipts, not other"),
    ):
        bad = history(root, url, *args)
        assert bad.returncode == 2 and bad.stderr.startswith(says) and bad.stderr.count("\n") == 1, bad.stderr
        assert PASSWORD not in bad.stderr
    pruned = history(root, url, "prune", "--keep=2")
    assert pruned.returncode == 0 and "3 of 6 runs removed" in pruned.stdout  # commits 1-3; both attempts of 5 kept
    left = history(root, url, "runs").stdout
    assert short(runs[0]["commit"]) not in left and left.count(short(runs[-1]["commit"])) == 2


def test_bad_input_and_an_unreachable_store_say_so_in_one_line(tmp_path: Path, postgres_server: Any) -> None:
    missing = history(tmp_path, "sqlite:///nothing.sqlite", "trend")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
    assert "no history store at sqlite:///" in missing.stderr
    down = history(tmp_path, f"postgresql://{USER}:{PASSWORD}@127.0.0.1:1/history", "runs")
    assert down.returncode == 4 and down.stderr.count("\n") == 1, down.stderr
    assert down.stderr.startswith("pytest-ocr history: postgresql://127.0.0.1:1/history: ")
    assert PASSWORD not in down.stderr and USER not in down.stderr
    assert os.environ.get("PYTEST_OCR_HISTORY_URL") is None
