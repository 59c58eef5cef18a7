"""HTML report cost: writing ``--ocr-html`` for 5,000 cases, its size, and how fast it opens.

What is measured
    1. Generation time, two ways:
       a. whole runs: wall-clock time of a ``python -m pytest`` subprocess on a 5,000-case
          suite, with and without ``--ocr-html``, interleaved (without, with, with,
          without, ...) so slow phases of the shared machine hit both alike; medians.
          ratio = (with - without) / without. Target: <= 0.25.
       b. the call alone: the run record of one run (read back from its ``--ocr-report``)
          handed to ``pytest_ocr.report.html.page.render`` in this process, REPS times; the
          median divided by the median run without ``--ocr-html``. Subprocess noise of a
          few percent can hide or inflate (a); (b) is the cost itself.
       c. the page's worst case: the same suite with ground truth broken into lines (so
          the normalised texts the metrics compared differ from the texts as given, and
          each case embeds both with both alignments), run against a baseline of an
          earlier run whose predictions had other errors (so the overview lists
          regressed, improved and new items): (b) for that run, with its baseline view.
    2. Size: the file, and the file without its thumbnails (the ``ocr-thumb-N`` data
       blocks), which is what grows with the number of cases, for (a) and (c). Target:
       <= 15 MB without thumbnails.
    3. Thumbnail cost per distinct image (decode, scale into 1000x1000, JPEG encode),
       for the benchmark's line image and for two page scans of the example suite:
       what a suite of N distinct images adds to (1), N times over (two threads).
    4. Opening (when Chromium is installed): headless Chromium loads the 5,000-case page,
       the 5,000-case page of (c) and a 10-case page of the same suite (``--dump-dom``);
       reported is the page's own
       ``data-ocr-ms`` (milliseconds from navigation until the script drew the first
       page of rows: HTML parse, JSON.parse, drawing) and the wall time of the whole
       browser run (start-up and DOM serialisation included).

Inputs (generated in a temporary directory): 5,000 hard links of one small real image
(example_suite/data/lines/rapidocr_en_rec.jpg, 700x30), ground-truth texts of 50-300
characters from a word list (fixed seed), a CSV of predictions with 1-4 random character
edits each for the ``predictions`` engine, tags in five groups, threshold ``cer < 0.03``
(about one item in seven fails, so failure paths are in the report too).

Usage: python benchmarks/bench_html.py [--reps N]
Always exits 0: this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_plugin_overhead import corrupt, write_data  # the same generated data

from pytest_ocr.browser.chromium import RendererUnavailable, find_browser, one_shot_argv
from pytest_ocr.report.html import page as html_page
from pytest_ocr.report.html import thumbnails as html_thumbnails
from pytest_ocr.run.baseline import Baseline
from pytest_ocr.run.comparison import view
from pytest_ocr.run.record import RunRecord
from pytest_ocr.run.stored import with_scored_texts

REPO = Path(__file__).resolve().parent.parent
IMAGE = REPO / "example_suite" / "data" / "lines" / "rapidocr_en_rec.jpg"
PAGES = [
    REPO / "example_suite" / "data" / "pages" / "unlv_8087_054.tif",
    REPO / "example_suite" / "data" / "pages" / "dinglehopper_462875_0008.jpg",
]
N_CASES = 5000
TAGS = ("invoices", "letters", "forms", "receipts", "tables")
TIME_TARGET = 0.25
SIZE_TARGET_MB = 15.0
PYTEST_OPTIONS = ["-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:hypothesispytest", "--ocr-no-cache"]
THUMB_BLOCK = re.compile(rb'<script type="text/plain" id="ocr-thumb-\d+">[^<]*</script>')


def generate(root: Path, n: int, in_lines: bool = False) -> Path:
    """A suite of n cases in root/suite; returns that directory. ``in_lines``: each ground
    truth broken into lines of 8 words (the predictions stay on one line)."""
    data = root / "data"
    data.mkdir(parents=True)
    template = data / "template.jpg"
    shutil.copyfile(IMAGE, template)
    names = write_data(data, n, template)
    if in_lines:
        for gt in (data / "gt").iterdir():
            words = gt.read_text(encoding="utf-8").split(" ")
            gt.write_text("\n".join(" ".join(words[i : i + 8]) for i in range(0, len(words), 8)), encoding="utf-8")
    suite = root / "suite"
    suite.mkdir()
    (suite / "pytest.ini").write_text("[pytest]\n")
    lines = [
        "engines:",
        "  preds: {type: predictions, path: ../data/predictions.csv}",
        "defaults:",
        "  engine: preds",
        '  thresholds: {cer: "< 0.03"}',
        "cases:",
    ]
    for i, name in enumerate(names):
        stem = name[:-4]
        lines += [
            f"  - id: {stem}",
            f"    image: ../data/images/{name}",
            f"    tags: [{TAGS[i % len(TAGS)]}]",
            f"    expected: {{text_file: ../data/gt/{stem}.gt.txt}}",
        ]
    (suite / "suite.ocr.yaml").write_text("\n".join(lines) + "\n")
    return suite


def other_errors(suite: Path) -> None:
    """Give every prediction new random errors (another seed): against a baseline of the
    run before, some items regress, some improve."""
    data = suite.parent / "data"
    with open(data / "predictions.csv", encoding="utf-8", newline="") as f:
        header, *rows = list(csv.reader(f))
    rng = random.Random(20260101)
    fresh = []
    for name, _ in rows:
        truth = (data / "gt" / f"{name[:-4]}.gt.txt").read_text(encoding="utf-8")
        fresh.append([name, corrupt(" ".join(truth.split()), rng)])
    with open(data / "predictions.csv", "w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([header, *fresh])


def render_times(suite: Path, report: Path, reps: int, baseline: Path | None = None) -> list[float]:
    """Seconds of ``html.render`` on the run record of ``report`` (with its baseline view), REPS times."""
    document = json.loads(report.read_text(encoding="utf-8"))
    record = RunRecord.from_document(document)
    with_scored_texts(record.results)  # what the plugin keeps for the page, rebuilt from the report
    if baseline is not None:
        record.comparison = view(Baseline.load(baseline), record.results, None, 0.5)
    calls = []
    for _ in range(reps):
        start = time.perf_counter()
        html_page.render(record, suite.resolve())
        calls.append(time.perf_counter() - start)
    return calls


def run_pytest(directory: Path, *extra: str) -> tuple[float, subprocess.CompletedProcess]:
    argv = [sys.executable, "-m", "pytest", *PYTEST_OPTIONS, *extra, "."]
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=directory, capture_output=True, text=True)
    return time.perf_counter() - start, proc


def last_line(proc: subprocess.CompletedProcess) -> str:
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    return lines[-1] if lines else proc.stderr.strip()[-200:]


def sizes(path: Path) -> tuple[float, float]:
    """(file MB, MB without the thumbnail data blocks)."""
    data = path.read_bytes()
    thumbs = sum(len(m.group(0)) for m in THUMB_BLOCK.finditer(data))
    return len(data) / 1e6, (len(data) - thumbs) / 1e6


def thumbnail_ms(path: Path, reps: int = 5) -> float:
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        html_thumbnails.thumbnail(path)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def open_page(page: Path, profile: Path, reps: int = 3) -> tuple[float, float] | None:
    """(median ms to the first page drawn, by the page; median s of the browser run)."""
    try:
        chromium = find_browser()
    except RendererUnavailable:
        return None
    drawn, wall = [], []
    for rep in range(reps):
        argv = one_shot_argv(chromium, f"{profile}-{page.parent.name}-{rep}", page.as_uri(), "--dump-dom")
        start = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        wall.append(time.perf_counter() - start)
        found = re.search(r'data-ocr-ms="(\d+)"', proc.stdout)
        if not found:
            print(f"  WARNING: {page} did not render: {proc.stderr[-500:]}")
            return None
        drawn.append(float(found.group(1)))
    return statistics.median(drawn), statistics.median(wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="timed runs per side (default 5)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-html-") as tmp:
        root = Path(tmp)
        suite = generate(root, N_CASES)
        sides = {"without": [], "with --ocr-html": ["--ocr-html", "report.html"]}
        times: dict[str, list[float]] = {name: [] for name in sides}
        print(
            f"{N_CASES} cases on the predictions engine; {args.reps} timed runs per side after one warm-up, "
            f"interleaved; pytest {' '.join(PYTEST_OPTIONS)}"
        )
        for name, extra in sides.items():
            elapsed, proc = run_pytest(suite, *extra)
            print(f"  warm-up {name:16s} {elapsed:6.2f} s  rc={proc.returncode}  {last_line(proc)}")
        for rep in range(args.reps):
            for name in list(sides) if rep % 2 == 0 else list(reversed(sides)):
                elapsed, proc = run_pytest(suite, *sides[name])
                if proc.returncode not in (0, 1):
                    print(f"  WARNING: {name} run {rep} exited {proc.returncode}: {last_line(proc)}")
                times[name].append(elapsed)
        without = statistics.median(times["without"])
        with_html = statistics.median(times["with --ocr-html"])
        ratio = (with_html - without) / without

        # The call alone, on the record of one run.
        run_pytest(suite, "--ocr-report", "report.json")
        calls = render_times(suite, suite / "report.json", args.reps)
        call = statistics.median(calls)

        # The worst case: lines in the ground truth, against a baseline with other errors.
        lines = generate(root / "lines", N_CASES, in_lines=True)
        run_pytest(lines, "--ocr-report", "base.json")
        other_errors(lines)
        against = ["--ocr-baseline", "base.json", "--ocr-report", "head.json"]
        lines_without, proc = run_pytest(lines, *against)
        lines_with, _ = run_pytest(lines, *against, "--ocr-html", "report.html")
        lines_calls = render_times(lines, lines / "head.json", args.reps, lines / "base.json")
        lines_call = statistics.median(lines_calls)

        print()
        print(f"{'side':18s} {'median s':>9s} {'min s':>7s} {'max s':>7s}")
        for name in sides:
            print(f"{name:18s} {statistics.median(times[name]):9.2f} {min(times[name]):7.2f} {max(times[name]):7.2f}")
        print(
            f"(a) whole runs: (with - without) / without = {ratio:.3f}  target <= {TIME_TARGET}  "
            f"{'PASS' if ratio <= TIME_TARGET else 'MISS'}"
        )
        print(
            f"(b) html.render alone: median {call:.3f} s (min {min(calls):.3f}, max {max(calls):.3f}) over "
            f"{args.reps} calls; / run without = {call / without:.3f}  target <= {TIME_TARGET}  "
            f"{'PASS' if call / without <= TIME_TARGET else 'MISS'}"
        )

        print(
            f"(c) ground truth in lines, against a baseline ({last_line(proc)}): html.render alone: median "
            f"{lines_call:.3f} s (min {min(lines_calls):.3f}, max {max(lines_calls):.3f}); / run without = "
            f"{lines_call / lines_without:.3f}  target <= {TIME_TARGET}  "
            f"{'PASS' if lines_call / lines_without <= TIME_TARGET else 'MISS'}; one run each: without "
            f"{lines_without:.2f} s, with --ocr-html {lines_with:.2f} s"
        )

        for name, page in (("(a)", suite / "report.html"), ("(c)", lines / "report.html")):
            total, no_thumbs = sizes(page)
            print(
                f"size {name}: {total:.2f} MB; without thumbnails {no_thumbs:.2f} MB ({no_thumbs * 1e6 / N_CASES:.0f} "
                f"bytes per case)  target <= {SIZE_TARGET_MB} MB  {'PASS' if no_thumbs <= SIZE_TARGET_MB else 'MISS'}"
            )
        print(f"  (the {N_CASES} images are links to one file: one thumbnail, {(total - no_thumbs) * 1000:.1f} kB)")

        print("thumbnail per distinct image (decode, scale, encode; median of 5):")
        for path in (IMAGE, *PAGES):
            from PIL import Image

            with Image.open(path) as image:
                shape = f"{image.size[0]}x{image.size[1]} {image.format} {image.mode}"
            print(f"  {path.name:34s} {shape:24s} {thumbnail_ms(path):7.1f} ms")
        print("  (a suite of N distinct images adds about N times this, spread over the cores)")

        small = generate(root / "small", 10)
        run_pytest(small, "--ocr-html", "report.html")
        big = open_page(suite / "report.html", root / "profile")
        worst = open_page(lines / "report.html", root / "profile")
        tiny = open_page(small / "report.html", root / "profile")
        if big is None or worst is None or tiny is None:
            print("opening: not measured (chromium not installed, or the page did not render)")
        else:
            print(
                "opening in headless Chromium (median of 3): first page drawn after "
                f"{big[0]:.0f} ms with {N_CASES} cases, {worst[0]:.0f} ms with {N_CASES} of (c), {tiny[0]:.0f} ms "
                f"with 10; whole browser run {big[1]:.2f} s, {worst[1]:.2f} s and {tiny[1]:.2f} s"
            )
    sys.exit(0)


if __name__ == "__main__":
    main()
