"""A case's OmniDocBench layout file (``expected: {layout_file: ...}``): the memory and CPU time of reading one
page of a large file, by the loader the cases use now (datasets/omnidocbench.py: ``layout_page``, the file scanned
a page at a time once a process, each case reading its page's bytes) and by the located loader they used before
(media/document.py: ``load``, every key's line through the YAML composer), side by side on the same file.

What is measured
    A file of OmniDocBench pages (tests/data/omnidocbench/pages.json's 24 pages, copied under new image names until
    it has the size asked for), written once. Each loader in its own process (so its peak is its own), after its
    imports: the process's peak resident memory less what it held before, over the file's size (bytes a byte of
    JSON), and the CPU seconds of the read. "new xN" reads N pages, one case after another, as N cases naming pages
    of one file do: the file is scanned once, each case reads its own page.

Usage: python benchmarks/bench_layout_file.py [--mb 10,45,90] [--pages 10] [--no-old]
(--no-old leaves out the old loader, which needs about 60 times the file's size: 6 GB for 90 MB.)
Always exits 0: this is a measurement, not a test.

Results
    2026-12-07, this 2-core machine shared with other sessions (load average 3 to 6); the peak is resident memory:
    file MB  loader     CPU s  peak MB  bytes/byte
       10.1  old         5.31    528.5        52.2
       10.1  new         0.17     25.8         2.6
       10.1  new x10     0.17     25.7         2.5
       45.4  old        23.90   2588.2        57.0
       45.4  new         0.67    116.6         2.6
       45.4  new x10     0.65    116.6         2.6
       90.7  old        47.34   5175.8        57.0
       90.7  new         1.46    238.7         2.6
       90.7  new x10     1.43    238.7         2.6
    The new loader holds the file's bytes and its text while it scans (this file is ASCII: a byte a character) and
    one page's data at a time, and keeps only where each page is; the old one built every key's line as a YAML node
    and a dict entry. Ten cases cost what one does: the file is scanned once, each case reads its page's bytes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

CHILD = """
import importlib, json, os, resource, sys, time
from pathlib import Path
from pytest_ocr.media import document
omnidocbench = importlib.import_module("pytest_ocr.cases.datasets.omnidocbench")
path, loader, pages = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
names = json.loads(sys.argv[4])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.process_time()
if loader == "old":
    document.load(path, "layout file")
else:
    for name in names[:pages]:
        page, problems = omnidocbench.layout_page(path, name, name)
        assert not problems, problems
cpu = time.process_time() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"cpu": cpu, "peak_kib": peak - before}))
"""


def make(path: Path, megabytes: float) -> list[str]:
    """A layout file of about ``megabytes`` MB of the fixture's pages; the names of ten of its pages."""
    from helpers.omnidocbench import large_layout_file

    names = large_layout_file(path, megabytes)
    return names[:: max(len(names) // 10, 1)]


def measure(path: Path, loader: str, pages: int, names: list[str]) -> dict:
    limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (16 << 30, 16 << 30))  # noqa: E731
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), loader, str(pages), json.dumps(names)],
        capture_output=True,
        text=True,
        preexec_fn=limit,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
    )
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1]}
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", default="10,45,90")
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument("--no-old", action="store_true")
    options = parser.parse_args()
    print(f"{'file MB':>7}  {'loader':<9} {'CPU s':>6} {'peak MB':>8}  bytes/byte")
    with tempfile.TemporaryDirectory() as folder:
        for megabytes in (float(m) for m in options.mb.split(",")):
            path = Path(folder) / "layout.json"
            names = make(path, megabytes)
            size = path.stat().st_size
            runs = [("new", 1), (f"new x{options.pages}", options.pages)]
            if not options.no_old:
                runs.insert(0, ("old", 1))
            for label, pages in runs:
                found = measure(path, label.split()[0], pages, names)
                if "error" in found:
                    print(f"{size / 1e6:7.1f}  {label:<9} {found['error']}")
                    continue
                peak = found["peak_kib"] * 1024
                print(f"{size / 1e6:7.1f}  {label:<9} {found['cpu']:6.2f} {peak / 1e6:8.1f}  {peak / size:10.1f}")


if __name__ == "__main__":
    main()
