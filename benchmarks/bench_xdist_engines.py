"""pytest-xdist with engines that run threaded inference: -n 2 against serial, per engine.

What is measured
    The wall-clock time of a pytest session reading real scans (the example suite's
    pages, receipts and invoices, each twice under two ids: 20 items) with one engine,
    the output cache off, in these ways, each a subprocess:

    A. serial              -- one process: RapidOCR with onnxruntime's default threads (every
                              core), Tesseract with pytest-ocr's default of one thread.
    B. -n 2                -- two pytest-xdist workers, each with the thread budget
                              pytest-ocr gives it (cores / workers: 1 thread each here).
    B'. -n 2, worksteal    -- B with ``--dist worksteal``: an idle worker takes queued items
                              from the other, so neither waits at the end.
    C. -n 2, every core    -- two workers, each engine told to use every core (RapidOCR's
                              ``threads: <cores>``; Tesseract's ``OMP_THREAD_LIMIT=<cores>``):
                              what -n 2 did before the budget.
    D. serial, every core  -- Tesseract only: one process with OpenMP on every core, what a
                              serial run did before.

    Beside each time, the CPU time of the session and its children over its wall time (how
    many cores it kept busy).

    With ``--ceiling``, also what two workers could gain at best with RapidOCR, without
    pytest: the same 20 pages read by RapidOCR in one process with onnxruntime's default
    threads, against two processes at once with one thread each, each reading one copy of
    the 10 pages (the same work: no worker waits for the other; model loading in both).

    Target: B <= 0.65 x A for RapidOCR (and reported for Tesseract).

How: one untimed warm-up (model files and the page cache), then REPS rounds with the
order of the ways rotated each round; medians per way. Every run must pass (exit 0).

Usage: python benchmarks/bench_xdist_engines.py [--reps N] [--engines rapidocr,tesseract] [--ceiling]
Always exits 0: this is a measurement, not a test.

Results
    ``python benchmarks/bench_xdist_engines.py --engines rapidocr --ceiling --reps 2`` on
    2026-11-24, 2 cores, nothing else running:

    rapidocr: -n 2 / serial = 0.95 (MISSES <= 0.65)
      serial                 44.5 s   1.00x  1.90 cores busy
      -n 2                   42.3 s   0.95x  1.77 cores busy
      -n 2, worksteal        38.9 s   0.87x  1.96 cores busy
      every core             51.7 s   1.16x  1.97 cores busy
    RapidOCR without pytest, 20 pages: two 1-thread processes / one process = 0.86
      one process, default threads     47.0 s   1.90 cores busy
      two processes, 1 thread each     40.6 s   1.96 cores busy

    Tesseract, from ``--reps 2`` the same day (before the worksteal row was added):

    tesseract: -n 2 / serial = 0.63 (meets <= 0.65)
      serial                 18.7 s   1.00x  1.00 cores busy
      -n 2                   11.8 s   0.63x  1.74 cores busy
      every core            170.4 s   9.10x  1.98 cores busy
      serial, every core     18.5 s   0.99x  1.51 cores busy

    RapidOCR's target cannot be met on two cores: serial RapidOCR keeps 1.90 cores busy
    already, and onnxruntime's second thread makes one process 1.6x faster (3.35 s a page
    with one thread, 2.09 s with two), so two single-thread workers can gain at most what
    the ceiling shows (0.86x without pytest; 0.82-0.88x over three quiet runs). The
    default ``--dist load`` leaves a worker idle at the end (1.77 cores busy: 0.95x);
    ``--dist worksteal`` keeps both busy and reaches 0.87x, the ceiling. The budget is what
    keeps -n 2 from being slower than serial (1.16x-1.26x with every core per worker).
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
    if way == "-n 2, worksteal":
        args += ["--dist", "worksteal"]
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


CEILING = """
import sys
from rapidocr import RapidOCR

threads, images = int(sys.argv[1]), sys.argv[2:]
params = {"Global.log_level": "error"}
if threads:
    ort = "EngineConfig.onnxruntime."
    params |= {ort + "intra_op_num_threads": threads, ort + "inter_op_num_threads": 1}
ocr = RapidOCR(params=params)
for image in images:
    ocr(image)
"""


def ceiling(root: Path) -> tuple[float, float]:
    """Wall seconds and busy cores of RapidOCR alone reading every copied image: one
    process with onnxruntime's default threads, or two at once with one thread each."""
    images = sorted(str(image) for image in (root / "img").iterdir())
    halves = [[image for image in images if Path(image).name.startswith(f"{copy}-")] for copy in (1, 2)]  # alike
    env = {k: v for k, v in os.environ.items() if k != "OMP_THREAD_LIMIT"}
    found = []
    for commands in (
        [[sys.executable, "-c", CEILING, "0", *images]],
        [[sys.executable, "-c", CEILING, "1", *half] for half in halves],
    ):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        procs = [subprocess.Popen(command, env=env) for command in commands]
        if any(proc.wait() != 0 for proc in procs):
            raise SystemExit("RapidOCR failed outside pytest")
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        found.append((seconds, cpu / seconds))
    return found[0] + found[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--engines", default="rapidocr,tesseract", help="comma-separated; empty for none")
    parser.add_argument("--ceiling", action="store_true", help="also RapidOCR's best case without pytest")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        items = build(root)
        print(f"{items} items per engine, {CORES} cores, output cache off, medians of {args.reps}")
        for engine in filter(None, args.engines.split(",")):
            ways = ["serial", "-n 2", "-n 2, worksteal", "every core"]
            ways += ["serial, every core"] if engine == "tesseract" else []
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
        if args.ceiling:
            runs = [ceiling(root) for _ in range(args.reps)]
            one, one_busy, two, two_busy = (statistics.median(run[i] for run in runs) for i in range(4))
            print(f"RapidOCR without pytest, {items} pages: two 1-thread processes / one process = {two / one:.2f}")
            print(f"  one process, default threads   {one:6.1f} s   {one_busy:.2f} cores busy")
            print(f"  two processes, 1 thread each   {two:6.1f} s   {two_busy:.2f} cores busy")


if __name__ == "__main__":
    main()
