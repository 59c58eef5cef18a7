"""Under GitHub Actions: ::error annotations where each failure is declared (a dataset
item at its own entry), paths relative to the repository, the most important first and
never a gate left out; and a Markdown step summary with the engines, the deltas against
the baseline and the gates."""

from __future__ import annotations

import csv
import json
import shutil

import jsonschema
import pytest
from conftest import DATA, run

from pytest_ocr.run.stored import report_schema

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow


def commands(result) -> list[str]:
    return [line for line in result.stdout.lines if line.startswith("::")]


def test_annotations_and_step_summary(suite, monkeypatch):
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    summary = suite.path / "summary.md"
    suite.image("good.tif", "abcdefghij")
    suite.image("bad.tif", "abcdefghXX")
    suite.image("crash.tif", None)  # the sidecar engine raises for this one
    suite.write(
        "s.ocr.yaml",
        """aggregate: {cer.macro: "< 0.01"}
cases:
  - {id: good, image: good.tif, expected: {text: abcdefghij}, thresholds: {cer: "<= 0.1"}}
  - {id: bad, image: bad.tif, expected: {text: abcdefghij}, thresholds: {cer: "< 0.1"}}
  - {id: crash, image: crash.tif, expected: {text: abcdefghij}}
""",
    )
    run(suite, "--ocr-report", "base.json")
    suite.image("good.tif", "abcdefghiX")  # a regression against the baseline, within its threshold
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    summary.write_text("earlier step's summary\n")
    result = run(suite, "--ocr-baseline", "base.json")
    result.assert_outcomes(passed=0, failed=3, errors=1)
    # The gate first (at its declaration, relative like every other path), then the
    # regressed item, the item over its threshold, the error; line 3 is the "good" case,
    # 4 "bad", 5 "crash". Numbers rounded; ":" and "," in values escaped.
    assert commands(result) == [
        "::error file=s.ocr.yaml,line=1,title=OCR gate%3A fake%3A cer.macro < 0.01::"
        "fake: cer.macro = 0.1500 over 2 case(s), expected < 0.01: FAILED (declared at s.ocr.yaml:1)",
        "::error file=s.ocr.yaml,line=3,title=OCR regressed%3A good on fake::"
        "cer: 0.0000 -> 0.1000 (+0.1000; lower is better; tolerance 0): REGRESSED",
        "::error file=s.ocr.yaml,line=4,title=OCR failed%3A bad on fake::cer = 0.2000, expected < 0.1: FAILED",
        "::error file=s.ocr.yaml,line=5,title=OCR error%3A crash on fake::"
        "sidecar_engine:read raised RuntimeError: engine crashed on crash.tif",
    ]
    text = summary.read_text()
    assert text.startswith("earlier step's summary\n### OCR results")  # appended, not overwritten
    assert "#### Compared with the baseline" in text and "#### Aggregate gates (0 passed, 1 failed)" in text
    assert "s.ocr.yaml::bad\\[fake\\]" in text and "s.ocr.yaml::crash\\[fake\\]" in text  # [ ] escaped for Markdown
    assert "(declared at s.ocr.yaml:1)" in text and str(suite.path) not in text


def test_nothing_for_github_outside_github_actions(suite, monkeypatch):
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    summary = suite.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    suite.image("bad.tif", "abcdefghXX")
    suite.write("s.ocr.yaml", "image: bad.tif\nexpected: {text: abcdefghij}\nthresholds: {cer: '< 0.1'}\n")
    result = run(suite)
    assert not any(line.startswith("::error") for line in result.stdout.lines)
    assert not summary.exists()


# -- dataset items: at their own entry ------------------------------------------------------


