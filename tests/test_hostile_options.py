"""Options a hostile or careless user gives (issue 27): numbers that overflow, and outputs
that would overwrite an input or each other. Each is a usage error when pytest starts
(exit status 4, one line naming the option), before any OCR runs, in a real session
under ``run_bounded``; and the same for ``pytest-ocr merge``'s own outputs."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_bounded
from PIL import Image

pytestmark = pytest.mark.slow

MEMORY_MB = 800
TIMEOUT = 60
USAGE_ERROR = int(pytest.ExitCode.USAGE_ERROR)

ENGINE = "from pathlib import Path\n\ndef read(image_path):\n    return Path(image_path).stem\n"


def project(root: Path) -> Path:
    """An ini file naming ocr_config, an engine, a case file with one case, its image."""
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\nocr_config = ocr.yaml\n", encoding="utf-8")
    (root / "ocr.yaml").write_text("engines: {stem: {type: python, function: 'engine:read'}}\n", encoding="utf-8")
    (root / "engine.py").write_text(ENGINE, encoding="utf-8")
    Image.new("L", (40, 20), 255).save(root / "a.png")
    (root / "cases.ocr.yaml").write_text(
        "cases:\n  - {id: a, image: a.png, engine: stem, expected: {text: a}}\n", encoding="utf-8"
    )
    return root


def files(root: Path) -> dict[str, bytes]:
    """The project's files and their contents (run_bounded's own note of its memory aside)."""
    return {path.name: path.read_bytes() for path in root.iterdir() if path.is_file() and path.name != ".peak-rss-kib"}


def refused(root: Path, *args: str) -> str:
    """The one ERROR line of a session that stopped with a usage error before collecting."""
    result = run_bounded(root, *args, memory_mb=MEMORY_MB, timeout=TIMEOUT)
    assert result.returncode == USAGE_ERROR, result.output[-3000:]
    assert "Traceback" not in result.output and "INTERNALERROR" not in result.output, result.output[-3000:]
    assert "collected" not in result.output, result.output[-3000:]  # stopped before collecting
    errors = [line for line in result.output.splitlines() if line.startswith("ERROR: ")]
    assert len(errors) == 1, result.output[-3000:]
    return errors[0]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--ocr-max-output-mb=inf"], "--ocr-max-output-mb: expected a number above 0 and at most 1,000,000, not inf"),
        (["--ocr-max-file-mb=inf"], "--ocr-max-file-mb: expected a number above 0 and at most 1,000,000, not inf"),
        (["--ocr-max-image-mb=1e400"], "--ocr-max-image-mb: expected a number above 0 and at most 1,000,000, not inf"),
        (["--ocr-max-render-s=nan"], "--ocr-max-render-s: expected a number above 0 and at most 1,000,000, not nan"),
        (["--ocr-max-rasterise-mb=-1"], "--ocr-max-rasterise-mb: expected a number above 0 and at most 1,000,000"),
        (
            [f"--ocr-max-image-pixels={10**13}"],
            "--ocr-max-image-pixels: expected a number above 0 and at most 1,000,000,000,000, not 10000000000000",
        ),
        (["--ocr-shard=1/" + "9" * 400], "--ocr-shard '1/9999999999999999999999999999...': expected K/N with 1 <="),
        (["--ocr-shard=1_0/2_0"], "--ocr-shard '1_0/2_0': expected K/N, two whole numbers with 1 <= K <= N"),
        (["--ocr-shard=2/20000"], "--ocr-shard '2/20000': expected K/N with 1 <= K <= N <= 10,000, e.g. 2/4"),
        (
            ["--ocr-repeat=" + "9" * 400],
            "--ocr-repeat: expected a whole number from 1 to 1000, not 999999999999999999999999999999...",
        ),
        (
            ["--ocr-max-image-pixels=" + "9" * 400],
            "--ocr-max-image-pixels: expected a number above 0 and at most 1,000,000,000,000, not "
            "999999999999999999999999999999...",
        ),
    ],
)
def test_a_number_beyond_its_range_is_a_usage_error(tmp_path: Path, args: list[str], error: str) -> None:
    """inf and 1e400 passed start-up and then failed every item (an int of infinite
    megabytes); 400 digits of shards were an INTERNALERROR; 1_0/2_0 ran shard 10 of 20.
    A value given is quoted whole up to 40 characters (400 digits were a paragraph)."""
    line = refused(project(tmp_path), *args)
    assert line.startswith(f"ERROR: {error}") and len(line) < 160, line


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--ocr-html=cases.ocr.yaml"], "--ocr-html: {root}/cases.ocr.yaml is named as case files are "),
        (["--ocr-report=new.ocr.json"], "--ocr-report: {root}/new.ocr.json is named as case files are "),
        (
            ["--ocr-report=r.json", "--ocr-html=r.json"],
            "--ocr-html: {root}/r.json is also --ocr-report's file; each output needs a file of its own",
        ),
        (
            ["--ocr-report=out/r.json", "--ocr-results-dir=out"],
            "--ocr-report: {root}/out/r.json is inside --ocr-results-dir {root}/out, which holds a folder per run",
        ),
        (
            ["--ocr-baseline=b.json", "--ocr-baseline-write=create", "--ocr-report=b.json"],
            "--ocr-baseline: {root}/b.json is also --ocr-report's file; each output needs a file of its own",
        ),
        (["--ocr-html=ocr.yaml"], "--ocr-html: {root}/ocr.yaml is the ocr_config file, which the run reads"),
        (["--ocr-report=pytest.ini"], "--ocr-report: {root}/pytest.ini is pytest's ini file, which the run reads"),
        (
            ["--ocr-baseline=base.json", "--ocr-baseline-write=update", "--ocr-html=link-to-base.json"],
            "--ocr-baseline: {root}/base.json is also --ocr-html's file; each output needs a file of its own",
        ),
        (["--ocr-html=link-to-ini"], "--ocr-html: {root}/link-to-ini is pytest's ini file, which the run reads"),
        (
            ["--ocr-report=pipe"],
            "--ocr-report: {root}/pipe is a named pipe (FIFO), not a regular file: an output is written beside it "
            "and renamed over it, which would replace it; give a file name",
        ),
        (["--ocr-html=null"], "--ocr-html: {root}/null is a character device, not a regular file: an output is"),
        (
            ["--ocr-baseline=null", "--ocr-baseline-write=create"],
            "--ocr-baseline: {root}/null is a character device, not a regular file",
        ),
    ],
)
def test_an_output_that_would_overwrite_an_input_or_another_output_is_a_usage_error(
    tmp_path: Path, args: list[str], error: str
) -> None:
    """--ocr-html naming a case file overwrote it; --ocr-report and --ocr-html naming one file
    lost the report. Links are followed: a hard link to the baseline is the baseline, a
    symbolic one to the ini file the ini file. An output renamed over a FIFO or a device
    replaced it (/dev/null itself, as root: the link to it stands for it here)."""
    root = project(tmp_path)
    first = run_bounded(root, "--ocr-report=base.json", memory_mb=MEMORY_MB, timeout=TIMEOUT)
    assert first.returncode == 0, first.output[-3000:]
    (root / "link-to-base.json").hardlink_to(root / "base.json")
    (root / "link-to-ini").symlink_to(root / "pytest.ini")
    os.mkfifo(root / "pipe")
    (root / "null").symlink_to(os.devnull)
    before = files(root)
    assert refused(root, *args).startswith("ERROR: " + error.format(root=root))
    assert files(root) == before  # nothing written, nothing overwritten
    assert stat.S_ISFIFO((root / "pipe").lstat().st_mode) and (root / "null").readlink() == Path(os.devnull)


def merge(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_ocr.cli", "merge", *args], cwd=root, capture_output=True, text=True, timeout=60
    )


def test_merge_outputs_that_would_overwrite_a_shard_or_each_other_are_usage_errors(tmp_path: Path) -> None:
    root = project(tmp_path)
    shard = run_bounded(root, "--ocr-shard=1/1", "--ocr-report=shard.json", memory_mb=MEMORY_MB, timeout=TIMEOUT)
    assert shard.returncode == 0, shard.output[-3000:]
    kept = (root / "shard.json").read_bytes()
    (root / "null").symlink_to(os.devnull)
    for args, error in (
        (["-o", "shard.json"], "--output: shard.json is a shard's report, which the run reads: the output would"),
        (["-o", "m.json", "--html", "m.json"], "--html: m.json is also --output's file; each output needs a file"),
        (["--results-dir", "out", "--html", "out/m.html"], "--html: out/m.html is inside --results-dir out, which"),
        (["--baseline", "b.json", "--baseline-write", "create", "-o", "b.json"], "--baseline: "),
        (["-o", "null"], "--output: null is a character device, not a regular file: an output is written beside"),
    ):
        done = merge(root, "shard.json", *args)
        assert done.returncode == USAGE_ERROR, (args, done.stdout, done.stderr)
        assert done.stderr.startswith(f"pytest-ocr merge: {error}"), (args, done.stderr)
        assert done.stderr.count("\n") == 1 and done.stdout == "", (args, done.stderr)
    assert (root / "shard.json").read_bytes() == kept
    assert not (root / "m.json").exists() and not (root / "b.json").exists()
    assert (root / "null").readlink() == Path(os.devnull)
