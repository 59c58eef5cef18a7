"""``pytest-ocr history html``: how long the site takes over a long history, and its size.
No target in issue 29; the figures say what a CI job that publishes the site pays.

What is measured
    bench_history_reads.py's history: a real run of 200 stored-prediction cases recorded
    1,000 times through ``Store.record`` (one commit each on ``main``, a step in CER at run
    600). Then ``python -m pytest_ocr.cli history html DIR`` as a user runs it (Python's start
    and the imports included), the best of 3, over the last 50 commits (the default) and the
    last 1,000, with the site's pages and bytes.

Usage: python benchmarks/bench_history_html.py [--runs N]
Always exits 0: this is a measurement, not a test.

Results
    2026-11-27, this 2-core machine shared with five other sessions:
    1,000 runs of 200 items recorded through Store.record in 13.1 s
    html --last=50 (command): 1.14 s, 53 files, 0.27 MB
    html --last=1000 (command): 6.14 s, 1003 files, 4.27 MB
    Over 1,000 runs most of the time is trend.item_regressions reading and fitting the
    200,000 item rows (the worst-moving items; as ``regressions --items``), and writing
    1,003 files each synced (write_atomic) before the directory is renamed into place.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_history_reads import CASES, best, record_history  # noqa: E402  (the same history)
from bench_plugin_overhead import generate, run  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-history-html-") as tmp:
        root = Path(tmp)
        directory = generate(root, CASES)["ocr"]
        run(directory, "--ocr-report", "report.json")
        url = f"sqlite:///{root / 'history.sqlite'}"
        _, made = record_history(directory, url, args.runs)
        print(f"{args.runs:,} runs of {CASES} items recorded through Store.record in {made:.1f} s")
        for last in sorted({50, args.runs}):
            site = root / f"site-{last}"
            command = [sys.executable, "-m", "pytest_ocr.cli", "history", "html", str(site), f"--history={url}"]
            command += ["--branch=main", f"--last={last}"]
            seconds, done = best(lambda c=command: subprocess.run(c, cwd=root, capture_output=True, text=True))  # type: ignore[misc]
            assert done.returncode == 0, done.stderr
            files = [p for p in site.rglob("*") if p.is_file()]
            size = sum(p.stat().st_size for p in files)
            print(f"html --last={last} (command): {seconds:.2f} s, {len(files)} files, {size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
