"""How much a reviewer has to read: the terminal output of a failing CI run, by --tb style.

What is measured
    A receipt-like suite as a team's first CI day has it: 60 receipts (the real SROIE
    ground truths of the example suite, cycled, with ids as long as real file names),
    two engines (stored outputs named ``tesseract`` and ``rapidocr``), thresholds on
    cer and wer, and a baseline recorded from an earlier, better run. The measured run
    has about 40 failed items, most of them regressed against the baseline. It runs with
    ``COLUMNS=80`` under ``--tb=line``, ``--tb=short`` and pytest's default, and the
    script prints, per style, the number of output lines and the widest line (in
    terminal columns), for this checkout and, with ``--against REV``, for pytest_ocr as
    of that revision, side by side.

Inputs (generated into a temporary directory): one minimal PNG hard-linked per case,
the ground truths, and per engine a CSV of predictions with seeded character edits:
light ones for the baseline run, heavy ones for about a third of the items in the
measured run.

Usage: python benchmarks/bench_ci_output.py [--against REV]
Always exits 0: this is a measurement, not a test.

Results
    ``python benchmarks/bench_ci_output.py --against 451809b`` on 2026-11-24 (451809b is
    main before pytest-ocr honoured --tb and fitted the terminal width):

    60 cases x 2 engines, COLUMNS=80; widest: of all lines / of pytest-ocr's lines
    style          lines    widest   lines before widest before
    --tb=line        154  161 / 161           1733    424 / 424
    --tb=short       554   88 / 80            1733    424 / 424
    default         1952   88 / 80            1733    424 / 424

    40 of 120 items fail (over their thresholds and regressed). The 88-column lines of
    --tb=short and the default are pytest's own (its plugins line, "FAILED <node id>" in
    the short test summary). A --tb=line line is never cut: it holds every failed check
    and regression (here two of each), the case id shortened in the middle. The default
    (long) text has more lines than before because its lines are fitted to 80 columns
    now: narrower diff windows, wrapped prose.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

from wcwidth import wcswidth

REPO = Path(__file__).resolve().parent.parent
RECEIPTS = REPO / "example_suite" / "data" / "receipts"
N_CASES = 60
ENGINES = ("tesseract", "rapidocr")
STYLES = (("--tb=line",), ("--tb=short",), ())
SEED = 13
# Lines pytest writes itself whatever the plugin does (its header, the short test summary).
PYTEST_OWN = ("platform ", "rootdir:", "configfile:", "plugins:", "FAILED ", "ERROR ")


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00\x00")) + chunk(b"IEND", b"")
    )


def _edit(text: str, rate: float, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(max(1, int(len(chars) * rate))):
        i = rng.randrange(len(chars))
        kind = rng.random()
        if kind < 0.5:
            chars[i] = rng.choice("0O1lI5S8B,.:; ")
        elif kind < 0.75:
            chars[i] = ""
        else:
            chars[i] += rng.choice("abcdefghij")
    return "".join(chars)


def build(root: Path) -> None:
    truths = sorted(RECEIPTS.glob("*.gt.txt"))
    (root / "img").mkdir(parents=True)
    (root / "gt").mkdir()
    png = root / "one.png"
    png.write_bytes(_png())
    lines = ["cases:"]
    texts = {}
    for n in range(N_CASES):
        name = f"X5100{5268275 + 7919 * n:07d}-receipt-{n:02d}"
        os.link(png, root / "img" / f"{name}.png")
        text = truths[n % len(truths)].read_text(encoding="utf-8")
        (root / "gt" / f"{name}.txt").write_text(text, encoding="utf-8")
        texts[name] = text
        lines += [
            f"  - id: sroie-2019-scanned-receipts-{name}",
            f"    image: img/{name}.png",
            f"    expected: {{text_file: gt/{name}.txt}}",
            '    thresholds: {cer: "< 0.08", wer: "< 0.35"}',
        ]
    engines = ["engines:"] + [
        f"  {e}: {{type: predictions, path: {{}}}}".replace("{}", f"predictions-{e}.csv") for e in ENGINES
    ]
    head = engines + ["defaults:", f"  engine: [{', '.join(ENGINES)}]", "  normalize: {casefold: true}"]
    (root / "receipts.ocr.yaml").write_text("\n".join(head + lines) + "\n", encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    rng = random.Random(SEED)
    for engine in ENGINES:
        rows = {"baseline": [], "now": []}
        for i, (name, text) in enumerate(texts.items()):
            before = _edit(text, rng.uniform(0.005, 0.03), rng)
            heavy = (i + ENGINES.index(engine)) % 3 == 0  # a third of the items got much worse
            rows["baseline"].append([f"{name}.png", before])
            rows["now"].append([f"{name}.png", _edit(text, rng.uniform(0.1, 0.4), rng) if heavy else before])
        for run, found in rows.items():
            with open(root / f"{run}-{engine}.csv", "w", newline="", encoding="utf-8") as f:
                writer = csv.writer(f)
                writer.writerow(["image", "text"])
                writer.writerows(found)


def _pytest(root: Path, run: str, extra: list[str], package: Path | None) -> str:
    for engine in ENGINES:
        (root / f"predictions-{engine}.csv").write_bytes((root / f"{run}-{engine}.csv").read_bytes())
    env = {**os.environ, "COLUMNS": "80"}
    env.pop("GITHUB_ACTIONS", None)
    if package is not None:
        env["PYTHONPATH"] = str(package)
    options = ["-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *options, *extra],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return done.stdout


def measure(root: Path, package: Path | None) -> dict[str, tuple[int, int, int]]:
    baseline = root / "baseline.json"
    baseline.unlink(missing_ok=True)
    _pytest(root, "baseline", ["-q", "--ocr-baseline", str(baseline), "--ocr-baseline-write", "update"], package)
    found = {}
    for style in STYLES:
        out = _pytest(root, "now", [*style, "--ocr-baseline", str(baseline)], package)
        lines = out.splitlines()
        ours = [line for line in lines if not line.startswith(PYTEST_OWN)]
        found[style[0] if style else "default"] = (
            len(lines),
            max(wcswidth(line) for line in lines),
            max(wcswidth(line) for line in ours),
        )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", metavar="REV", help="also measure pytest_ocr as of this git revision")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "suite"
        build(root)
        now = measure(root, None)
        before = None
        if args.against:
            package = Path(tmp) / "before"
            package.mkdir()
            archive = subprocess.run(
                ["git", "archive", args.against, "pytest_ocr"], capture_output=True, check=True, cwd=REPO
            ).stdout
            subprocess.run(["tar", "-x", "-C", str(package)], input=archive, check=True)
            before = measure(root, package)
    print(f"{N_CASES} cases x {len(ENGINES)} engines, COLUMNS=80; widest: of all lines / of pytest-ocr's lines")
    print(
        f"{'style':<12} {'lines':>7} {'widest':>9}"
        + (f"   {'lines before':>12} {'widest before':>13}" if before else "")
    )
    for style, (count, widest, ours) in now.items():
        row = f"{style:<12} {count:>7} {widest:>4} / {ours:<3}"
        if before:
            b = before[style]
            row += f"   {b[0]:>12} {b[1]:>6} / {b[2]:<4}"
        print(row)


if __name__ == "__main__":
    main()
