"""Hostile shard reports given to `pytest-ocr merge` (issue 27): a report that lost results
but kept its counts, results that are not its shard's, a time that is not one, a shard 7 of
3, declarations of a wrong shape. Each is a real merge of real shard reports (three runs of
a suite of 36 items with --ocr-shard K/3), one of them edited, run under a memory limit and
a timeout (``run_bounded``): an incomplete merged run that names the missing items (exit
2), or one located line refusing the reports (exit 4), never a traceback or a merged run
that passes for complete.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import DATA, MERGE, Bounded, run_bounded

pytestmark = pytest.mark.slow

TIMEOUT = 60  # seconds; a merge must end in well under half of it
MEMORY_MB = 600
ITEMS = 36

ENGINE = """
from pathlib import Path

def read(image_path):
    return Path(image_path).with_suffix(".ocr.txt").read_text(encoding="utf-8")
"""
SUITE = (
    'engines: {fake: {type: python, function: "sidecar_engine:read"}}\n'
    "defaults: {engine: fake}\n"
    'aggregate: {cer.macro: "< 0.5"}\n'
    "cases:\n" + "".join(f"  - {{id: c{i:02d}, image: img.jpg, expected: {{text: hello}}}}\n" for i in range(ITEMS))
)


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A suite of 36 items run in three shards; each shard's report is shard-K.json."""
    root = tmp_path_factory.mktemp("shards")
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\n", encoding="utf-8")
    (root / "sidecar_engine.py").write_text(ENGINE, encoding="utf-8")
    shutil.copy(DATA / "lines" / "rapidocr_en_rec.jpg", root / "img.jpg")
    (root / "img.ocr.txt").write_text("hello", encoding="utf-8")
    (root / "s.ocr.yaml").write_text(SUITE, encoding="utf-8")
    for k in (1, 2, 3):
        shard = run_bounded(root, f"--ocr-shard={k}/3", "--ocr-report", f"shard-{k}.json", timeout=120)
        assert shard.returncode == 0, shard.output[-3000:]
    return root


def edited(shards: Path, tmp_path: Path, edit: Callable[[dict], None], k: int = 2) -> str:
    """shard-K.json as ``edit`` leaves it, written under ``tmp_path``; its path."""
    report = json.loads((shards / f"shard-{k}.json").read_text(encoding="utf-8"))
    edit(report)
    path = tmp_path / f"shard-{k}.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    return str(path)


def merge(shards: Path, tmp_path: Path, *reports: str) -> Bounded:
    """`pytest-ocr merge REPORTS -o merged.json` in ``tmp_path``, bounded; every report
    named relative to ``shards`` unless it is a path of its own."""
    paths = [r if Path(r).is_absolute() else str(shards / r) for r in reports]
    result = run_bounded(tmp_path, *paths, "-o", "merged.json", memory_mb=MEMORY_MB, timeout=TIMEOUT, command=MERGE)
    assert "Traceback" not in result.output, result.output[-3000:]
    assert result.seconds < TIMEOUT / 2, f"took {result.seconds:.1f} s"
    assert result.max_rss_mb < MEMORY_MB / 2, f"peak memory {result.max_rss_mb:.0f} MB"
    return result


def keys(shards: Path, k: int) -> list[str]:
    return json.loads((shards / f"shard-{k}.json").read_text(encoding="utf-8"))["shard"]["keys"]


def test_the_shards_as_written_merge_into_the_complete_run(shards: Path, tmp_path: Path) -> None:
    result = merge(shards, tmp_path, "shard-1.json", "shard-2.json", "shard-3.json")
    assert result.returncode == 0, result.output
    assert result.output.startswith(f"pytest-ocr merge: 3 of 3 shards, {ITEMS} of {ITEMS} OCR items\n")
    merged = result.report(tmp_path, "merged.json")
    assert merged["run"]["status"] == "complete" and len(merged["results"]) == ITEMS
    assert sorted(len(keys(shards, k)) for k in (1, 2, 3)) == [12, 12, 12]


def test_a_shard_that_lost_its_results_but_kept_its_counts_leaves_the_run_incomplete(
    shards: Path, tmp_path: Path
) -> None:
    """The issue's case: one shard's results emptied, its item count kept, its run 'complete'."""

    def emptied(report: dict) -> None:
        report["results"] = []

    lost = keys(shards, 2)
    result = merge(shards, tmp_path, "shard-1.json", edited(shards, tmp_path, emptied), "shard-3.json")
    assert result.returncode == 2, result.output  # incomplete, as for a missing shard
    assert result.output.startswith(f"pytest-ocr merge: 3 of 3 shards, 24 of {ITEMS} OCR items\n")
    named = ", ".join(lost[:10])
    why = f"shard 2/3: 12 of its 12 OCR item(s) without a result in {tmp_path / 'shard-2.json'}: {named} and 2 more"
    assert f"run interrupted: 12 OCR item(s) did not run ({why})" in result.output.splitlines()
    run = result.report(tmp_path, "merged.json")["run"]
    assert (run["status"], run["not_run"], run["interruption"]) == ("interrupted", 12, why)


