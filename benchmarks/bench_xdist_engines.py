"""pytest-xdist with engines that run threaded inference: -n 2 against serial, per engine.

What is measured
    The wall-clock time of a pytest session reading real scans (the example suite's
    pages, receipts and invoices, each twice under two ids: 20 items) with one engine,
    the output cache off, in three ways, each a subprocess:

    A. serial              -- one process; the engine uses its library's default threads.
    B. -n 2                -- two pytest-xdist workers, each with the thread budget
                              pytest-ocr gives it (cores / workers: 1 thread each here).
    C. -n 2, every core    -- two workers, each engine told to use every core (RapidOCR's
                              ``threads: <cores>``; Tesseract's ``OMP_THREAD_LIMIT=<cores>``):
                              what -n 2 did before the budget.

    Target: B <= 0.65 x A for RapidOCR (and reported for Tesseract).

How: one untimed warm-up (model files and the page cache), then REPS rounds with the
order of A, B, C rotated each round; medians per way. Every run must pass (exit 0).

Usage: python benchmarks/bench_xdist_engines.py [--reps N] [--engines rapidocr,tesseract]
Always exits 0: this is a measurement, not a test.

Results
    RESULTS_PLACEHOLDER
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "example_suite" / "data"
CORES = len(os.sched_getaffinity(0))
TARGET = 0.65
OPTIONS = ["-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:hypothesispytest", "--ocr-no-cache"]


def build(root: Path) -> int:
    images = sorted(
        [
            *DATA.glob("pages/*.tif"),
            *DATA.glob("pages/*.jpg"),
            *DATA.glob("receipts/*.jpg"),
            *DATA.glob("invoices/*.png"),
        ]
    )
    (root / "img").mkdir(parents=True)
    lines = [
        "engines:",
        f"  rapidocr-every-core: {{type: rapidocr, threads: {CORES}}}",
        "cases:",
    ]
    for copy in (1, 2):
        for image in images:
            target = root / "img" / f"{copy}-{image.name}"
            shutil.copy(image, target)
            lines.append(
                f"  - {{id: {copy}-{image.stem}, image: img/{target.name}, expected: {{text: x}}}}"
            )  # no threshold: all pass
    (root / "pages.ocr.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    return 2 * len(images)


def timed(root: Path, engine: str, way: str, items: int) -> float:
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_THREAD_LIMIT", "COLUMNS")}
    args = ["--ocr-engine", engine]
    if way != "serial":
        args += ["-n", "2"]
    if way == "every core":
        if engine == "rapidocr":
            args = ["--ocr-engine", "rapidocr-every-core", "-n", "2"]
        else:
            env["OMP_THREAD_LIMIT"] = str(CORES)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *OPTIONS, *args], cwd=root, env=env, capture_output=True, text=True
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0 or f"{items} passed" not in done.stdout.splitlines()[-1]:  # every item ran
        print(done.stdout[-3000:], done.stderr[-3000:])
        raise SystemExit(f"{engine} {way}: unexpected exit {done.returncode}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--engines", default="rapidocr,tesseract")
    args = parser.parse_args()
    ways = ["serial", "-n 2", "every core"]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        items = build(root)
        print(f"{items} items per engine, {CORES} cores, output cache off, medians of {args.reps}")
        for engine in args.engines.split(","):
            timed(root, engine, "-n 2", items)  # warm-up
            found: dict[str, list[float]] = {way: [] for way in ways}
            for rep in range(args.reps):
                for way in ways[rep % 3 :] + ways[: rep % 3]:
                    found[way].append(timed(root, engine, way, items))
            serial, budget, every = (statistics.median(found[way]) for way in ways)
            verdict = "meets" if budget / serial <= TARGET else "MISSES"
            print(
                f"{engine:<10} serial {serial:6.1f} s   -n 2 {budget:6.1f} s ({budget / serial:.2f}x, {verdict} "
                f"<= {TARGET})   -n 2 every core {every:6.1f} s ({every / serial:.2f}x)"
            )


if __name__ == "__main__":
    main()
