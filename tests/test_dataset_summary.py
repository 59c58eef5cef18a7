"""The dataset evaluator's accounting for a PaddleOCR label file, through the plugin:
total = evaluated + filtered + skipped, exact-match accuracy, normalised edit distance
and similarity, and the skipped lines named; the same under pytest-xdist."""

from __future__ import annotations

import json

import pytest
from conftest import DATA

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

# Reads the side-car text and a confidence from the image's name: "lowconf" images come
# back at 0.3, below the dataset's conf_threshold of 0.5.
ENGINE = """
from pathlib import Path

def read(image_path):
    path = Path(image_path)
    return {"text": path.with_suffix(".ocr.txt").read_text(encoding="utf-8"),
            "confidence": 0.3 if "lowconf" in path.stem else 0.9}
"""

LABELS = (
    "\n".join(
        [
            "img/a.jpg\thello",  # exact
            "img/b.jpg\tworld",  # one substitution: ned 1/5
            "img/lowconf.jpg\tignored",  # filtered
            "no tab on this line",  # skipped (line 4)
            "img/missing.jpg\tgone",  # skipped: no such image (line 5)
            "",  # blank: not an entry
            "img/c.jpg\t数据集",  # exact, CJK
        ]
    )
    + "\n"
)


def make(pytester):
    pytester.makepyfile(conf_engine=ENGINE)
    pytester.makeini("[pytest]\npythonpath = .\n")
    image = (DATA / "lines" / "rapidocr_en_rec.jpg").read_bytes()
    (pytester.path / "img").mkdir()
    for stem, text in {"a": "hello", "b": "wprld", "lowconf": "ignored", "c": "数据集"}.items():
        (pytester.path / "img" / f"{stem}.jpg").write_bytes(image)
        (pytester.path / "img" / f"{stem}.ocr.txt").write_text(text, encoding="utf-8")
    (pytester.path / "labels.txt").write_text(LABELS, encoding="utf-8")
    pytester.makefile(
        ".ocr.yaml",
        rec="""
engines: {conf: {type: python, function: "conf_engine:read"}}
defaults: {engine: conf}
dataset: {type: paddle, label_file: labels.txt, conf_threshold: 0.5}
""",
    )


def check(pytester, *args):
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "--ocr-report", "r.json", *args)
    result.assert_outcomes(passed=3, skipped=1)
    out = result.stdout.str()
    assert "datasets (total = evaluated + filtered + skipped; accuracy = exact match; wall time" in out
    assert "skipped: labels.txt:4: " in out and "skipped: labels.txt:5: " in out
    report = json.loads((pytester.path / "r.json").read_text())
    (summary,) = report["datasets"]
    assert {k: summary[k] for k in ("file", "engine", "total", "evaluated", "filtered", "skipped")} == {
        "file": "rec.ocr.yaml",
        "engine": "conf",
        "total": 6,
        "evaluated": 3,
        "filtered": 1,
        "skipped": 2,
    }
    assert summary["accuracy"] == 2 / 3  # a and c exact, b not
    assert summary["ned"] == (0 + 1 / 5 + 0) / 3 and summary["ned_similarity"] == 1 - (1 / 5) / 3
    assert summary["inference_mean_ms"] > 0 and 0 < summary["item_time_s"]
    # wall clock from the first item's start to the last one's end: never longer than the run
    assert 0 < summary["wall_s"] <= report["run"]["duration_s"]
    assert [e["line"] for e in summary["skipped_entries"]] == [4, 5]
    records = {r["case"]: r for r in json.loads((pytester.path / "r.json").read_text())["results"]}
    filtered = next(r for r in records.values() if r["outcome"] == "filtered")
    assert "confidence 0.3000 is below 0.5" in filtered["error"] and filtered["metrics"] == {}
    return out


def test_paddle_accounting_serial_and_under_xdist(pytester):
    make(pytester)
    out = check(pytester)
    assert "filtered" in out  # the engine table has a filtered row
    check(pytester, "-n", "2")