def test_a_shard_missing_one_result_names_it(shards: Path, tmp_path: Path) -> None:
    def one_less(report: dict) -> None:
        report["results"] = report["results"][1:]

    first = keys(shards, 3)[0]
    result = merge(shards, tmp_path, "shard-1.json", "shard-2.json", edited(shards, tmp_path, one_less, k=3))
    assert result.returncode == 2, result.output
    run = result.report(tmp_path, "merged.json")["run"]
    assert run["not_run"] == 1
    assert (
        run["interruption"]
        == f"shard 3/3: 1 of its 12 OCR item(s) without a result in {tmp_path / 'shard-3.json'}: {first}"
    )


def _foreign(shards: Path) -> Callable[[dict], None]:
    """Shard 2's report with shard 1's first result added: an item that is not its own."""
    stolen = json.loads((shards / "shard-1.json").read_text(encoding="utf-8"))["results"][0]

    def edit(report: dict) -> None:
        report["results"].append(stolen)

    return edit


def _invented(report: dict) -> None:
    """An extra result for an item of no shard."""
    report["results"].append({**report["results"][0], "key": "s.ocr.yaml::ghost[fake]", "id": "ghost"})


def _relisted(report: dict) -> None:
    """A result dropped with its key and the count lowered: every count agrees, the suite does not."""
    report["results"] = report["results"][1:]
    report["shard"]["keys"] = report["shard"]["keys"][1:]
    report["shard"]["items"] -= 1


def _started(value: object) -> Callable[[dict], None]:
    def edit(report: dict) -> None:
        report["run"]["started_at"] = value

    return edit


def _shard(**values: object) -> Callable[[dict], None]:
    def edit(report: dict) -> None:
        report["shard"].update(values)

    return edit


def _gate(**values: object) -> Callable[[dict], None]:
    def edit(report: dict) -> None:
        report["shard"]["gates"][0].update(values)

    return edit


REFUSED = [
    (
        "foreign result",
        _foreign,
        "{path}: results of items that are not shard 2/3's (/shard/keys): {stolen}; "
        "a shard's report holds the results of its own items only",
    ),
    (
        "invented result",
        lambda _: _invented,
        "{path}: results of items that are not shard 2/3's (/shard/keys): "
        "s.ocr.yaml::ghost[fake]; a shard's report holds the results of its own items only",
    ),
    (
        "keys and count lowered",
        lambda _: _relisted,
        "{all}: the items the shards list (/shard/keys) are not the "
        "suite they declare (/shard/suite, 36 items); merge the shards' reports as they wrote them",
    ),
    (
        "shard 7 of 3",
        lambda _: _shard(index=7),
        "{path}: at /shard/index: shard 7 of 3; expected 1 to 3 (K of --ocr-shard K/N)",
    ),
    (
        "more items than the suite",
        lambda _: _shard(items=40),
        "{path}: at /shard/items: 40 items; expected at most the suite's 36 (/shard/suite_items)",
    ),
    (
        "count without keys",
        lambda _: _shard(items=13),
        "{path}: at /shard/keys: 12 items listed; expected 13, as /shard/items says",
    ),
    (
        "started_at a word",
        lambda _: _started("yesterday"),
        "{path}: not a valid pytest-ocr report: at "
        "/run/started_at: expected a date and time, ISO 8601 with its UTC offset (2026-11-22T10:00:00.250000+00:00; "
        "pytest-ocr writes UTC), got 'yesterday'",
    ),
    (
        "started_at without its offset",
        lambda _: _started("2026-11-22T10:00:00"),
        "{path}: not a valid pytest-ocr "
        "report: at /run/started_at: expected a date and time, ISO 8601 with its UTC offset "
        "(2026-11-22T10:00:00.250000+00:00; pytest-ocr writes UTC), got '2026-11-22T10:00:00'",
    ),
    (
        "started_at in a 13th month",
        lambda _: _started("2026-13-22T10:00:00+00:00"),
        "{path}: at /run/started_at: expected a date and time (ISO 8601), got '2026-13-22T10:00:00+00:00'",
    ),
    (
        "started_at a number",
        lambda _: _started(1763805600),
        "{path}: not a valid pytest-ocr report: at /run/started_at: 1763805600 is not of type 'string'",
    ),
    (
        "suite not a fingerprint",
        lambda _: _shard(suite="anything"),
        "{path}: not a valid pytest-ocr report: at "
        "/shard/suite: expected a SHA-256 in hexadecimal, or unknown for a shard that collected or ran no OCR item, "
        "got 'anything'",
    ),
    (
        "a key of another type",
        lambda _: _shard(keys=[5]),
        "{path}: not a valid pytest-ocr report: at /shard/keys/0: 5 is not of type 'string'",
    ),
    (
        "no keys",
        lambda _: lambda r: r["shard"].pop("keys"),
        "{path}: not a valid pytest-ocr report: at /shard: 'keys' is a required property",
    ),
    (
        "an unknown shard key",
        lambda _: _shard(extra=1),
        "{path}: not a valid pytest-ocr report: at /shard: "
        "Additional properties are not allowed ('extra' was unexpected)",
    ),
    (
        "gate operator",
        lambda _: _gate(op="=<"),
        "{path}: not a valid pytest-ocr report: at /shard/gates/0/op: '=<' is not one of "
        "['<', '<=', '>', '>=', '==', '']",
    ),
    (
        "gate scope",
        lambda _: _gate(scope=[["tag"]]),
        "{path}: not a valid pytest-ocr report: at /shard/gates/0/scope/0: ['tag'] is too short",
    ),
    ("gate metric", lambda _: _gate(metric="cerr"), "{path}: at /shard/gates/0/metric: unknown metric 'cerr'"),
    (
        "gate tolerance",
        lambda _: _gate(tolerance="lots"),
        "{path}: at /shard/gates/0/tolerance: a tolerance is a "
        "number such as 0.005 or a percentage such as \"10%\", not 'lots'",
    ),
    (
        "dataset shape",
        lambda _: lambda r: r["shard"]["datasets"].append({"file": "d.ocr.yaml"}),
        "{path}: not a valid pytest-ocr report: at /shard/datasets/0: 'line' is a required property",
    ),
]