def datasets(suite) -> None:
    """One suite per kind of entry, every item failing its threshold (the engine reads
    "wrong" everywhere): a PaddleOCR label file, tesstrain pairs, one CSV per model, PAGE."""
    root = suite.path
    for name in ("a", "b", "c"):
        suite.image(f"data/img/{name}.tif", "wrong")
    suite.write("data/labels.txt", "\n# a blank line and a comment-like line are entries too\nimg/a.tif\tone\n")
    with (root / "data/labels.txt").open("a", encoding="utf-8") as labels:
        labels.write("img/b.tif\ttwo\nimg/c.tif\tthree\n")  # lines 4 and 5
    suite.write(
        "paddle.ocr.yaml",
        "defaults: {thresholds: {cer: '< 0.01'}}\ndataset: {type: paddle, label_file: data/labels.txt}\n",
    )

    suite.image("lines/deep/p.tif", "wrong")
    suite.write("lines/deep/p.gt.txt", "pairs truth\n")
    suite.write("pairs.ocr.yaml", "defaults: {thresholds: {cer: '< 0.01'}}\ndataset: {type: pairs, path: lines}\n")

    suite.image("bench/images/batch-1/m.tif", None)
    suite.write("bench/images/batch-1/m.gt.txt", "model truth\n")
    (root / "bench/models").mkdir(parents=True)
    with open(root / "bench/models/modelx.csv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["image_name", "batch_id", "inference"], ["m.tif", "batch-1", "wrong"]])
    suite.write(
        "models.ocr.yaml",
        "defaults: {thresholds: {cer: '< 0.01'}}\n"
        "dataset: {type: model-csv, images: bench/images, models: bench/models}\n",
    )

    (root / "gt").mkdir()
    shutil.copy(DATA / "pages/dinglehopper_462875_0008.page.xml", root / "gt/0008.page.xml")
    suite.image("scans/0008.jpg", "wrong", source="pages/dinglehopper_462875_0008.jpg")
    suite.write(
        "pages.ocr.yaml",
        "defaults: {thresholds: {cer: '< 0.01'}}\ndataset: {type: page-xml, path: gt, image_dir: scans}\n",
    )


def test_dataset_items_point_at_their_own_entry_relative_to_the_repository(suite, monkeypatch):
    datasets(suite)
    summary = suite.path / "summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    # The project is a directory of the repository: GitHub finds files by their path from its root.
    monkeypatch.setenv("GITHUB_WORKSPACE", str(suite.path.parent))
    project = suite.path.name
    result = run(suite, "--ocr-report", "report.json")
    result.assert_outcomes(failed=6)
    where = {
        line.split("title=")[1].split("::")[0]: line.split(" ", 1)[1].split(",title=")[0] for line in commands(result)
    }
    assert where == {
        "OCR failed%3A img.a on fake": f"file={project}/data/labels.txt,line=3",
        "OCR failed%3A img.b on fake": f"file={project}/data/labels.txt,line=4",
        "OCR failed%3A img.c on fake": f"file={project}/data/labels.txt,line=5",
        "OCR failed%3A deep.p on fake": f"file={project}/lines/deep/p.gt.txt,line=1",  # its ground truth
        "OCR failed%3A batch-1.m on modelx": f"file={project}/bench/images/batch-1/m.gt.txt,line=1",
        "OCR failed%3A 0008 on fake": f"file={project}/gt/0008.page.xml,line=1",
    }
    paddle = next(line for line in commands(result) if "img.b on fake" in line)
    assert paddle.endswith(
        "::cer = 1.3333, expected < 0.01: FAILED%0A(dataset item img.b of " + project + "/paddle.ocr.yaml:2)"
    )

    # The report records the entry, relative to the project directory, as an optional field.
    report = json.loads((suite.path / "report.json").read_text(encoding="utf-8"))
    jsonschema.validate(report, report_schema())
    assert {r["case"]: (r["source_file"], r["source_line"]) for r in report["results"]} == {
        "img.a": ("data/labels.txt", 3),
        "img.b": ("data/labels.txt", 4),
        "img.c": ("data/labels.txt", 5),
        "deep.p": ("lines/deep/p.gt.txt", 1),
        "batch-1.m": ("bench/images/batch-1/m.gt.txt", 1),
        "0008": ("gt/0008.page.xml", 1),
    }
    # The step summary names the suite's line and the entry, as failure messages do.
    assert "| paddle.ocr.yaml::img.b\\[fake\\] | paddle.ocr.yaml:2 (from data/labels.txt:4) |" in summary.read_text()

    # Outside a workspace, paths are relative to the project directory, as the keys are.
    monkeypatch.delenv("GITHUB_WORKSPACE")
    result = run(suite)
    assert any(
        line.startswith("::error file=data/labels.txt,line=4,title=OCR failed%3A img.b") for line in commands(result)
    )
    # A case written in its case file has no entry of its own.
    suite.image("w.tif", "wrong")
    suite.write("w.ocr.yaml", "image: w.tif\nexpected: {text: right}\nthresholds: {cer: '< 0.01'}\n")
    result = run(suite, "w.ocr.yaml", "--ocr-report", "w.json")
    assert commands(result)[0].startswith("::error file=w.ocr.yaml,line=1,title=OCR failed%3A w on fake::")
    [record] = json.loads((suite.path / "w.json").read_text(encoding="utf-8"))["results"]
    assert (record["source_file"], record["source_line"]) == (None, None)


# -- order and cap ----------------------------------------------------------------------------

REFERENCE = "abcdefghijklmnopqrst"  # 20 characters: one wrong character is a CER of 0.05


def wrong(n: int) -> str:
    return "X" * n + REFERENCE[n:]


def test_most_important_first_and_the_cap_never_drops_a_gate(suite, monkeypatch):
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    # Regressed within their threshold (< 0.25): worse by 1, 4, 2, 3 characters of 20.
    regressed = {"r1": 1, "r2": 4, "r3": 2, "r4": 3}
    # Over their threshold in both runs, by the same amount (so not regressed).
    over = {"o1": 6, "o2": 10, "o3": 7, "o4": 18, "o5": 8, "o6": 12}
    lines = ["aggregate: {cer.macro: '< 0.01', cer.micro: '< 0.01'}", "cases:"]
    for name in [*regressed, *over, "e1", "e2"]:
        lines.append(
            f"  - {{id: {name}, image: {name}.tif, expected: {{text: {REFERENCE}}}, thresholds: {{cer: '< 0.25'}}}}"
        )
    suite.write("s.ocr.yaml", "\n".join(lines) + "\n")
    for name in regressed:
        suite.image(f"{name}.tif", REFERENCE)
    for name, n in over.items():
        suite.image(f"{name}.tif", wrong(n))
    for name in ("e1", "e2"):
        suite.image(f"{name}.tif", REFERENCE)
    run(suite, "--ocr-report", "base.json")
    for name, n in regressed.items():
        suite.image(f"{name}.tif", wrong(n))
    for name in ("e1", "e2"):
        (suite.path / f"{name}.ocr.txt").unlink()  # the engine now raises
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(suite.path / "summary.md"))

    result = run(suite, "--ocr-baseline", "base.json", "--ocr-gate", "wer.macro<0.01")
    result.assert_outcomes(failed=10 + 3, errors=2)
    titles = [line.split("title=")[1].split("::")[0] for line in commands(result)]
    assert titles == [
        # the three failed gates, then the regressed items worst first, then the items
        # furthest over their threshold: ten errors, what GitHub shows of a step
        "OCR gate%3A fake%3A wer.macro < 0.01",
        "OCR gate%3A fake%3A cer.macro < 0.01",
        "OCR gate%3A fake%3A cer.micro < 0.01",
        "OCR regressed%3A r2 on fake",
        "OCR regressed%3A r4 on fake",
        "OCR regressed%3A r3 on fake",
        "OCR regressed%3A r1 on fake",
        "OCR failed%3A o4 on fake",
        "OCR failed%3A o6 on fake",
        "OCR failed%3A o2 on fake",
        "More OCR failures",
    ]
    assert commands(result)[-1] == (
        "::warning title=More OCR failures::5 more not annotated (3 over thresholds, 2 errors; GitHub shows 10 "
        "error annotations per step): see the step summary or the JSON report"
    )
    gate = next(line for line in commands(result) if "wer.macro" in line)
    assert gate.startswith("::error title=")  # a command-line gate has no file to point at

    # More failed gates than GitHub shows: every gate still, and no item.
    many = [arg for bound in range(1, 12) for arg in ("--ocr-gate", f"cer.macro<0.00{bound:02d}")]
    result = run(suite, "--ocr-baseline", "base.json", *many)
    titles = [line.split("title=")[1].split("::")[0] for line in commands(result)]
    assert len(titles) == 2 + 11 + 1 and all(t.startswith("OCR gate%3A") for t in titles[:-1])
    assert commands(result)[-1].startswith(
        "::warning title=More OCR failures::12 more not annotated (4 regressed, 6 over thresholds, 2 errors; "
    )
