"""Sharded runs (--ocr-shard K/N) and their merge (pytest-ocr merge): the share of items
each shard takes, and a real Tesseract run in three shards merged into the report of the
same run unsharded."""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import DATA, requires_tesseract
from helpers.dom import Tree, embedded

from pytest_ocr.run.shard import Shard, ShardError, assign, hash_order

pytestmark = pytest.mark.slow

# -- the share -----------------------------------------------------------------------


def _keys(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [f"suite-{rng.randrange(9)}.ocr.yaml::case-{i}[engine-{rng.randrange(3)}]" for i in range(n)]


def test_parse_takes_k_of_n_and_the_ci_variables() -> None:
    assert Shard.parse("2/4") == Shard(2, 4)
    assert Shard.parse("auto", {"CI_NODE_INDEX": "3", "CI_NODE_TOTAL": "5"}) == Shard(3, 5)
    for text, message in (
        ("0/4", "1 <= K <= N"),
        ("5/4", "1 <= K <= N"),
        ("2", "expected K/N"),
        ("a/b", "expected K/N"),
    ):
        with pytest.raises(ShardError, match=message):
            Shard.parse(text)
    with pytest.raises(ShardError, match="CI_NODE_INDEX and CI_NODE_TOTAL are not both set"):
        Shard.parse("auto", {"CI_NODE_TOTAL": "5"})
    with pytest.raises(ShardError, match=r"CI_NODE_INDEX='x'"):
        Shard.parse("auto", {"CI_NODE_INDEX": "x", "CI_NODE_TOTAL": "5"})


@pytest.mark.parametrize("n, total", [(1, 1), (7, 3), (1000, 4), (20_000, 7), (3, 5)])
def test_every_item_goes_to_one_shard_and_the_shares_differ_by_one_at_most(n: int, total: int) -> None:
    keys = _keys(n)
    shards = assign(keys, total)
    assert shards.keys() == set(keys)
    sizes = Counter(shards.values())
    assert set(sizes) <= set(range(1, total + 1))
    counts = [sizes.get(k, 0) for k in range(1, total + 1)]
    assert max(counts) - min(counts) <= 1, counts
    assert assign(list(reversed(keys)), total) == shards  # the order items are collected in does not matter


def test_adding_or_removing_a_case_moves_at_most_one_item_across_each_cut() -> None:
    keys = _keys(5000)
    before = assign(keys, 4)
    for changed in (keys + ["new.ocr.yaml::added[engine-0]"], keys[:1234] + keys[1235:]):
        after = assign(changed, 4)
        moved = [k for k in after if k in before and after[k] != before[k]]
        assert len(moved) <= 3, moved  # 4 shards, 3 cuts


def test_durations_balance_the_shards_by_time() -> None:
    keys = _keys(3000, seed=1)
    rng = random.Random(2)
    durations = {k: rng.lognormvariate(0, 1.2) for k in keys}
    durations.update({k: 40.0 for k in keys[:5]})  # a few very slow pages
    unknown = keys[-300:]  # items new since that report: they weigh the mean
    weights = {k: v for k, v in durations.items() if k not in unknown}
    shards = assign(keys, 5, weights)
    mean = math.fsum(weights.values()) / len(weights)
    cost = Counter()
    for key, shard in shards.items():
        cost[shard] += weights.get(key, mean)
    ideal = math.fsum(cost.values()) / 5
    heaviest = max(weights.values())
    assert all(abs(cost[k] - ideal) <= heaviest for k in range(1, 6)), (cost, ideal)
    unweighted = Counter()
    for key, shard in assign(keys, 5).items():
        unweighted[shard] += weights.get(key, mean)
    assert max(cost.values()) - min(cost.values()) < max(unweighted.values()) - min(unweighted.values())


# -- a real run in shards, merged ------------------------------------------------------

FRAKTUR = sorted(p.name for p in (DATA / "lines").glob("archiscribe_*.png"))  # 6 lines
ENGLISH = "rapidocr_en_rec.jpg"

SUITE = """\
engines:
  fraktur: {type: tesseract, lang: frk, psm: 7}
  english: {type: tesseract, psm: 7}
defaults: {engine: fraktur, thresholds: {cer: "< 0.2"}}
aggregate:
  cer.macro: "< 0.5"
  "engine:fraktur": {cer.micro: "< 0"}  # fails, on purpose
cases:
"""
LABELS_SUITE = """\
engines:
  fraktur: {type: tesseract, lang: frk, psm: 7}
defaults: {engine: fraktur}
dataset: {type: paddle, label_file: labels.txt, images: img}
aggregate: {wer.macro: "<= 1"}
"""
TIMING = {"started", "started_at", "finished_at", "performance", "shards", "workers"}


def _truth(name: str) -> str:
    return (DATA / "lines" / (Path(name).stem + ".gt.txt")).read_text(encoding="utf-8").strip()


def _project(root: Path) -> Path:
    """12 OCR items: 6 Fraktur lines and an English one in a case file with gates, and 5
    of the Fraktur lines in a Paddle label file, with an entry whose image is missing."""
    (root / "img").mkdir(parents=True)
    suite = SUITE
    for name in (*FRAKTUR, ENGLISH):
        shutil.copy(DATA / "lines" / name, root / "img" / name)
        (root / "img" / (Path(name).stem + ".gt.txt")).write_text(_truth(name) + "\n", encoding="utf-8")
        engine = ", engine: english" if name == ENGLISH else ""
        stem = Path(name).stem
        suite += f"  - {{id: {stem}, image: img/{name}, expected: {{text_file: img/{stem}.gt.txt}}{engine}}}\n"
    (root / "lines.ocr.yaml").write_text(suite, encoding="utf-8")
    labels = [f"{name}\t{_truth(name)}" for name in FRAKTUR[:5]] + ["missing.png\tno such image"]
    (root / "labels.txt").write_text("\n".join(labels) + "\n", encoding="utf-8")
    (root / "labels.ocr.yaml").write_text(LABELS_SUITE, encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    return root


def _pytest(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


def _merge(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_ocr.cli", "merge", *args], cwd=root, capture_output=True, text=True, timeout=120
    )


def _timeless(value: object) -> object:
    if isinstance(value, dict):
        return {
            k: _timeless(v)
            for k, v in value.items()
            if k not in TIMING and not k.endswith("_s") and not k.endswith("_ms")
        }
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


@pytest.fixture(scope="module")
def sharded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The suite run whole, and in three shards (the second on two pytest-xdist workers)."""
    root = _project(tmp_path_factory.mktemp("shards"))
    whole = _pytest(root, "--ocr-report", "whole.json")
    assert whole.returncode == 1, whole.stdout  # the Fraktur gate fails, on purpose
    for k in (1, 2, 3):
        extra = ("-n", "2") if k == 2 else ()
        shard = _pytest(root, f"--ocr-shard={k}/3", "--ocr-report", f"shard-{k}.json", *extra)
        assert shard.returncode == 0, shard.stdout  # the items pass; the gates wait for the merge
        assert f"shard {k}/3: 4 of the suite's 12 OCR items" in shard.stdout
        assert "4 passed, 8 deselected" in shard.stdout or k == 2  # pytest-xdist's workers deselect, unsaid
    return root


@requires_tesseract
def test_three_shards_merged_equal_the_run_unsharded(sharded: Path) -> None:
    merged = _merge(sharded, "shard-3.json", "shard-1.json", "shard-2.json", "-o", "merged.json")
    assert merged.returncode == 1, merged.stdout + merged.stderr  # as pytest's on the whole run: a gate failed
    whole = json.loads((sharded / "whole.json").read_text(encoding="utf-8"))
    together = json.loads((sharded / "merged.json").read_text(encoding="utf-8"))
    assert together["run"]["shards"] == 3 and together["run"]["status"] == "complete"
    assert len(together["results"]) == 12 == len(whole["results"])
    gates = [(g["name"], g["passed"]) for g in together["gates"]]
    assert gates == [
        ("fraktur: wer.macro <= 1", True),  # labels.ocr.yaml's
        ("english: cer.macro < 0.5", True),  # lines.ocr.yaml's, by line
        ("fraktur: cer.macro < 0.5", True),
        ("fraktur: cer.micro < 0", False),
    ]
    assert together["datasets"][0]["skipped"] == 1 and together["datasets"][0]["evaluated"] == 5
    assert _timeless(together) == _timeless(whole)
    shards = [json.loads((sharded / f"shard-{k}.json").read_text(encoding="utf-8")) for k in (1, 2, 3)]
    assert sorted(len(s["results"]) for s in shards) == [4, 4, 4]
    assert all(s["gates"] == [] for s in shards)  # nothing judged on a part
    assert "fraktur: cer.micro = " in merged.stdout and "expected < 0: FAILED" in merged.stdout


@requires_tesseract
def test_a_missing_shard_is_reported_and_the_merged_run_is_incomplete(sharded: Path) -> None:
    merged = _merge(sharded, "shard-1.json", "shard-3.json", "-o", "partial.json")
    assert merged.returncode == 2, merged.stdout + merged.stderr
    assert merged.stdout.startswith("pytest-ocr merge: 2 of 3 shards, 8 of 12 OCR items; missing: shard 2/3\n")
    report = json.loads((sharded / "partial.json").read_text(encoding="utf-8"))
    assert report["run"]["status"] == "interrupted" and report["run"]["not_run"] == 4
    assert report["run"]["interruption"] == "shard(s) 2/3 missing: 4 OCR item(s) not in the merged run"
    assert len(report["results"]) == 8


@requires_tesseract
def test_shards_that_do_not_make_one_run_are_refused(sharded: Path, tmp_path: Path) -> None:
    twice = _merge(sharded, "shard-1.json", "shard-1.json", "shard-2.json", "shard-3.json")
    assert twice.returncode == 4 and "shard 1/3 given twice: shard-1.json and shard-1.json" in twice.stderr
    whole = _merge(sharded, "whole.json")
    assert whole.returncode == 4 and "whole.json is not a shard's report" in whole.stderr

    other = _pytest(sharded, "--ocr-shard=2/3", "-k", "not english", "--ocr-report", str(tmp_path / "other.json"))
    assert other.returncode == 0, other.stdout
    suites = _merge(sharded, "shard-1.json", str(tmp_path / "other.json"), "shard-3.json")
    assert suites.returncode == 4 and "are shards of different suites" in suites.stderr
    assert "(11 items, suite " in suites.stderr and "and 12 items, suite " in suites.stderr

    # shard 3 as a runner with another Tesseract would have written it
    report = json.loads((sharded / "shard-3.json").read_text(encoding="utf-8"))
    report["engines"]["fraktur"]["version"] = "tesseract 9.9.9"
    (tmp_path / "shard-3.json").write_text(json.dumps(report), encoding="utf-8")
    engines = _merge(sharded, "shard-1.json", "shard-2.json", str(tmp_path / "shard-3.json"))
    assert engines.returncode == 4, engines.stderr
    assert "engine fraktur differs between shard-1.json and" in engines.stderr and "tesseract 9.9.9" in engines.stderr


@requires_tesseract
def test_the_merge_judges_and_writes_the_baseline_of_the_whole_run(sharded: Path) -> None:
    written = _merge(
        sharded, "shard-1.json", "shard-2.json", "shard-3.json", "--baseline", "base.json", "--baseline-write", "create"
    )
    assert written.returncode == 1, written.stdout + written.stderr
    base = json.loads((sharded / "base.json").read_text(encoding="utf-8"))
    assert len(base["results"]) == 12
    refused = _pytest(sharded, "--ocr-shard=1/3", "--ocr-baseline", "base.json", "--ocr-baseline-write", "update")
    assert refused.returncode == 4
    assert "--ocr-baseline-write with --ocr-shard" in refused.stderr


@requires_tesseract
def test_a_merge_against_a_baseline_the_shards_did_not_run_against_is_refused(sharded: Path) -> None:
    """Each item is compared with its record as it ends, on its shard: shards run without
    --ocr-baseline have nothing for the merge to join, and a merge that went on would fail
    its match check with the wrong reason (or, with update, write results judged by nothing)."""
    (sharded / "stored.json").write_text((sharded / "whole.json").read_text(encoding="utf-8"), encoding="utf-8")
    for extra in ((), ("--baseline-write", "update")):
        refused = _merge(sharded, "shard-1.json", "shard-2.json", "shard-3.json", "--baseline=stored.json", *extra)
        assert refused.returncode == 4, refused.stdout + refused.stderr
        assert refused.stderr.splitlines() == [
            "pytest-ocr merge: --baseline stored.json: the shards ran without a baseline (none of their 12 measured "
            "items was compared with one); run each shard with --ocr-baseline=stored.json"
        ]
        assert refused.stdout == ""
    assert (sharded / "stored.json").read_text(encoding="utf-8") == (sharded / "whole.json").read_text(encoding="utf-8")


@requires_tesseract
def test_durations_of_an_earlier_report_weight_the_split(sharded: Path) -> None:
    # the item first in hash order took 1,000 s in the earlier run, the others 0.1 s: with
    # two shards, the first holds that item alone (by count, 6 and 6)
    report = json.loads((sharded / "whole.json").read_text(encoding="utf-8"))
    keys = [r["key"] for r in report["results"]]
    heavy = min(keys, key=lambda k: (hash_order(k), k))
    for r in report["results"]:
        r["duration_s"] = 1000.0 if r["key"] == heavy else 0.1
    (sharded / "durations.json").write_text(json.dumps(report), encoding="utf-8")
    runs = [
        _pytest(sharded, f"--ocr-shard={k}/2", "--ocr-shard-durations", "durations.json", "--collect-only", "-q")
        for k in (1, 2)
    ]
    assert all(r.returncode == 0 for r in runs), runs[0].stdout + runs[0].stderr
    ids = [{line for line in r.stdout.splitlines() if "::" in line} for r in runs]
    assert len(ids[0]) == 1 and len(ids[1]) == 11 and ids[0].isdisjoint(ids[1])
    file, _, name = heavy.partition("::")
    assert ids[0] == {f"{file}::{name}"}
    plain = [_pytest(sharded, f"--ocr-shard={k}/2", "--collect-only", "-q") for k in (1, 2)]
    assert [sum("::" in line for line in r.stdout.splitlines()) for r in plain] == [6, 6]
    unknown = _pytest(sharded, "--ocr-shard-durations", "whole.json")
    assert unknown.returncode == 4 and "--ocr-shard-durations needs --ocr-shard K/N" in unknown.stderr
    bad = _pytest(sharded, "--ocr-shard=1/2", "--ocr-shard-durations", "nothing.json")
    assert bad.returncode == 4 and "nothing.json: file not found" in bad.stderr


@requires_tesseract
def test_an_item_in_two_shards_and_a_shard_that_stopped_early_are_reported(sharded: Path, tmp_path: Path) -> None:
    # shard 1's report as if a second job had run it as shard 2: its items are in two shards
    again = json.loads((sharded / "shard-1.json").read_text(encoding="utf-8"))
    again["shard"]["index"] = 2
    (tmp_path / "again.json").write_text(json.dumps(again), encoding="utf-8")
    twice = _merge(sharded, "shard-1.json", str(tmp_path / "again.json"), "shard-3.json")
    assert twice.returncode == 4 and "items in more than one shard: " in twice.stderr
    assert f"(shard-1.json and {tmp_path / 'again.json'})" in twice.stderr

    # shard 3 as a job stopped by Ctrl-C after all but one of its items would have written it
    stopped = json.loads((sharded / "shard-3.json").read_text(encoding="utf-8"))
    stopped["run"].update(status="interrupted", not_run=1, interruption="interrupted (KeyboardInterrupt)")
    (tmp_path / "stopped.json").write_text(json.dumps(stopped), encoding="utf-8")
    merged = _merge(sharded, "shard-1.json", "shard-2.json", str(tmp_path / "stopped.json"), "-o", "stopped-run.json")
    assert merged.returncode == 2, merged.stdout + merged.stderr
    run = json.loads((sharded / "stopped-run.json").read_text(encoding="utf-8"))["run"]
    assert run["status"] == "interrupted" and run["not_run"] == 1
    assert run["interruption"] == "shard 3/3: interrupted (KeyboardInterrupt)"


@requires_tesseract
def test_auto_takes_the_shard_from_the_ci_variables(sharded: Path) -> None:
    given = _pytest(sharded, "--ocr-shard=2/3", "--collect-only", "-q")
    gitlab = {"CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "3"}
    auto = _pytest(sharded, "--ocr-shard=auto", "--collect-only", "-q", env=gitlab)
    items = [line for line in auto.stdout.splitlines() if "::" in line]
    assert auto.returncode == 0 and len(items) == 4
    assert items == [line for line in given.stdout.splitlines() if "::" in line]
    unset = _pytest(sharded, "--ocr-shard=auto", env={"CI_NODE_INDEX": "", "CI_NODE_TOTAL": ""})
    assert unset.returncode == 4 and "CI_NODE_INDEX and CI_NODE_TOTAL are not both set" in unset.stderr


@requires_tesseract
def test_a_reader_that_goes_away_costs_no_output_and_no_traceback(sharded: Path) -> None:
    command = [sys.executable, "-m", "pytest_ocr.cli", "merge", "shard-1.json", "shard-2.json", "shard-3.json"]
    process = subprocess.Popen(
        [*command, "-o", "piped.json"], cwd=sharded, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # as `| head -1` does once it has its line
    errors = process.stderr.read()
    assert process.wait(timeout=120) == 1, errors
    assert "Traceback" not in errors and "BrokenPipeError" not in errors
    assert json.loads((sharded / "piped.json").read_text(encoding="utf-8"))["run"]["shards"] == 3


@requires_tesseract
def test_shards_and_merge_against_a_baseline_equal_the_run_unsharded(sharded: Path) -> None:
    # the baseline: the whole run's report, with one item's record made worse so it compares as improved
    base = json.loads((sharded / "whole.json").read_text(encoding="utf-8"))
    base["results"][0]["metrics"]["cer"] = 0.9
    (sharded / "main.json").write_text(json.dumps(base), encoding="utf-8")
    whole = _pytest(sharded, "--ocr-baseline", "main.json", "--ocr-report", "whole-b.json")
    assert whole.returncode == 1, whole.stdout
    for k in (1, 2, 3):
        shard = _pytest(sharded, f"--ocr-shard={k}/3", "--ocr-baseline", "main.json", "--ocr-report", f"b-{k}.json")
        assert shard.returncode == 0, shard.stdout
    merged = _merge(sharded, "b-1.json", "b-2.json", "b-3.json", "--baseline", "main.json", "-o", "merged-b.json")
    assert merged.returncode == 1, merged.stdout + merged.stderr
    one = json.loads((sharded / "whole-b.json").read_text(encoding="utf-8"))
    together = json.loads((sharded / "merged-b.json").read_text(encoding="utf-8"))
    assert together["baseline"]["matched"] == 12 and together["baseline"]["path"] == str(sharded / "main.json")
    assert _timeless(together) == _timeless(one)


# -- the merge in a CI job of its own ---------------------------------------------------


def _thumbnails(html: str) -> int:
    return html.count('<script type="text/plain" id="ocr-thumb-')


@requires_tesseract
def test_a_merge_outside_the_checkout_finds_the_images_in_its_own_project_only(sharded: Path, tmp_path: Path) -> None:
    """The shards record their project directory, but a shard's report is an artifact anyone
    could have written: a merge run elsewhere (a CI job's artifact directory) finds the
    images in its own project, or in --project DIR, never in the directory the reports name,
    and says so."""
    shards = [str(sharded / f"shard-{k}.json") for k in (1, 2, 3)]
    assert all(json.loads(Path(s).read_text(encoding="utf-8"))["shard"]["project"] == str(sharded) for s in shards)
    images = len({r["image"] for r in json.loads((sharded / "whole.json").read_text(encoding="utf-8"))["results"]})

    elsewhere = _merge(tmp_path, *shards, "--html", "elsewhere.html", "--summary", "none")
    assert elsewhere.returncode == 1, elsewhere.stdout + elsewhere.stderr
    assert (
        f"note: the shards ran in {sharded}; paths are relative to this project, {tmp_path}, and files are read "
        "in it alone (--project DIR names the checkout)\n"
    ) in elsewhere.stdout
    html = (tmp_path / "elsewhere.html").read_text(encoding="utf-8")
    assert _thumbnails(html) == 0 and "image not found: img/" in html  # relative to the directory the note names

    given = _merge(tmp_path, *shards, "--html", "given.html", "--project", str(sharded), "--summary", "none")
    assert given.returncode == 1 and "note:" not in given.stdout, given.stdout + given.stderr
    html = (tmp_path / "given.html").read_text(encoding="utf-8")
    assert _thumbnails(html) == images == 7 and str(tmp_path) not in html and str(sharded) not in html
    # the texts the metrics compared, which the shards' reports do not hold, rebuilt for the page's diff
    compared = [c for c in embedded(Tree(html))["cases"] if c["outcome"] in ("passed", "failed")]
    assert compared and all(c["scored"] is not None for c in compared)

    # the shards as runners elsewhere wrote them: their checkout is not on this machine
    moved = []
    for k, shard in enumerate(shards, 1):
        report = json.loads(Path(shard).read_text(encoding="utf-8"))
        report["shard"]["project"] = "/home/runner/work/suite/suite"
        moved.append(tmp_path / f"moved-{k}.json")
        moved[-1].write_text(json.dumps(report), encoding="utf-8")
    there = _merge(sharded, *map(str, moved), "--html", str(tmp_path / "there.html"), "--summary", "none")
    assert (
        f"note: the shards ran in /home/runner/work/suite/suite; paths are relative to this project, {sharded}, "
        "and files are read in it alone (--project DIR names the checkout)\n"
    ) in there.stdout
    assert _thumbnails((tmp_path / "there.html").read_text(encoding="utf-8")) == 7

    wrong = _merge(tmp_path, *shards, "--project", "no-such-dir")
    assert wrong.returncode == 4 and wrong.stderr == "pytest-ocr merge: --project: not a directory: no-such-dir\n"


@requires_tesseract
def test_shards_of_a_merged_run_leave_github_output_to_the_merge(sharded: Path, tmp_path: Path) -> None:
    """Under GitHub Actions each failure shows once: shards with --ocr-github=off write no
    annotation and no step summary; the merge, run outside the checkout, writes both, with
    paths relative to the project."""
    # the baseline: the whole run with every CER 0, so each item that reads a character wrong regressed
    base = json.loads((sharded / "whole.json").read_text(encoding="utf-8"))
    for r in base["results"]:
        if r["metrics"].get("cer") is not None:
            r["metrics"]["cer"] = 0.0
    (sharded / "perfect.json").write_text(json.dumps(base), encoding="utf-8")
    github = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(tmp_path / "shard-summary.md")}

    default = _pytest(sharded, "--ocr-shard=1/3", "--ocr-baseline=perfect.json", env=github)
    assert default.returncode == 1 and "\n::error file=" in default.stdout  # a shard alone annotates, as any run
    assert (tmp_path / "shard-summary.md").exists()
    (tmp_path / "shard-summary.md").unlink()

    failed = 0
    for k in (1, 2, 3):
        options = (f"--ocr-shard={k}/3", "--ocr-baseline=perfect.json", f"--ocr-report=gh-{k}.json")
        shard = _pytest(sharded, *options, "--ocr-github=off", env=github)
        assert shard.returncode in (0, 1), shard.stdout + shard.stderr
        assert not [line for line in shard.stdout.splitlines() if line.startswith("::")], shard.stdout
        failed += sum(r["outcome"] == "failed" for r in json.loads((sharded / f"gh-{k}.json").read_text())["results"])
    assert not (tmp_path / "shard-summary.md").exists()
    assert failed >= 3  # the Fraktur lines

    merged = subprocess.run(
        [sys.executable, "-m", "pytest_ocr.cli", "merge", *(str(sharded / f"gh-{k}.json") for k in (1, 2, 3))],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(tmp_path / "merge-summary.md")},
    )
    assert merged.returncode == 1, merged.stdout + merged.stderr
    errors = [line for line in merged.stdout.splitlines() if line.startswith("::error ")]
    gate = [line for line in errors if "title=OCR gate" in line]
    assert len(gate) == 1 and len(errors) == min(10, failed + 1), errors  # the failed gate, each failed item
    assert all(line.startswith(("::error file=lines.ocr.yaml,", "::error file=labels.txt,")) for line in errors)
    summary = (tmp_path / "merge-summary.md").read_text(encoding="utf-8")
    assert summary.count("### OCR results") == 1 and f"12 items: {12 - failed} passed, {failed} failed" in summary
    assert str(sharded) not in summary and str(tmp_path) not in summary