@pytest.mark.parametrize("name, make, line", REFUSED, ids=[r[0] for r in REFUSED])
def test_a_shard_report_that_contradicts_itself_is_refused_in_one_located_line(
    shards: Path, tmp_path: Path, name: str, make: Callable, line: str
) -> None:
    path = edited(shards, tmp_path, make(shards))
    result = merge(shards, tmp_path, "shard-1.json", path, "shard-3.json")
    assert result.returncode == 4, result.output
    stolen = json.loads((shards / "shard-1.json").read_text(encoding="utf-8"))["results"][0]["key"]
    every = ", ".join([str(shards / "shard-1.json"), path, str(shards / "shard-3.json")])
    assert result.output == "pytest-ocr merge: " + line.format(path=path, stolen=stolen, all=every) + "\n"
    assert not (tmp_path / "merged.json").exists()


def test_keys_listed_twice_are_refused_without_repeating_the_list(shards: Path, tmp_path: Path) -> None:
    def doubled(report: dict) -> None:
        report["shard"]["keys"] = report["shard"]["keys"] * 2
        report["shard"]["items"] *= 2

    path = edited(shards, tmp_path, doubled)
    result = merge(shards, tmp_path, "shard-1.json", path, "shard-3.json")
    assert result.returncode == 4, result.output
    listed = ", ".join(keys(shards, 2)[:10])
    assert result.output == (
        f"pytest-ocr merge: {path}: at /shard/keys: items listed more than once: {listed} and 2 more\n"
    )


def _recorded_passed(checks: list[dict]) -> Callable[[dict], None]:
    """The first result's output made wrong (CER 0.25 against a threshold of < 0.01) and
    the result recorded passed anyway, with these checks: what anyone who can write a shard's
    report (a CI artifact of the pull request) could make a failed item say."""

    def edit(report: dict) -> None:
        result = report["results"][0]
        result["metrics"]["cer"] = 0.25
        result["thresholds"] = {"cer": "< 0.01"}
        result["checks"] = checks
        result["outcome"] = "passed"

    return edit


def _check(passed: bool) -> dict:
    return {"metric": "cer", "expression": "< 0.01", "value": 0.25, "passed": passed}


CONTRADICTED = [
    (
        "its check says passed",
        [_check(True)],
        "{path}: at /results/0/checks/0: {key}: the report says 'cer = 0.25, expected < 0.01: ok', but its values "
        "and thresholds give 'cer = 0.25, expected < 0.01: FAILED'; merge the shards' reports as they wrote them",
    ),
    (
        "its check dropped",
        [],
        "{path}: at /results/0/checks/0: {key}: the report says 'no check', but its values and thresholds give "
        "'cer = 0.25, expected < 0.01: FAILED'; merge the shards' reports as they wrote them",
    ),
    (
        "its outcome alone",
        [_check(False)],
        "{path}: at /results/0/outcome: {key} is recorded passed, but its checks say failed; merge the shards' "
        "reports as they wrote them",
    ),
]


@pytest.mark.parametrize("name, checks, line", CONTRADICTED, ids=[c[0] for c in CONTRADICTED])
def test_an_item_recorded_passed_that_its_values_fail_is_refused(
    shards: Path, tmp_path: Path, name: str, checks: list[dict], line: str
) -> None:
    """Issue 36: merge took an item marked passed whose check failed, and the merged run
    passed. Each measured item's checks and outcome are judged again from its values and
    thresholds (the item's own predicates); a report that says otherwise is refused."""
    path = edited(shards, tmp_path, _recorded_passed(checks))
    result = merge(shards, tmp_path, "shard-1.json", path, "shard-3.json")
    assert result.returncode == 4, result.output
    key = keys(shards, 2)[0]
    assert result.output == "pytest-ocr merge: " + line.format(path=path, key=key) + "\n"
    assert not (tmp_path / "merged.json").exists()
