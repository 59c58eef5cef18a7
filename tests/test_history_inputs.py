"""An item's inputs in the history (issue 29): ``history flaky`` compares only runs whose engine
fingerprint and inputs held, and ``history item`` names a change of input. Real pytest sessions
recorded over the commits of a real git repository (the example suite's receipts), on SQLite
and on a real PostgreSQL server:

1. the first commit;
2. sroie-359's ground truth edited (its key unchanged): its verdict changes on both engines;
3. sroie-395's image replaced by another receipt's (its key unchanged): RapidOCR reads it, so
   its output changes;
4. the same commit again, RapidOCR's output of sroie-467 differing (the same fingerprint, the
   same inputs): the one flaky item.

RapidOCR is a command engine that answers what RapidOCR read in for the image with the same
bytes (so a replaced image is read as the image it now is); Tesseract reads back stored
outputs (an engine that reads no image: its inputs are the case's). The first three sessions
use an output cache (the image's hash is the cache key's), the fourth none (the image hashed
for the item alone): their input hashes must agree, or every item would look changed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers.history import command_engine, git, history, project_store, repository, session, text_suite

from pytest_ocr.report.history_text import short

GROUND_TRUTH_EDITED = "example_suite/receipts.ocr.yaml::sroie-359"
IMAGE_REPLACED = "example_suite/receipts.ocr.yaml::sroie-395[rapidocr]"
FLAKY = "example_suite/receipts.ocr.yaml::sroie-467[rapidocr]"
READER = """import json, sys
from pathlib import Path
here = Path(__file__).parent
data = Path(sys.argv[1]).read_bytes()
name = next(p.name for p in sorted((here / "originals").iterdir()) if p.read_bytes() == data)
for line in (here / "recognitions" / "rapidocr.jsonl").read_text(encoding="utf-8").splitlines():
    row = json.loads(line)
    if row["image"].endswith("/" + name):
        sys.stdout.write(row["text"])
"""


def _commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


def _result(report: dict[str, Any], key: str) -> dict[str, Any]:
    return next(r for r in report["results"] if r["key"] == key)


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = text_suite(tmp_path_factory.mktemp("inputs") / "repo", ("receipts.ocr.yaml",))
    command_engine(root, "rapidocr", READER)
    shutil.copytree(root / "example_suite" / "data" / "receipts", root / "originals")
    (root / ".gitignore").write_text(".ocr-cache/\n*.json\nhistory.sqlite*\n", encoding="utf-8")
    repository(root)
    return root


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def store(request: pytest.FixtureRequest, suite: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The four sessions recorded in a store of the backend (a fresh copy of the repository each)."""
    root = tmp_path_factory.mktemp(request.param) / "repo"
    shutil.copytree(suite, root)
    url = project_store(request)
    runs: list[dict[str, Any]] = []

    def run(name: str, *args: str) -> None:
        done = session(root, f"--ocr-report={name}", f"--ocr-history={url}", "--ocr-history-suite=receipts", *args)
        assert done.returncode in (0, 1) and "OCR history: run" in done.output, done.output[-2000:]
        report = json.loads((root / name).read_text(encoding="utf-8"))
        runs.append({"commit": git(root, "rev-parse", "HEAD"), "report": report})

    cached = "--ocr-cache-dir=.ocr-cache"
    run("r1.json", cached)
    truth = root / "example_suite" / "data" / "receipts" / "sroie_359.gt.txt"
    text = truth.read_text(encoding="utf-8")
    truth.write_text(text[: len(text) // 2], encoding="utf-8")
    _commit(root, "sroie-359's ground truth cut in half")
    run("r2.json", cached)
    images = root / "example_suite" / "data" / "receipts"
    shutil.copyfile(images / "sroie_418.jpg", images / "sroie_395.jpg")
    _commit(root, "sroie-395's image replaced")
    run("r3.json", cached)
    rows = root / "recognitions" / "rapidocr.jsonl"
    lines = [json.loads(line) for line in rows.read_text(encoding="utf-8").splitlines()]
    for row in lines:
        if row["image"].endswith("/sroie_467.jpg"):
            row["text"] += "\n"  # the engine answers otherwise for the same image: what sampling does
    rows.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines), encoding="utf-8")
    run("r4.json", "--ocr-no-cache")  # attempt 2 of the same commit; the untracked change is the engine's
    return {"root": root, "url": url, "runs": runs}


def test_the_runs_changed_what_the_test_says(store: dict[str, Any]) -> None:
    """What the sessions recorded, from their reports: each change under an unchanged key and
    fingerprint, the inputs' hash moving with the inputs alone (cached or not)."""
    reports = [r["report"] for r in store["runs"]]
    for engine in ("tesseract", "rapidocr"):
        before, after = (_result(reports[i], f"{GROUND_TRUTH_EDITED}[{engine}]") for i in (0, 1))
        assert before["fingerprint_id"] == after["fingerprint_id"] and before["prediction"] == after["prediction"]
        assert before["metrics"]["cer"] != after["metrics"]["cer"] and before["outcome"] != after["outcome"]
        assert before["input_hash"] != after["input_hash"]
    before, after = (_result(reports[i], IMAGE_REPLACED) for i in (1, 2))
    assert before["fingerprint_id"] == after["fingerprint_id"] and before["prediction"] != after["prediction"]
    assert before["input_hash"] != after["input_hash"]
    # The cached run (the hash from the cache's key) and the uncached one (hashed for the item) agree:
    assert all(r["cached"] for r in reports[2]["results"] if r["engine"] == "rapidocr")
    assert not any(r["cached"] for r in reports[3]["results"])
    assert [r["input_hash"] for r in reports[2]["results"]] == [r["input_hash"] for r in reports[3]["results"]]
    before, after = (_result(reports[i], FLAKY) for i in (2, 3))
    assert before["prediction"] != after["prediction"] and before["fingerprint_id"] == after["fingerprint_id"]
    assert all(len(r["input_hash"]) == 16 for report in reports for r in report["results"])


def test_flaky_leaves_out_items_whose_inputs_changed(store: dict[str, Any]) -> None:
    done = history(store["root"], store["url"], "flaky", "--branch=main")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == (
        "1 flaky item(s) over 4 runs (output or outcome changed, engine fingerprint and inputs the same)"
    )
    assert f"{FLAKY}: 1 change(s) in " in done.stdout
    assert f"run 3 ({short(store['runs'][2]['commit'])}) -> run 4" in done.stdout
    assert GROUND_TRUTH_EDITED not in done.stdout and IMAGE_REPLACED not in done.stdout


@pytest.mark.parametrize(
    "key, changed_in, changes",
    [
        (f"{GROUND_TRUTH_EDITED}[tesseract]", 2, "input, outcome, cer"),
        (f"{GROUND_TRUTH_EDITED}[rapidocr]", 2, "input, outcome, cer"),
        (IMAGE_REPLACED, 3, "input, output, outcome, cer"),
        (FLAKY, 4, "output"),  # a trailing newline: the same text as scored
    ],
)
def test_item_names_a_change_of_input(store: dict[str, Any], key: str, changed_in: int, changes: str) -> None:
    done = history(store["root"], store["url"], "item", key, "--branch=main", "--metric=cer")
    assert done.returncode == 0, done.stderr
    commit = short(store["runs"][changed_in - 1]["commit"])
    changed = [line for line in done.stdout.splitlines() if line.startswith("changed at")]
    assert changed == [f"changed at commit {commit} (run {changed_in}): {changes}"]
