"""What drawing PDF pages in a bounded worker process costs a normal page.

What is measured, side by side in one run, for every page 1 of the olmOCR-Bench sample's
PDFs (tests/data/olmocr-bench-sample/pdfs, 14 documents) at 300 dpi, each way REPS times
interleaved (so slow phases of the shared machine hit all ways alike), medians:

    a. in process, as pytest-ocr 0.1 drew pages: pdfium's bitmap to Pillow, converted to
       RGB, Pillow's PNG encoder, the file written atomically;
    b. ``pages.rasterise`` as it is: the page drawn and written by the worker process,
       the worker kept from page to page (started once per process);
    c. the same with a new worker for every page (``rasteriser.close()`` before each):
       what a process per page would cost.

Printed: each page's milliseconds for a, b and c, the ratios b/a and c/a, the sums over
all pages, the PNG sizes of a and b (the worker filters rows its own way), and the peak
resident memory the two ways take for one 8.5 x 11-inch page (each in a fresh process: a that
process's; b that process's and its worker's).

Usage: python benchmarks/bench_rasterise.py [--reps N]
Always exits 0: this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import io
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pypdfium2

from pytest_ocr.files import write_atomic
from pytest_ocr.media import rasteriser
from pytest_ocr.media.pages import Page, rasterise

SAMPLE = Path(__file__).resolve().parent.parent / "tests" / "data" / "olmocr-bench-sample" / "pdfs"
DPI = 300


def in_process(pdf: Path, out: Path) -> None:
    """Way a: the page drawn here, as 0.1 did."""
    document = pypdfium2.PdfDocument(pdf.read_bytes())
    try:
        page = document[0]
        bitmap = page.render(scale=DPI / 72 * (1 - 1e-9), draw_annots=True)
        image = bitmap.to_pil().convert("RGB")
        bitmap.close()
        page.close()
        data = io.BytesIO()
        image.save(data, "PNG")
        write_atomic(out, data.getvalue())
    finally:
        document.close()


def in_process_seconds(pdf: Path, out: Path) -> float:
    start = time.perf_counter()
    in_process(pdf, out)
    return time.perf_counter() - start


# VmHWM, the peak resident size of a process's own memory (getrusage's would count what the
# process that started it had when it did: Linux keeps that across fork and exec).
PEAKS = (
    "\nfrom pytest_ocr.media import rasteriser\n"
    "def peak(pid):\n"
    "    for line in open(f'/proc/{pid}/status'):\n"
    "        if line.startswith('VmHWM:'): return int(line.split()[1])\n"
    "worker = rasteriser._worker\n"
    "print(peak('self'), peak(worker.proc.pid) if worker else 0)\n"
)


def peak_rss_mb(code: str) -> tuple[float, float]:
    """The peak resident memory of a fresh Python process running ``code``, and of its
    rasterising worker (0 without one), in MB."""
    done = subprocess.run([sys.executable, "-c", code + PEAKS], check=True, capture_output=True, text=True)
    own, worker = done.stdout.split()
    return int(own) / 1024, int(worker) / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    pdfs = sorted(SAMPLE.glob("*.pdf"))
    times: dict[str, dict[str, list[float]]] = {p.name: {"a": [], "b": [], "c": []} for p in pdfs}
    sizes: dict[str, tuple[int, int]] = {}
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        rasterise(Page(pdfs[0], 1, DPI), root / "warm-up")  # the worker started once, as in a run
        for rep in range(args.reps):
            for pdf in pdfs:
                out = root / f"{rep}-{pdf.stem}"
                times[pdf.name]["a"].append(in_process_seconds(pdf, out / "a.png"))
                raster = rasterise(Page(pdf, 1, DPI), out / "b")
                assert raster.seconds is not None
                times[pdf.name]["b"].append(raster.seconds)
                rasteriser.close()
                fresh = rasterise(Page(pdf, 1, DPI), out / "c")
                assert fresh.seconds is not None
                times[pdf.name]["c"].append(fresh.seconds)
                sizes[pdf.name] = ((out / "a.png").stat().st_size, raster.path.stat().st_size)
    print(f"page 1 of each PDF at {DPI} dpi, median of {args.reps}: a in process (0.1), b worker kept, c one per page")
    print(f"{'PDF':34} {'a ms':>7} {'b ms':>7} {'c ms':>7} {'b/a':>5} {'c/a':>5} {'PNG b/a':>8}")
    total = {"a": 0.0, "b": 0.0, "c": 0.0}
    for name, ways in times.items():
        median = {way: statistics.median(values) for way, values in ways.items()}
        for way in total:
            total[way] += median[way]
        size = sizes[name][1] / sizes[name][0]
        print(
            f"{name:34} {median['a'] * 1000:7.0f} {median['b'] * 1000:7.0f} {median['c'] * 1000:7.0f} "
            f"{median['b'] / median['a']:5.2f} {median['c'] / median['a']:5.2f} {size:8.2f}"
        )
    print(
        f"{'all pages':34} {total['a'] * 1000:7.0f} {total['b'] * 1000:7.0f} {total['c'] * 1000:7.0f} "
        f"{total['b'] / total['a']:5.2f} {total['c'] / total['a']:5.2f}"
    )
    letter = SAMPLE / "earnings.pdf"  # 8.5 x 11 inches: 2550 x 3300 pixels
    with tempfile.TemporaryDirectory() as folder:
        a_peak, _ = peak_rss_mb(
            f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); from pathlib import Path; "
            f"from bench_rasterise import in_process; in_process(Path({str(letter)!r}), Path({folder!r}) / 'a.png')"
        )
        b_own, b_worker = peak_rss_mb(
            "from pathlib import Path; from pytest_ocr.media.pages import Page, rasterise; "
            f"rasterise(Page(Path({str(letter)!r}), 1, {DPI}), Path({folder!r}) / 'b')"
        )
    print(
        f"peak resident memory, {letter.name} at {DPI} dpi: a {a_peak:.0f} MB (the asking process); "
        f"b {b_own:.0f} MB the asking process, {b_worker:.0f} MB the worker"
    )


if __name__ == "__main__":
    main()
