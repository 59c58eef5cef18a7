"""The JSON report and the terminal summary of one fixed run, compared with the ones
the code gave before it was made faster (issue 15): speed work must not change a single
output. The suite mixes what a run can hold: passing and failing thresholds, key fields
with matchers, extra metrics, normalisations, tags and groups, an item error, a dataset
with skipped entries and an invalid case file, all with stored predictions (no OCR).

Timings and timestamps are left out; paths are relative to the run's directory. The
expected files were written by this test with PYTEST_OCR_WRITE_EXPECTED=1 on the code of
commit f39d7a5 (before any of issue 15's changes); rewrite them only for an intended
change of an output, and say so in the commit.
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA

pytestmark = pytest.mark.slow

EXPECTED = Path(__file__).parent / "data" / "outputs-unchanged"
VOLATILE = {"started", "started_at", "finished_at", "performance"}  # and every key ending in _s or _ms: times

SUITE = """\
engines:
  stored: {type: predictions, path: predictions.csv}
defaults:
  engine: stored
  thresholds: {cer: "< 0.2"}
  tags: [golden]
cases:
  - {id: exact, image: img/a.jpg, expected: {text_file: gt/a.gt.txt}}
  - {id: close, image: img/b.jpg, expected: {text_file: gt/b.gt.txt}, group: batch-1}
  - {id: far, image: img/c.jpg, expected: {text_file: gt/c.gt.txt}, group: batch-1, tags: [hard]}
  - {id: casefolded, image: img/d.jpg, expected: {text: "INVOICE No. 12345 TOTAL RM8.35"}, normalize: {casefold: true}}
  - id: fields
    image: img/e.jpg
    expected:
      text: "Invoice 12345 Total 8.35 Date 28/12/2017"
      fields: {number: "12345", total: "RM8.35", date: "28/12/2017"}
    extract: {fields: {number: 'Invoice (\\d+)', total: 'Total ([\\d.]+)', date: 'Date (\\S+)'}}
    match: {total: numeric, date: {type: date, formats: ["%d/%m/%Y"]}}
    metrics: [fca, bow_error, token_f1]
  - {id: ocrd-page, image: img/f.jpg, expected: {text_file: gt/f.gt.txt}, normalize: ocrd, metrics: [char_accuracy]}
  - {id: no-truth-file, image: img/g.jpg, expected: {text_file: gt/missing.gt.txt}}
  - {id: looping, image: img/h.jpg, expected: {text: "one two three"}, thresholds: {wer: "<= 0.5"}}
"""
TRUTH = {
    "a": "The quick brown fox jumps over the lazy dog.",
    "b": "Pack my box with five dozen liquor jugs.",
    "c": "Sphinx of black quartz, judge my vow.",
    "f": "Die Aufklärung ist der Ausgang des Menschen\naus seiner selbstverschuldeten Unmündigkeit.",
    "g": "never read",
}
OUTPUTS = {
    "a": "The quick brown fox jumps over the lazy dog.",
    "b": "Pack my box with flve dozen liquor jugs",
    "c": "Sphnx of blak quarts, judge me now!!",
    "d": "invoice no. 12345 total rm8.35",
    "e": "Invoice 12345 Total 8.35 Date 28/12/2017",
    "f": "Die Aufklärung iſt der Ausgang des Menſchen\naus ſeiner ſelbſtverſchuldeten Unmündigkeit.",
    "g": "anything",
    "h": "one two three " + "three " * 40,
    "l1": "hello world",
    "l2": "goodbye",
}
LABELS = "img/l1.jpg\thello world\nimg/l2.jpg\tgood bye\nno tab here\nimg/missing.jpg\tx\n"
DATASET = """\
engines:
  stored: {type: predictions, path: predictions.csv}
defaults: {engine: stored}
dataset: {type: paddle, label_file: labels.txt}
"""


def make(root: Path) -> None:
    (root / "img").mkdir()
    (root / "gt").mkdir()
    image = (DATA / "lines" / "rapidocr_en_rec.jpg").read_bytes()
    for stem in OUTPUTS:
        (root / "img" / f"{stem}.jpg").write_bytes(image)
    for stem, text in TRUTH.items():
        if stem != "g":
            (root / "gt" / f"{stem}.gt.txt").write_text(text, encoding="utf-8")
    with open(root / "predictions.csv", "w", encoding="utf-8", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["image", "text"])
        writer.writerows([f"{stem}.jpg", text] for stem, text in OUTPUTS.items())
    (root / "cases.ocr.yaml").write_text(SUITE, encoding="utf-8")
    (root / "labels.txt").write_text(LABELS, encoding="utf-8")
    (root / "labels.ocr.yaml").write_text(DATASET, encoding="utf-8")
    (root / "broken.ocr.yaml").write_text("image: [unclosed\n", encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")


def scrubbed(value: object) -> object:
    if isinstance(value, dict):
        return {k: scrubbed(v) for k, v in value.items() if k not in VOLATILE and not k.endswith(("_s", "_ms"))}
    if isinstance(value, list):
        return [scrubbed(v) for v in value]
    return value


def summary(output: str, root: Path) -> str:
    """The OCR summary section of the terminal output, timings and the columns' spacing
    (which follows the timings' widths) left out."""
    section = output[output.index("OCR summary") : output.rindex("OCR report:")].replace(str(root), "<root>")
    lines = []
    for line in section.splitlines():
        if line.startswith(("pages/s", "time/page")):
            continue
        line = re.sub(r"\b\d+(\.\d+)? ?m?s\b", "<time>", line)
        lines.append(" ".join(line.split()))
    return "\n".join(lines) + "\n"


# Under pytest-xdist too: results, gates and the dataset's accounting travel between
# processes there (a file's gates and dataset once per worker), and must come out the same.
@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_report_and_summary_are_unchanged(tmp_path, workers):
    make(tmp_path)
    session = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--ocr-report", "report.json", "-rN", *workers],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "400"},
        timeout=300,
    )
    assert session.returncode == 1, session.stdout[-3000:]
    document = json.loads((tmp_path / "report.json").read_text())
    assert document["run"].pop("workers") == (2 if workers else 0)
    for machine in ("python", "pytest", "platform"):  # the versions this machine has, not outputs
        del document["run"][machine]
    report = json.dumps(scrubbed(document), indent=1, sort_keys=True)
    report = report.replace(str(tmp_path), "<root>") + "\n"
    shown = summary(session.stdout, tmp_path)
    if os.environ.get("PYTEST_OCR_WRITE_EXPECTED") and not workers:
        EXPECTED.mkdir(parents=True, exist_ok=True)
        (EXPECTED / "report.json").write_text(report, encoding="utf-8")
        (EXPECTED / "summary.txt").write_text(shown, encoding="utf-8")
        pytest.skip("expected outputs written")
    assert report == (EXPECTED / "report.json").read_text(encoding="utf-8")
    assert shown == (EXPECTED / "summary.txt").read_text(encoding="utf-8")
