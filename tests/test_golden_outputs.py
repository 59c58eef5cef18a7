"""The example suite's outputs, compared with golden files: the JSON report (``--ocr-report``),
the Markdown step summary (``$GITHUB_STEP_SUMMARY`` under ``GITHUB_ACTIONS=true``) and the
terminal's "OCR summary" section (with the GitHub annotations printed before it). A change of
structure (issue 28) must not change one number or one line of them.

``example_suite/`` runs as it is (its case files, images, PDF page, OCR-D workspace and ground
truth, copied to a temporary directory) in a pytest session of its own, with one difference:
every engine reads back what the real engine read in once (``tests/data/golden/recognitions/``,
one JSONL file per engine), so the outputs do not follow the Tesseract, RapidOCR and
onnxruntime versions a machine has. The engines the case files declare become ``predictions``
engines on the same lines (the report gives each case's line), and ``tesseract`` and
``rapidocr``, which the receipts and invoices name without declaring them (the built-in engine
types, used by their type's name), are declared as such in the project configuration. A
replayed run has no confidences, and its engines' fingerprints are those of the
recognitions files; every metric is the real run's (checked when the recognitions are
recorded).

Masked, because they vary from run to run or machine to machine: timings (keys ending in
``_s`` or ``_ms``, ``started``, ``started_at``, ``finished_at``, the terminal's pages/s and
time/page rows, durations in text), the Python, pytest, platform and pytest-ocr versions, the
temporary directory, and the space that aligns the terminal's columns (a column is as wide as
its widest cell, timings too). Everything else is compared exactly, the bootstrap intervals
too (numpy's generator, seeded: a numpy that draws otherwise would change them for users as well).

Regenerating, only for an intended change of an output (say so in the commit), never in CI:

    PYTEST_OCR_REGENERATE_GOLDEN=1 python -m pytest tests/test_golden_outputs.py

rewrites the three golden files from the replayed run;
``PYTEST_OCR_REGENERATE_GOLDEN=recognitions`` first reads the example suite again with the
real engines (Tesseract with eng, deu, frk, ell and srp, and RapidOCR), checks that the
replayed run's metrics are the real run's, and rewrites the recognitions too. Either way the
test then fails, so that a run that regenerates never passes as a check.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from conftest import REPO

GOLDEN = Path(__file__).parent / "data" / "golden"
RECOGNITIONS = GOLDEN / "recognitions"
REPORT, MARKDOWN, TERMINAL = "report.json", "step-summary.md", "terminal.txt"
REGENERATE = "PYTEST_OCR_REGENERATE_GOLDEN"

STORED = ("omnidocbench-outputs", "page-outputs")  # engine types that read a suite's stored outputs
DEFAULT_ENGINES = ("tesseract", "rapidocr")  # engine types named as engines by cases that declare none
COLUMNS = "120"
MASK = "<masked>"
TIMES = {"started", "started_at", "finished_at"}  # and every key ending in _s or _ms
MACHINE = ("python", "pytest", "platform")  # the run's versions of this machine
TIME_ROWS = ("pages/s", "time/page")  # terminal rows of engine speed
SHOWN = 200  # lines of each file's difference shown
DURATION = re.compile(r"\b\d+(?:\.\d+)? ?(?:ms|s)\b")


@dataclass(frozen=True)
class Outputs:
    report: dict
    markdown: str
    stdout: str


def session(root: Path) -> Outputs:
    """``pytest example_suite`` in ``root``, as under GitHub Actions: its report, step summary and output.
    Nothing of this session's environment that would change the outputs reaches it."""
    summary = root / "step-summary.md"
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("GITHUB_", "PYTEST_", "RUNNER_")) and key not in ("COLUMNS", "LINES", "CI")
    }
    env.update(COLUMNS=COLUMNS, GITHUB_ACTIONS="true", GITHUB_STEP_SUMMARY=str(summary))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "example_suite", "-p", "no:cacheprovider", "--ocr-report=report.json"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    report = json.loads((root / "report.json").read_text(encoding="utf-8"))
    return Outputs(report, summary.read_text(encoding="utf-8"), done.stdout)


def copy_suite(root: Path) -> None:
    shutil.copytree(REPO / "example_suite", root / "example_suite")
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")


