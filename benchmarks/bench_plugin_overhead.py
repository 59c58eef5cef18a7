"""Plugin overhead: pytest-ocr evaluating 2,000 cases vs a plain parametrized pytest file.

What is measured
    Wall-clock time of a whole ``python -m pytest`` subprocess (interpreter start,
    collection, 2,000 test items, terminal summary) on two equivalent suites:

    A. plain    -- one ``test_plain.py`` with ``@pytest.mark.parametrize`` over 2,000
                   (image, ground-truth file, prediction) entries. The CSV of predictions
                   is read once at import; each test checks the image header, reads its
                   ground-truth file, computes ``pytest_ocr.metrics.cer`` and asserts
                   ``cer < 0.5``: what a user would write by hand.
    B. plugin   -- the same 2,000 cases as an ``*.ocr.yaml`` suite using the
                   ``predictions`` engine on the same CSV, the same ground-truth files
                   (``expected: {text_file: ...}``) and ``thresholds: {cer: "< 0.5"}``.
                   Two layouts: one file with 2,000 cases, and 20 files x 100 cases.

Inputs (generated into a temporary directory, never into the repo): 2,000 hard links
of one minimal valid PNG, 2,000 ground-truth texts of 50-300 characters built from a
word list (fixed seed), and a CSV of predictions each with 1-4 random character edits.
Every case passes its threshold on both sides.

How
    Each side runs with identical options
    (``-q -p no:cacheprovider -p no:randomly -p no:hypothesispytest``) from its own
    directory holding an identical empty ``pytest.ini``. One untimed warm-up run per
    side, then REPS runs per side, interleaved (A B, B A, A B, ...) so slow phases of
    the shared machine hit both sides alike. Reported: median seconds per side and
    the ratio of medians (plugin / plain). Target: ratio <= 1.5.

    If a plugin layout misses the target (or with ``--profile``), the single-file
    plugin run is repeated once under cProfile and the top cumulative entries inside
    pytest_ocr, and overall, are printed.

Usage: python benchmarks/bench_plugin_overhead.py [--reps N] [--profile]
Always exits 0: this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import csv
import os
import pstats
import random
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

N_CASES = 2000
N_FILES = 20  # for the multi-file layout: N_FILES x (N_CASES / N_FILES) cases
THRESHOLD = 0.5
TARGET = 1.5
PYTEST_OPTIONS = ["-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:hypothesispytest"]

WORDS = (
    "the of and to in is was for on that with as by at from this be are or an it not which have his "
    "invoice total amount date number customer payment account order receipt tax price quantity "
    "Rechnung Betrag Datum Kunde Zahlung Menge Preis Strasse Hamburg Berlin page chapter volume "
    "history letter ground truth recognition character error rate line paragraph 2023 12.50 0041 "
    "No. Ltd. GmbH Co. Street Road Avenue Tel: Fax: VAT: 19% EUR USD RM"
).split()
ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,;:-"


def minimal_png() -> bytes:
    """A valid 8x8 greyscale PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\xff" * 8 for _ in range(8))
    header = struct.pack(">IIBBBBB", 8, 8, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def make_text(rng: random.Random) -> str:
    length = rng.randint(50, 300)
    words: list[str] = []
    while sum(len(w) + 1 for w in words) < length:
        words.append(rng.choice(WORDS))
    return " ".join(words)[:length].strip()


def corrupt(text: str, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(chars))
        edit = rng.choice(("sub", "del", "ins"))
        if edit == "sub":
            chars[i] = rng.choice(ALPHABET)
        elif edit == "del" and len(chars) > 1:
            del chars[i]
        else:
            chars.insert(i, rng.choice(ALPHABET))
    return "".join(chars)


PLAIN_TEST = """\
import csv
from pathlib import Path

import pytest

from pytest_ocr.metrics import cer

DATA = Path(__file__).resolve().parent.parent / "data"
PNG = b"\\x89PNG\\r\\n\\x1a\\n"


def _entries():
    with open(DATA / "predictions.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    return [
        pytest.param(DATA / "images" / row["image"], DATA / "gt" / (row["image"][:-4] + ".gt.txt"), row["text"],
                     id=row["image"][:-4])
        for row in rows
    ]


@pytest.mark.parametrize("image,gt,prediction", _entries())
def test_ocr(image, gt, prediction):
    with image.open("rb") as f:
        assert f.read(16).startswith(PNG)
    reference = gt.read_text(encoding="utf-8")
    assert cer(reference, prediction) < THRESHOLD
"""


def suite_yaml(names: list[str]) -> str:
    lines = [
        "engines:",
        "  preds:",
        "    type: predictions",
        "    path: ../data/predictions.csv",
        "defaults:",
        "  engine: preds",
        f'  thresholds: {{cer: "< {THRESHOLD}"}}',
        "cases:",
    ]
    for name in names:
        stem = name[:-4]
        lines += [
            f"  - id: {stem}",
            f"    image: ../data/images/{name}",
            f"    expected: {{text_file: ../data/gt/{stem}.gt.txt}}",
        ]
    return "\n".join(lines) + "\n"


def write_predictions_data(data: Path, template: Path, n: int) -> list[str]:
    """n images (links to ``template``) in data/images, ground truth in data/gt and a
    predictions.csv with each text slightly corrupted; returns the image names."""
    rng = random.Random(20240501)
    (data / "images").mkdir(parents=True)
    (data / "gt").mkdir()
    names = [f"img_{i:04d}{template.suffix}" for i in range(n)]
    with open(data / "predictions.csv", "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["image", "text"])
        for name in names:
            try:
                os.link(template, data / "images" / name)
            except OSError:
                shutil.copyfile(template, data / "images" / name)
            reference = make_text(rng)
            (data / "gt" / f"{name[:-4]}.gt.txt").write_text(reference, encoding="utf-8")
            writer.writerow([name, corrupt(reference, rng)])
    return names


def generate(root: Path) -> dict[str, Path]:
    """Write the shared data and the three suites; return side name -> run directory."""
    data = root / "data"
    data.mkdir()
    template = data / "template.png"
    template.write_bytes(minimal_png())
    names = write_predictions_data(data, template, N_CASES)

    sides = {"plain": root / "plain", "plugin 1x2000": root / "plugin1", "plugin 20x100": root / "plugin20"}
    for directory in sides.values():
        directory.mkdir()
        (directory / "pytest.ini").write_text("[pytest]\n")
    (sides["plain"] / "test_plain.py").write_text(PLAIN_TEST.replace("THRESHOLD", repr(THRESHOLD)))
    (sides["plugin 1x2000"] / "suite.ocr.yaml").write_text(suite_yaml(names))
    per_file = N_CASES // N_FILES
    for k in range(N_FILES):
        chunk = names[k * per_file : (k + 1) * per_file]
        (sides["plugin 20x100"] / f"suite_{k:02d}.ocr.yaml").write_text(suite_yaml(chunk))
    return sides


def run_pytest(directory: Path, prefix: list[str] | None = None) -> tuple[float, subprocess.CompletedProcess]:
    argv = [sys.executable, *(prefix or ["-m", "pytest"]), *PYTEST_OPTIONS, "."]
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=directory, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    return elapsed, proc


def last_line(proc: subprocess.CompletedProcess) -> str:
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    return lines[-1] if lines else proc.stderr.strip()[-200:]


def profile(directory: Path, root: Path) -> None:
    out = root / "plugin.prof"
    argv = ["-m", "cProfile", "-o", str(out), "-m", "pytest"]
    elapsed, proc = run_pytest(directory, argv)
    print(f"\ncProfile of '{directory.name}' run ({elapsed:.2f} s wall under the profiler; rc={proc.returncode})")
    stats = pstats.Stats(str(out))
    stats.sort_stats("cumulative")
    print("\n-- top cumulative entries in pytest_ocr --")
    stats.print_stats("pytest_ocr", 25)
    print("-- top cumulative entries overall --")
    stats.print_stats(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="timed runs per side (default 5)")
    parser.add_argument("--profile", action="store_true", help="profile the plugin run even if it meets the target")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-plugin-overhead-") as tmp:
        root = Path(tmp)
        sides = generate(root)
        order = list(sides)
        times: dict[str, list[float]] = {name: [] for name in order}

        print(
            f"{N_CASES} cases; {args.reps} timed runs per side after one warm-up, interleaved; "
            f"pytest {' '.join(PYTEST_OPTIONS)}"
        )
        for name in order:  # warm-up: byte-compiles, fills the OS file cache
            elapsed, proc = run_pytest(sides[name])
            print(f"  warm-up {name:14s} {elapsed:6.2f} s  rc={proc.returncode}  {last_line(proc)}")
            if proc.returncode != 0:
                print(proc.stdout[-3000:], proc.stderr[-3000:], sep="\n")
        for rep in range(args.reps):
            for name in order if rep % 2 == 0 else reversed(order):
                elapsed, proc = run_pytest(sides[name])
                if proc.returncode != 0:
                    print(f"  WARNING: {name} run {rep} exited {proc.returncode}: {last_line(proc)}")
                times[name].append(elapsed)

        plain = statistics.median(times["plain"])
        print()
        print(f"{'side':16s} {'median s':>9s} {'min s':>7s} {'max s':>7s} {'ratio':>6s} {'target':>7s}  result")
        print(f"{'plain':16s} {plain:9.2f} {min(times['plain']):7.2f} {max(times['plain']):7.2f}")
        missed = False
        for name in order[1:]:
            median = statistics.median(times[name])
            ratio = median / plain
            ok = ratio <= TARGET
            missed |= not ok
            print(
                f"{name:16s} {median:9.2f} {min(times[name]):7.2f} {max(times[name]):7.2f} "
                f"{ratio:6.2f} {'<= ' + str(TARGET):>7s}  {'PASS' if ok else 'MISS'}"
            )
        print("(ratio = plugin median / plain median; times are whole-subprocess wall clock)")

        if missed or args.profile:
            profile(sides["plugin 1x2000"], root)
    sys.exit(0)


if __name__ == "__main__":
    main()
