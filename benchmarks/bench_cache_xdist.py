"""Output cache and pytest-xdist on the real-image example suite read by Tesseract.

What is measured
    The wall-clock time of ``python -m pytest example_suite -k "not rapidocr"`` (the
    Tesseract items: pages, lines, Fraktur lines, receipts, invoices; real OCR of real
    scans) in three ways, each run a subprocess:

    A. cold serial  -- an empty ``--ocr-cache-dir``: every image is recognized.
    B. warm serial  -- the directory A just filled: no image is recognized again.
    C. cold -n 2    -- an empty directory, two pytest-xdist workers on this 2-core machine.

    Targets: B <= 0.1 x A (re-running unchanged cases does not call the engine) and
    C <= 0.65 x A (two workers). Tesseract runs with pytest-ocr's default of one
    OpenMP thread per process (see bench_xdist_engines.py).

How: one untimed warm-up run (file cache, byte-compiling), then REPS rounds of A, B, C
with the order rotated each round, so the shared machine's noise hits all alike;
medians per side. Every run must pass (exit 0).

Usage: python benchmarks/bench_cache_xdist.py [--reps N]
Always exits 0: this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COMMAND = [
    sys.executable,
    "-m",
    "pytest",
    "example_suite",
    "-k",
    "not rapidocr",
    "-q",
    "-p",
    "no:randomly",
    "-p",
    "no:hypothesispytest",
]
WARM_TARGET, XDIST_TARGET = 0.1, 0.65


def timed(cache_dir: Path, *extra: str) -> float:
    start = time.perf_counter()
    result = subprocess.run(
        [*COMMAND, "--ocr-cache-dir", str(cache_dir), *extra], cwd=REPO, capture_output=True, text=True
    )
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"the example suite failed:\n{result.stdout[-3000:]}\n{result.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="rounds (default 3)")
    args = parser.parse_args()
    times: dict[str, list[float]] = {"cold serial": [], "warm serial": [], "cold -n 2": []}
    with tempfile.TemporaryDirectory(prefix="pytest-ocr-bench-") as tmp:
        fresh = iter(Path(tmp, f"cache{i}") for i in range(1000))
        timed(next(fresh))  # warm-up
        # B needs A's directory, so A comes before B; C takes each place in turn.
        orders = (
            ("cold -n 2", "cold serial", "warm serial"),
            ("cold serial", "warm serial", "cold -n 2"),
            ("cold serial", "cold -n 2", "warm serial"),
        )
        for rep in range(args.reps):
            dirs = {"cold serial": next(fresh), "cold -n 2": next(fresh)}
            dirs["warm serial"] = dirs["cold serial"]
            for label in orders[rep % 3]:
                times[label].append(timed(dirs[label], *(("-n", "2") if label == "cold -n 2" else ())))
    median = {label: statistics.median(values) for label, values in times.items()}
    cold = median["cold serial"]
    print(
        f"example suite, Tesseract items (-k 'not rapidocr'); {args.reps} rounds, medians; "
        f"OMP_THREAD_LIMIT={os.environ.get('OMP_THREAD_LIMIT', 'unset')}"
    )
    for label, values in times.items():
        print(f"  {label:12} {median[label]:7.2f} s   (runs: {', '.join(f'{v:.2f}' for v in values)})")
    warm, xdist = median["warm serial"] / cold, median["cold -n 2"] / cold
    print(f"  warm / cold serial:   {warm:.3f}   target <= {WARM_TARGET}: {'PASS' if warm <= WARM_TARGET else 'MISS'}")
    print(
        f"  -n 2 / serial (cold): {xdist:.3f}   target <= {XDIST_TARGET}: {'PASS' if xdist <= XDIST_TARGET else 'MISS'}"
    )


if __name__ == "__main__":
    main()
