"""Whether a run's pytest-xdist workers had enough OCR items to pay for their start-up.

Each worker starts Python, imports pytest and its plugins, collects the whole suite and
builds its engines before its first item, so ``-n`` makes a small suite slower than a
serial run. ``benchmarks/bench_xdist_breakeven.py`` measured, per engine, the items per
worker from which ``-n 2`` beat a serial run (output cache off, 2 cores): BREAK_EVEN.

pytest-ocr cannot make ``-n auto`` choose a serial run for such a suite: pytest-xdist asks
``pytest_xdist_auto_num_workers`` for the number of workers when pytest starts, before
anything is collected, and collection then happens on the workers it started (the
controller never collects). What it can do is say so after the run, in one line.
"""

from __future__ import annotations

from ..run.record import RunRecord

# engine type -> items per worker from which -n 2 beat a serial run: the benchmark's 1.7-1.8
# (Tesseract) and 4.6-5.0 (RapidOCR), rounded up, on 2 otherwise idle cores
BREAK_EVEN = {"tesseract": 2, "rapidocr": 5}
BENCHMARK = "benchmarks/bench_xdist_breakeven.py"


def advice(record: RunRecord, tests: int) -> str | None:
    """The line suggesting a serial run (or fewer workers) when a complete run under
    pytest-xdist had fewer OCR items per worker than its engines' break-even; None when it
    had enough, ran other tests too (``tests``: every test the workers collected), or ran
    an engine the benchmark did not measure."""
    workers, ocr = record.run.workers, [r for r in record.results if r.engine is not None]
    if workers < 1 or not ocr or tests != len(record.results) or record.run.status != "complete":
        return None
    types = {str(record.engines.get(r.engine, {}).get("type")) for r in ocr if r.engine is not None}
    if not types <= BREAK_EVEN.keys():
        return None
    break_even = min(BREAK_EVEN[t] for t in types)  # a claim that holds for every engine of the run
    per_worker = len(ocr) / workers
    if per_worker >= break_even:
        return None
    enough = len(ocr) // break_even
    instead = "-n 0 (a serial run)" if enough < 2 else f"-n {enough}"
    return (
        f"pytest-xdist: {len(ocr)} OCR items on {workers} workers is {per_worker:.1f} per worker, below the "
        f"{break_even} from which -n 2 beat a serial run with {' and '.join(sorted(types))} ({BENCHMARK}): "
        f"starting the workers likely cost more than they saved; {instead} is likely faster"
    )
