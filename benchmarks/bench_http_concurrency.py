"""HTTP concurrency: a suite against an OCR server that batches, with up to K requests in flight.

What is measured
    The wall-clock time of ``python -m pytest`` on one suite of 50 cases, all on an
    ``openai`` engine that talks to a local OpenAI-compatible server answering every
    request after 200 ms (``tests/engine_helpers/servers.py --delay 0.2``, a separate
    process, so its threads do not share pytest's interpreter), with the engine's
    ``concurrency`` at 1 and at 8. Same suite, same server, the only difference is K.

    At K = 1 the run waits 50 x 200 ms = 10 s on the server alone; at K = 8 the
    plugin keeps 8 requests in flight while items still run and report in order, so
    the server's time is about 7 rounds of 200 ms. Target: time(K=8) <= 0.2 x time(K=1).

How: one untimed warm-up per side, then REPS runs per side interleaved (1, 8, 8, 1,
...) so the shared machine's noise hits both alike; median per side; ratio = K8 / K1.
The server also reports the most requests it saw in flight at once (it counts them).

Usage: python benchmarks/bench_http_concurrency.py [--reps N] [--cases N]
Always exits 0: this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SERVER = REPO / "tests" / "engine_helpers" / "servers.py"
IMAGE = REPO / "example_suite" / "data" / "lines" / "rapidocr_en_rec.jpg"
DELAY = 0.2
TARGET = 0.2
PYTEST_OPTIONS = ["-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:hypothesispytest"]


def write_suite(directory: Path, base_url: str, cases: int, concurrency: int) -> Path:
    suite = directory / f"k{concurrency}"
    suite.mkdir()
    shutil.copy(IMAGE, suite / IMAGE.name)
    lines = [
        "engines:",
        f"  vlm: {{type: openai, base_url: '{base_url}', model: fake-vlm, concurrency: {concurrency}, "
        "timeout: 30, retries: 0}",
        "defaults:",
        "  engine: vlm",
        "  thresholds: {cer: '== 0'}",
        "cases:",
    ]
    lines += [f"  - {{id: c{i:03d}, image: {IMAGE.name}, expected: {{text: hello world}}}}" for i in range(cases)]
    (suite / "suite.ocr.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (suite / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    return suite


def timed_run(suite: Path) -> float:
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", *PYTEST_OPTIONS, "suite.ocr.yaml"], cwd=suite, capture_output=True, text=True
    )
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"the suite in {suite} failed:\n{result.stdout[-3000:]}\n{result.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="timed runs per side (default 3)")
    parser.add_argument("--cases", type=int, default=50, help="cases in the suite (default 50)")
    args = parser.parse_args()

    server = subprocess.Popen(
        [sys.executable, str(SERVER), "--delay", str(DELAY), "--text", "hello world"], stdout=subprocess.PIPE, text=True
    )
    try:
        url = server.stdout.readline().strip()
        with tempfile.TemporaryDirectory(prefix="pytest-ocr-bench-") as tmp:
            suites = {k: write_suite(Path(tmp), f"{url}/v1", args.cases, k) for k in (1, 8)}
            for suite in suites.values():
                timed_run(suite)  # warm-up
            times: dict[int, list[float]] = {1: [], 8: []}
            for rep in range(args.reps):
                for k in (1, 8) if rep % 2 == 0 else (8, 1):
                    times[k].append(timed_run(suites[k]))
    finally:
        server.terminate()
        server.wait()

    k1, k8 = statistics.median(times[1]), statistics.median(times[8])
    ratio = k8 / k1
    print(
        f"{args.cases} cases, openai engine, server answering after {DELAY * 1000:.0f} ms; "
        f"{args.reps} interleaved runs per side, medians"
    )
    print(f"  concurrency 1: {k1:6.2f} s   (runs: {', '.join(f'{t:.2f}' for t in times[1])})")
    print(f"  concurrency 8: {k8:6.2f} s   (runs: {', '.join(f'{t:.2f}' for t in times[8])})")
    print(f"  ratio K8/K1:   {ratio:6.3f}   target <= {TARGET}: {'PASS' if ratio <= TARGET else 'MISS'}")
    print(
        f"  floor: the server alone needs {args.cases * DELAY:.1f} s at K=1 and "
        f"{-(-args.cases // 8) * DELAY:.1f} s at K=8"
    )


if __name__ == "__main__":
    main()
