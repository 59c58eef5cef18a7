"""Engine overhead: pytest-ocr running real OCR engines vs calling the engine directly.

What is measured
    For each engine (tesseract, rapidocr), the wall-clock time of two subprocesses
    over the same 20 real images (the 18 example images with ground truth plus the 2
    invoice PNGs, copied into a temporary directory):

    A. direct   -- ``python direct_<engine>.py``: a plain loop over the 20 images.
                   tesseract: per image, the exact command the engine runs
                   (``tesseract IMAGE OUT -l eng txt tsv`` into a fresh temporary
                   directory, stdin closed, output captured), then the .txt and .tsv
                   files read back. rapidocr: ``RapidOCR(params={"Global.log_level":
                   "error"})`` built once (the engine's default params), then
                   ``engine(path)`` per image and its lines joined.
    B. plugin   -- ``python -m pytest -q -p no:cacheprovider -p no:randomly
                   -p no:hypothesispytest`` on a one-file suite of the same 20 images
                   on that engine with its default options (expected text is the
                   ground truth where there is one, "invoice" for the two invoices;
                   no thresholds, since only time matters here).

Why subprocesses on both sides: that is what a user compares (running the suite vs
running a script), and it counts what each side pays once per run -- interpreter
start, imports (rapidocr pulls in onnxruntime and OpenCV), model loading, and for the
plugin pytest start-up, collection, the engine's version/language probes and the
summary. Per-image OCR work dominates both sides, so the ratio shows what the plugin
adds on top of it.

How: one untimed warm-up per side (byte-compiling, file cache, model files), then
REPS runs per side interleaved (A B, B A, ...) so the shared machine's noise hits
both alike; median per side, ratio = plugin / direct, target <= 1.1.
Tesseract defaults to 3 repetitions (a run takes tens of seconds), rapidocr to 3.

Usage: python benchmarks/bench_engine_overhead.py [--engines tesseract,rapidocr] [--reps N]
Always exits 0: this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "example_suite" / "data"
TARGET = 1.1
PYTEST_OPTIONS = ["-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:hypothesispytest"]
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".tif", ".tiff")

DIRECT_TESSERACT = """\
import shutil, subprocess, sys, tempfile
from pathlib import Path

binary = shutil.which("tesseract")
for image in sys.argv[1:]:
    image = Path(image).absolute()
    with tempfile.TemporaryDirectory(prefix="direct-tesseract-") as tmp:
        out = Path(tmp, "out")
        proc = subprocess.run([binary, str(image), str(out), "-l", "eng", "txt", "tsv"],
                              capture_output=True, stdin=subprocess.DEVNULL, timeout=300)
        if proc.returncode != 0:
            sys.exit(f"tesseract failed on {image}: {proc.stderr.decode(errors='replace')}")
        text = out.with_suffix(".txt").read_text(encoding="utf-8")
        tsv = out.with_suffix(".tsv").read_text(encoding="utf-8")
"""

DIRECT_RAPIDOCR = """\
import sys
from rapidocr import RapidOCR

engine = RapidOCR(params={"Global.log_level": "error"})
for image in sys.argv[1:]:
    result = engine(image)
    text = "\\n".join(result.txts or ())
"""


def generate(root: Path, engine: str) -> tuple[list[str], list[str], Path]:
    """Copy the images, write the suite and the direct script; return (direct argv, plugin argv, cwd)."""
    images = root / "images"
    if not images.exists():
        images.mkdir()
        for source in sorted(DATA.glob("*/*")):
            if source.suffix.lower() in IMAGE_SUFFIXES:
                shutil.copyfile(source, images / source.name)
                gt = source.with_name(source.stem + ".gt.txt")
                if gt.exists():
                    shutil.copyfile(gt, images / gt.name)
    names = sorted(p.name for p in images.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)

    directory = root / engine
    directory.mkdir()
    (directory / "pytest.ini").write_text("[pytest]\n")
    lines = [f"defaults: {{engine: {engine}}}", "cases:"]
    for i, name in enumerate(names):
        stem = Path(name).stem
        gt = images / f"{stem}.gt.txt"
        expected = f"{{text_file: ../images/{gt.name}}}" if gt.exists() else '{text: "invoice"}'
        lines += [f"  - id: img-{i:02d}", f"    image: ../images/{name}", f"    expected: {expected}"]
    (directory / f"{engine}.ocr.yaml").write_text("\n".join(lines) + "\n")

    script = directory / f"direct_{engine}.py"
    script.write_text(DIRECT_TESSERACT if engine == "tesseract" else DIRECT_RAPIDOCR)
    direct = [sys.executable, str(script), *(str(images / n) for n in names)]
    plugin = [sys.executable, "-m", "pytest", *PYTEST_OPTIONS, "."]
    return direct, plugin, directory


def timed(argv: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - start, proc


def tail(proc: subprocess.CompletedProcess) -> str:
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    return lines[-1] if lines else ""


def measure(root: Path, engine: str, reps: int) -> dict:
    direct, plugin, cwd = generate(root, engine)
    sides = {"direct": direct, "plugin": plugin}
    times: dict[str, list[float]] = {"direct": [], "plugin": []}
    print(f"\n[{engine}] {len(direct) - 2} images; warm-up then {reps} timed runs per side, interleaved")
    for name, argv in sides.items():
        elapsed, proc = timed(argv, cwd)
        print(f"  warm-up {name:7s} {elapsed:7.2f} s  rc={proc.returncode}  {tail(proc)}")
        if proc.returncode != 0:
            print(proc.stdout[-3000:], proc.stderr[-3000:], sep="\n")
    for rep in range(reps):
        for name in ("direct", "plugin") if rep % 2 == 0 else ("plugin", "direct"):
            elapsed, proc = timed(sides[name], cwd)
            times[name].append(elapsed)
            print(f"  run {rep + 1} {name:7s} {elapsed:7.2f} s  rc={proc.returncode}", flush=True)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="tesseract,rapidocr", help="comma-separated (default: both)")
    parser.add_argument("--reps", type=int, default=3, help="timed runs per side and engine (default 3)")
    args = parser.parse_args()

    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-engine-overhead-") as tmp:
        for engine in args.engines.split(","):
            results[engine] = measure(Path(tmp), engine.strip(), args.reps)

    print()
    print(
        f"{'engine':10s} {'direct s':>9s} {'plugin s':>9s} {'ratio':>6s} {'target':>7s}  "
        f"result  (medians of {args.reps})"
    )
    for engine, times in results.items():
        direct = statistics.median(times["direct"])
        plugin = statistics.median(times["plugin"])
        ratio = plugin / direct
        verdict = "PASS" if ratio <= TARGET else "MISS"
        print(f"{engine:10s} {direct:9.2f} {plugin:9.2f} {ratio:6.3f} {'<= ' + str(TARGET):>7s}  {verdict}")
    print("(ratio = plugin median / direct median; whole-subprocess wall clock)")
    print(
        "raw times:", json.dumps({e: {k: [round(v, 2) for v in vs] for k, vs in t.items()} for e, t in results.items()})
    )
    sys.exit(0)


if __name__ == "__main__":
    main()
