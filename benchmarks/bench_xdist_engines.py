"""pytest-xdist with engines that run threaded inference: -n 2 against serial, per engine.

What is measured
    The wall-clock time of a pytest session reading real scans (the example suite's
    pages, receipts and invoices, each twice under two ids: 20 items) with one engine,
    the output cache off, in three ways, each a subprocess:

    A. serial              -- one process: RapidOCR with onnxruntime's default threads (every
                              core), Tesseract with pytest-ocr's default of one thread.
    B. -n 2                -- two pytest-xdist workers, each with the thread budget
                              pytest-ocr gives it (cores / workers: 1 thread each here).
    C. -n 2, every core    -- two workers, each engine told to use every core (RapidOCR's
                              ``threads: <cores>``; Tesseract's ``OMP_THREAD_LIMIT=<cores>``):
                              what -n 2 did before the budget.
    D. serial, every core  -- Tesseract only: one process with OpenMP on every core, what a
                              serial run did before.

    Beside each time, the CPU time of the session and its children over its wall time (how
    many cores it kept busy).

    Target: B <= 0.65 x A for RapidOCR (and reported for Tesseract).

How: one untimed warm-up (model files and the page cache), then REPS rounds with the
order of A, B, C rotated each round; medians per way. Every run must pass (exit 0).

Usage: python benchmarks/bench_xdist_engines.py [--reps N] [--engines rapidocr,tesseract]
Always exits 0: this is a measurement, not a test.

Results
    ``python benchmarks/bench_xdist_engines.py --reps 2`` on 2026-11-24, 2 cores, nothing else
    running:

    rapidocr: -n 2 / serial = 0.95 (MISSES <= 0.65)
      serial                 44.3 s   1.00x  1.91 cores busy
      -n 2                   42.1 s   0.95x  1.77 cores busy
      every core             52.9 s   1.20x  1.97 cores busy
    tesseract: -n 2 / serial = 0.63 (meets <= 0.65)
      serial                 18.7 s   1.00x  1.00 cores busy
      -n 2                   11.8 s   0.63x  1.74 cores busy
      every core            170.4 s   9.10x  1.98 cores busy
      serial, every core     18.5 s   0.99x  1.51 cores busy

    RapidOCR's target cannot be met on two cores: serial RapidOCR keeps 1.91 cores busy
    already, so two workers can at best gain what is left (0.95x is that). The budget is
    what keeps -n 2 from being slower than serial (1.20x with every core per worker).
    Tesseract's OpenMP threads buy nothing serially (18.5 s vs 18.7 s, half a core more
    busy) and cost 9x under -n 2, hence one thread by default.
"""

from __future__ import annotations

import argparse
import os
import resource
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


def timed(root: Path, engine: str, way: str, items: int) -> tuple[float, float]:
    """Wall seconds of the session, and the cores it kept busy on average."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_THREAD_LIMIT", "COLUMNS")}
    args = ["--ocr-engine", engine]
    if way != "serial":
        args += ["-n", "2"]
    if way == "every core":
        if engine == "rapidocr":
            args = ["--ocr-engine", "rapidocr-every-core", "-n", "2"]
        else:
            env["OMP_THREAD_LIMIT"] = str(CORES)
    if way == "serial, every core":
        args = ["--ocr-engine", engine]
        env["OMP_THREAD_LIMIT"] = str(CORES)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *OPTIONS, *args], cwd=root, env=env, capture_output=True, text=True
    )
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0 or f"{items} passed" not in done.stdout.splitlines()[-1]:  # every item ran
        print(done.stdout[-3000:], done.stderr[-3000:])
        raise SystemExit(f"{engine} {way}: unexpected exit {done.returncode}")
    return seconds, cpu / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--engines", default="rapidocr,tesseract")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        items = build(root)
        print(f"{items} items per engine, {CORES} cores, output cache off, medians of {args.reps}")
        for engine in args.engines.split(","):
            ways = ["serial", "-n 2", "every core"] + (["serial, every core"] if engine == "tesseract" else [])
            timed(root, engine, "-n 2", items)  # warm-up
            found: dict[str, list[tuple[float, float]]] = {way: [] for way in ways}
            for rep in range(args.reps):
                shift = rep % len(ways)
                for way in ways[shift:] + ways[:shift]:
                    found[way].append(timed(root, engine, way, items))
            median = {way: statistics.median(s for s, _ in runs) for way, runs in found.items()}
            busy = {way: statistics.median(b for _, b in runs) for way, runs in found.items()}
            serial = median["serial"]
            verdict = "meets" if median["-n 2"] / serial <= TARGET else "MISSES"
            print(f"{engine}: -n 2 / serial = {median['-n 2'] / serial:.2f} ({verdict} <= {TARGET})")
            for way in ways:
                print(f"  {way:<20} {median[way]:6.1f} s  {median[way] / serial:5.2f}x  {busy[way]:.2f} cores busy")


if __name__ == "__main__":
    main()