def replayed_case_file(text: str) -> str:
    """The case file with each engine it declares replaced by a predictions engine reading
    that engine's recognitions, the rest of the ``engines:`` block blank: every other line
    stays where it was. An engine of stored outputs (STORED) stays as it is: it reads files
    of the suite, the same on every machine, and is not timed (a predictions engine is)."""
    engines = yaml.safe_load(text).get("engines") or {}
    declared = {name for name, spec in engines.items() if spec.get("type") not in STORED}
    lines = text.splitlines(keepends=True)
    if not declared:
        return text
    start = lines.index("engines:\n") + 1
    end = next(i for i in range(start, len(lines)) if lines[i][:1] not in (" ", "\n", "#"))
    replaced = set()
    kept = False
    for i in range(start, end):
        name = re.fullmatch(r"  ([\w-]+):\s*", lines[i])
        kept = name[1] not in declared if name else kept
        if name and name[1] in declared:
            replaced.add(name[1])
            lines[i] = f"  {name[1]}: {{type: predictions, path: ../recognitions/{name[1]}.jsonl}}\n"
        elif not kept:
            lines[i] = "\n"
    assert replaced == declared, f"engines not found in the engines block: {declared - replaced}"
    return "".join(lines)


def replay_suite(root: Path, recognitions: Path) -> None:
    """The example suite in ``root`` with every engine reading its recognitions from ``recognitions``."""
    copy_suite(root)
    shutil.copytree(recognitions, root / "recognitions")
    for case_file in sorted((root / "example_suite").glob("*.ocr.yaml")):
        case_file.write_text(replayed_case_file(case_file.read_text(encoding="utf-8")), encoding="utf-8")
    project = {"engines": {n: {"type": "predictions", "path": f"recognitions/{n}.jsonl"} for n in DEFAULT_ENGINES}}
    (root / "ocr-config.yaml").write_text(yaml.safe_dump(project), encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\nocr_config = ocr-config.yaml\n", encoding="utf-8")


def record_recognitions(root: Path, recognitions: Path) -> dict:
    """Read the example suite with the real engines; write each engine's texts to
    ``recognitions/<engine>.jsonl``, keyed as the predictions engine looks an image up
    (``<folder>/<name>``, a PDF's page as ``<folder>/<name>#page=<n>``). The real run's report."""
    copy_suite(root)
    report = session(root).report
    texts: dict[str, dict[str, str]] = {}
    for result in report["results"]:
        if report["engines"][result["engine"]]["type"] in STORED:  # replayed as they are
            continue
        image = Path(result["image"])
        key = f"{image.parent.name}/{image.name}" + (f"#page={result['page']}" if result.get("page") else "")
        assert key not in texts.setdefault(result["engine"], {}), f"two images keyed {key}"
        texts[result["engine"]][key] = result["prediction"]
    shutil.rmtree(recognitions, ignore_errors=True)
    recognitions.mkdir(parents=True)
    for engine, table in texts.items():
        lines = [json.dumps({"image": k, "text": t}, ensure_ascii=False) + "\n" for k, t in sorted(table.items())]
        (recognitions / f"{engine}.jsonl").write_text("".join(lines), encoding="utf-8")
    return report


def scores(report: dict) -> dict:
    """What a replay must keep of a run: everything scored from the texts, of each result and
    summed up (per engine, tag and group, dataset and gate), its timings masked."""
    kept = ("outcome", "prediction", "metrics", "details", "checks", "facts", "fields", "warnings", "error")
    results = {r["key"]: {k: r.get(k) for k in kept} for r in report["results"]}
    return {"results": results, **{part: masked(report[part]) for part in ("summary", "datasets", "gates")}}


def masked(value: object, key: str = "") -> object:
    if key in TIMES or key.endswith(("_s", "_ms")):
        return None if value is None else MASK
    if isinstance(value, dict):
        return {k: masked(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [masked(v) for v in value]
    return value


def report_text(report: dict, root: Path) -> str:
    document = masked(report)
    assert isinstance(document, dict)
    for machine in MACHINE:
        document["run"][machine] = MASK
    document["tool"]["version"] = MASK  # pytest-ocr's own: a release changes it, not a change of structure
    return json.dumps(document, indent=1, ensure_ascii=False).replace(str(root), "<tmp>") + "\n"


def masked_text(text: str, root: Path) -> str:
    """Durations and the temporary directory masked."""
    return DURATION.sub(MASK, text.replace(str(root), "<tmp>"))


def terminal_text(stdout: str, root: Path) -> str:
    """The GitHub annotations and the "OCR summary" section, up to pytest's next section or its
    last line; its rows of engine speed masked, and the space between cells (two or more) as two."""
    lines = stdout.splitlines()
    annotations = [line for line in lines if line.startswith("::")]
    start = next(i for i, line in enumerate(lines) if re.fullmatch(r"=+ OCR summary =+", line))
    end = next(i for i in range(start + 1, len(lines)) if re.fullmatch(r"[=_-]{3,} .* [=_-]{3,}", lines[i]))
    shown = []
    for line in annotations + lines[start:end]:
        text = line.lstrip()
        if text.startswith(TIME_ROWS):
            line = line[: len(line) - len(text)] + text.split("  ")[0] + "  " + MASK
        shown.append(re.sub(r"(?<=\S) {2,}", "  ", line))
    return masked_text("\n".join(shown) + "\n", root)


def golden_outputs(outputs: Outputs, root: Path) -> dict[str, str]:
    return {
        REPORT: report_text(outputs.report, root),
        MARKDOWN: masked_text(outputs.markdown, root),
        TERMINAL: terminal_text(outputs.stdout, root),
    }


def leaves(value: object, path: str = "") -> dict[str, object]:
    """Each value of a JSON document by its path (``summary.rapidocr.cer.ci95[0]``), in document order."""
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in leaves(item, f"{path}.{key}" if path else key).items()}
    if isinstance(value, list):
        return {k: v for i, item in enumerate(value) for k, v in leaves(item, f"{path}[{i}]").items()}
    return {path: value}


def changed_values(expected: str, got: str) -> list[str]:
    """The report's values that changed, one line each, the path first: a diff of the JSON text
    says where in the file, not which engine, item or metric."""
    before, after = leaves(json.loads(expected)), leaves(json.loads(got))
    paths = list(before) + [path for path in after if path not in before]
    absent = "(absent)"
    return [
        f"  {path}: {json.dumps(before.get(path, absent))} -> {json.dumps(after.get(path, absent))}\n"
        for path in paths
        if before.get(path, absent) != after.get(path, absent)
    ]


def difference(name: str, expected: str, got: str) -> list[str]:
    lines = changed_values(expected, got) if name == REPORT else []
    if len(lines) > SHOWN:
        lines = lines[:SHOWN] + [f"  ... and {len(lines) - SHOWN} more values\n"]
    diff = list(difflib.unified_diff(expected.splitlines(True), got.splitlines(True), f"golden/{name}", f"now/{name}"))
    if len(diff) > SHOWN:
        diff = diff[:SHOWN] + [f"... and {len(diff) - SHOWN} more lines of diff\n"]
    return (["values changed in report.json:\n"] if lines else []) + lines + diff


def test_example_suite_outputs_are_unchanged(tmp_path: Path) -> None:
    regenerate = os.environ.get(REGENERATE, "")
    real = None
    if regenerate == "recognitions":
        real = record_recognitions(tmp_path / "real", RECOGNITIONS)
    replay = tmp_path / "replay"
    replay_suite(replay, RECOGNITIONS)
    outputs = session(replay)
    if real is not None:
        assert [r["key"] for r in outputs.report["results"]] == [r["key"] for r in real["results"]]
        assert scores(outputs.report) == scores(real), "the replayed run scores differently from the real run"
    got = golden_outputs(outputs, replay)
    if regenerate:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        for name, text in got.items():
            (GOLDEN / name).write_text(text, encoding="utf-8")
        pytest.fail(f"golden files rewritten in {GOLDEN} ({REGENERATE}={regenerate}); run again without it")
    missing = [name for name in got if not (GOLDEN / name).is_file()]
    assert not missing, f"golden files missing in {GOLDEN}: {missing}; write them with {REGENERATE}=1"
    now = tmp_path / "now"
    now.mkdir()
    diffs = []
    for name, text in got.items():
        (now / name).write_text(text, encoding="utf-8")
        expected = (GOLDEN / name).read_text(encoding="utf-8")
        if text != expected:
            diffs += difference(name, expected, text)
    if diffs:
        whole = f"(the whole outputs, masked as compared: {now})\n"
        pytest.fail("outputs of the example suite changed " + whole + "".join(diffs), pytrace=False)
