"""Time and peak memory of every text metric on outputs up to the 10 MB output cap.

RESULTS: see the end of this docstring.

What is measured
    ``metrics.score(reference, hypothesis, NAMES)`` for one metric (or one group of
    metrics that share one computation) at a time, each in a fresh subprocess: the CPU
    time of the call (``time.process_time``; the machine these numbers come from was
    shared with other test runs, load average 5-14 on 2 CPUs, so wall time said more
    about the neighbours than about the code) and the peak resident memory of the
    process during the call (``VmHWM`` after resetting it, which counts rapidfuzz's and
    tiktoken's native allocations too), with its growth over the resident size before
    the call (interpreter, imports and the two texts) in brackets.

    Hypothesis lengths 10^4, 10^5, 10^6 and 10^7 characters against four references:

    * ``ref 2k``: a 2,000-character page; the hypothesis is a noisy copy of it (3 %
      character edits) followed by unrelated text up to its length (an output that runs
      on: a loop, a hallucination, a concatenated document);
    * ``ref 100k``: the same with a 100,000-character reference (a long ground truth);
      a hypothesis shorter than the reference is a noisy copy of its beginning;
    * ``equal, noisy``: a reference as long as the hypothesis, which is a noisy copy of
      it (a book's ground truth against a good OCR of it);
    * ``equal, unrelated``: a reference as long as the hypothesis and unrelated to it,
      the worst case of every alignment (nothing matches along a diagonal).

    Text: lines of <= 72 characters from a word list (English, German, French, historic
    spellings with combining marks), fixed seed, NFC. Output-only metrics (repetition,
    json/xml/schema validity, token counts) do not read the reference and are run once
    per length. Hostile shapes (``--shapes``) are 10^7-character outputs against the
    2,000-character reference: a repetition loop, one word of 10^7 letters, line breaks
    only, one-character lines, 10^7 opening brackets, a valid 10 MB JSON array, an XML
    document of 10^6 elements.

    Metrics that share one computation are one row: ``wer`` stands for wer, mer, wip and
    wil (one word alignment); ``token_f1`` for token_precision, token_recall, token_f1;
    ``ned`` for ned, ned_similarity, char_accuracy (the character alignment without the
    confusion table cer adds); ``total_tokens`` for all six tokenizer metrics (one
    ``count_tokens``).

How
    The parent writes the texts to a temporary directory; each measurement runs
    ``python bench_metric_bounds.py --child ...`` with its address space capped
    (``--memory-mb``, RLIMIT_AS, so a runaway allocation fails instead of swapping the
    machine) and its CPU time limited to ``--timeout`` seconds (RLIMIT_CPU; wall time
    to 6 times that). A metric that timed out at one length is not run at the longer
    ones (shown as ``>T s``). A ``~`` after the time says the value came from the
    cheaper path (``details["alignment"]`` starts with "approximate").

Usage: python benchmarks/bench_metric_bounds.py [--lengths 1e4,1e5,1e6,1e7]
       [--refs 2k,100k,equal,unrelated] [--metrics cer,fca,...] [--timeout 120]
       [--memory-mb 4096] [--shapes] [--no-grid]
Always exits 0: this is a measurement, not a test.

Results
    ``python benchmarks/bench_metric_bounds.py --lengths 1e5,1e6,1e7 --refs 2k,equal
    --metrics "default set,wer,lcs_ratio,ser,fca,ssa,repetition,total_tokens,xml_valid,schema_valid"
    --against d894ad2 --timeout 60`` on 2026-11-23 (2 CPUs, shared with a CI run). "before" is
    pytest_ocr as of d894ad2, the commit before metrics were bounded. CPU s and peak RSS at
    10^6 and 10^7 characters, now / before (at 10^5 the same within 0.1 s, except fca).

    reference 2,000 characters:

    default set   1e6  0.33 s~ 91 MB / 1.07 s 174 MB   1e7  3.99 s~ 334 MB / 15.20 s 1394 MB
    wer           1e6   0.07 s 69 MB / 0.10 s 75 MB    1e7  0.96 s~ 279 MB / 1.18 s 428 MB
    lcs_ratio     1e6   0.04 s 74 MB / 0.07 s 62 MB    1e7  0.89 s~ 370 MB / 0.72 s 318 MB
    ser           1e6   0.06 s 52 MB / 0.03 s 40 MB    1e7   0.35 s 116 MB / 0.28 s 104 MB
    fca           1e6  0.23 s~ 95 MB / 3.49 s 173 MB   1e7  2.51 s~ 421 MB / >60 s
    ssa           1e6  0.29 s~ 82 MB / 0.56 s 62 MB    1e7  2.95 s~ 334 MB / 5.57 s 302 MB
    repetition    1e6   0.01 s 50 MB / 0.01 s 39 MB    1e7   0.12 s 102 MB / 0.12 s 90 MB
    total_tokens  1e6   0.37 s 99 MB / 0.58 s 90 MB    1e7   2.76 s 284 MB / 3.89 s 288 MB
    xml_valid     1e6   0.02 s 51 MB / 0.02 s 39 MB    1e7   0.16 s 102 MB / 0.16 s 91 MB
    schema_valid  1e6   0.02 s 50 MB / 0.01 s 39 MB    1e7   0.15 s 102 MB / 0.16 s 90 MB

    reference as long, the output a noisy copy:

    default set   1e6 6.16 s~ 103 MB / 54.49 s 110 MB  1e7  6.99 s~ 471 MB / >60 s
    wer           1e6   5.80 s 96 MB / 5.91 s 81 MB    1e7  2.80 s~ 466 MB / >60 s
    lcs_ratio     1e6   5.34 s 91 MB / 5.59 s 80 MB    1e7  3.42 s~ 466 MB / >60 s
    ser           1e6   0.09 s 59 MB / 0.08 s 47 MB    1e7   0.96 s 181 MB / 0.79 s 169 MB
    fca           1e6 0.43 s~ 100 MB / >60 s           1e7  5.06 s~ 473 MB / >60 s
    ssa           1e6 0.61 s~ 156 MB / 48.29 s 110 MB  1e7  2.99 s~ 302 MB / >60 s
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

SEED = 20261123
REPO = Path(__file__).resolve().parent.parent
WALL_FACTOR = 6  # wall-clock timeout = WALL_FACTOR x the CPU-time limit (the machine may be shared)
LINE_CHARS = 72
ERROR_RATE = 0.03

WORDS = (
    "the of and to in is was for on that with as by at from this be are or an it not which have his "
    "her they were had been their one all would there what so out up when who about into them some "
    "invoice total amount date number customer payment account order receipt tax price quantity "
    "Rechnung Betrag Datum Kunde Zahlung Menge Preis Straße Hamburg Berlin München Köln Müller über "
    "für Größe schön Bürger Gemeinde Jahre wurde werden diese einer nicht sich auch durch "
    "page chapter volume history letter parish register county council meeting minutes "
    "café naïve rôle façade élève déjà "
    "uͤber Muͤhle Koͤnig fraͤnkiſch Waſſer deß vnd iſt Gottes Hertzog Stadt Theil "
    "1848 1923 2023 12.50 0041 No. Ltd. GmbH Co. Street Road Tel: VAT: 19% EUR"
).split()
CONFUSIONS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,;:-'äöüſ     "

# Row label -> the metrics scored together in one call.
GROUPS: dict[str, tuple[str, ...]] = {
    "default set": ("cer", "wer", "ned", "exact_match"),
    "cer": ("cer",),
    "ned": ("ned",),
    "exact_match": ("exact_match",),
    "wer": ("wer",),
    "token_f1": ("token_f1",),
    "token_exact_match_rate": ("token_exact_match_rate",),
    "sequence_accuracy": ("sequence_accuracy",),
    "lcs_ratio": ("lcs_ratio",),
    "bigram_overlap": ("bigram_overlap",),
    "trigram_overlap": ("trigram_overlap",),
    "bow_error": ("bow_error",),
    "ser": ("ser",),
    "fca": ("fca",),
    "ssa": ("ssa",),
    "repetition": ("repetition",),
    "json_valid": ("json_valid",),
    "xml_valid": ("xml_valid",),
    "schema_valid": ("schema_valid",),
    "total_tokens": (
        "total_tokens",
        "meaningful_tokens",
        "token_density",
        "compression_ratio",
        "chars_per_token",
        "estimated_cost_usd",
    ),
}
OUTPUT_ONLY = {"repetition", "json_valid", "xml_valid", "schema_valid", "total_tokens"}
SCHEMA = {"type": "array", "items": {"type": "object", "required": ["total"]}}
REFS = {"2k": 2_000, "100k": 100_000, "equal": None, "unrelated": None}
REF_TITLES = {
    "2k": "reference 2,000 chars",
    "100k": "reference 100,000 chars",
    "equal": "reference as long, hypothesis a noisy copy",
    "unrelated": "reference as long, unrelated",
}


# -- texts ---------------------------------------------------------------------------------------


def make_text(rng: random.Random, length: int) -> str:
    """Lines of words, exactly ``length`` characters (NFC can shorten it a little)."""
    lines: list[str] = []
    line: list[str] = []
    line_len = total = 0
    choice, rand = rng.choice, rng.random
    while total < length:
        word = choice(WORDS)
        if rand() < 0.12:
            word += choice(",.;:")
        if line and line_len + 1 + len(word) > LINE_CHARS:
            lines.append(" ".join(line))
            total += line_len + 1
            line, line_len = [], 0
        line.append(word)
        line_len += len(word) + (1 if line_len else 0)
    if line:
        lines.append(" ".join(line))
    return unicodedata.normalize("NFC", "\n".join(lines)[:length])


def corrupt(text: str, rng: random.Random, rate: float = ERROR_RATE) -> str:
    """``text`` with round(rate * len) random character edits (a third each
    substitutions, deletions, insertions), built from slices."""
    if not text:
        return text
    positions = sorted(rng.sample(range(len(text)), max(1, round(rate * len(text)))))
    pieces = []
    last = 0
    for i in positions:
        pieces.append(text[last:i])
        edit = rng.randrange(3)
        if edit == 0:  # substitute
            pieces.append(rng.choice(CONFUSIONS.replace(text[i], "") or "x"))
            last = i + 1
        elif edit == 1:  # delete
            last = i + 1
        else:  # insert before
            pieces.append(rng.choice(CONFUSIONS))
            last = i
    pieces.append(text[last:])
    return unicodedata.normalize("NFC", "".join(pieces))


def pair(ref_kind: str, length: int) -> tuple[str, str]:
    rng = random.Random(f"{SEED}-{ref_kind}-{length}")
    size = REFS[ref_kind]
    if ref_kind == "unrelated":
        return make_text(rng, length), make_text(rng, length)
    if size is None:  # equal, noisy
        reference = make_text(rng, length)
        return reference, corrupt(reference, rng)
    reference = make_text(rng, size)
    copy = corrupt(reference, rng)
    if length <= len(copy):
        return reference, copy[:length]
    return reference, copy + "\n" + make_text(rng, length - len(copy) - 1)


def shapes(length: int) -> dict[str, str]:
    """Hostile outputs of about ``length`` characters."""
    unit = "Total: 0.00\n"
    items = length // 20
    rng = random.Random(SEED)
    letters = "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=length))
    return {
        "loop": "INVOICE 42\n" + unit * (length // len(unit)),
        "one word": letters,
        "line breaks": "\n" * length,
        "1-char lines": "x\n" * (length // 2),
        "brackets": "[" * length,
        "JSON array": json.dumps([{"total": f"{k % 1000}.00"} for k in range(items)])[:length].rsplit("},", 1)[0]
        + "}]",
        "XML": "<r>" + "<a>x</a>" * (length // 8 - 1) + "</r>",
    }


# -- one measurement, in a child process -----------------------------------------------------


def child(group: str, reference_file: str, hypothesis_file: str) -> None:
    from pytest_ocr import metrics

    reference = Path(reference_file).read_text(encoding="utf-8")
    hypothesis = Path(hypothesis_file).read_text(encoding="utf-8")
    names = GROUPS[group]
    structured = metrics.Structured(schema=SCHEMA) if "schema_valid" in names else None
    before = _status("VmRSS")
    _reset_peak()
    start, cpu = time.perf_counter(), time.process_time()
    try:
        results = metrics.score(reference, hypothesis, names, structured=structured)
        error = None
    except MemoryError:
        results, error = {}, "MemoryError"
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = _status("VmHWM")
    approximate = any(str(r.details.get("alignment", "")).startswith("approximate") for r in results.values())
    values = {name: r.value for name, r in results.items()}
    print(
        json.dumps(
            {
                "seconds": seconds,
                "cpu": cpu,
                "peak_mb": peak,
                "growth_mb": peak - before,
                "error": error,
                "approximate": approximate,
                "values": values,
            }
        )
    )


def _status(field: str) -> float:
    """A memory figure of this process from /proc/self/status, in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise KeyError(field)


def _reset_peak() -> None:
    """Reset VmHWM to the current resident size (Linux: clear_refs 5), so that the peak
    read after the call is the call's. (ru_maxrss would not do: a child inherits the
    parent's high-water mark through fork and exec.)"""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def measure(
    group: str, reference: Path, hypothesis: Path, timeout: float, memory_mb: int, package: Path | None = None
) -> dict:
    """One measurement in a child process; ``package``: a directory holding another
    version of pytest_ocr to measure instead of this one (``--against``)."""
    limit = memory_mb * 1024 * 1024
    cpu = int(timeout)

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))

    proc = subprocess.Popen(
        [sys.executable, __file__, "--child", group, str(reference), str(hypothesis)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=cap,
        start_new_session=True,
        env={**os.environ, "PYTHONPATH": str(package)} if package else None,
    )
    try:
        out, err = proc.communicate(timeout=WALL_FACTOR * timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        return {"timeout": True}
    if proc.returncode in (-signal.SIGXCPU, -signal.SIGKILL) and not out.strip():
        return {"timeout": True}
    if proc.returncode != 0 or not out.strip():
        last = (err.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        return {"failed": last[:60]}
    return json.loads(out.strip().splitlines()[-1])


def cell(result: dict | None, timeout: float) -> str:
    if result is None:
        return "-"
    if result.get("timeout"):
        return f">{timeout:g} s"
    if "failed" in result:
        return "failed: " + result["failed"]
    if result["error"]:
        return result["error"]
    mark = "~" if result["approximate"] else ""
    return f"{result['cpu']:.2f} s{mark} {result['peak_mb']:.0f} MB (+{result['growth_mb']:.0f})"


def print_table(title: str, columns: list[str], rows: dict[str, dict[str, dict | None]], timeout: float) -> None:
    print(f"\n{title}\n")
    width = max(len(r) for r in rows)
    cells = {r: [cell(rows[r].get(c), timeout) for c in columns] for r in rows}
    widths = [max(len(c), *(len(cells[r][k]) for r in rows)) for k, c in enumerate(columns)]
    print(
        "| "
        + "metric".ljust(width)
        + " | "
        + " | ".join(c.rjust(w) for c, w in zip(columns, widths, strict=False))
        + " |"
    )
    print("|" + "-" * (width + 2) + "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(
            "| "
            + r.ljust(width)
            + " | "
            + " | ".join(v.rjust(w) for v, w in zip(cells[r], widths, strict=False))
            + " |"
        )
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--lengths", default="1e4,1e5,1e6,1e7")
    parser.add_argument("--refs", default=",".join(REFS))
    parser.add_argument("--metrics", default=",".join(GROUPS))
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--memory-mb", type=int, default=4096)
    parser.add_argument("--shapes", action="store_true", help="also the hostile shapes at the longest length")
    parser.add_argument("--no-grid", action="store_true", help="only the hostile shapes")
    parser.add_argument(
        "--against",
        metavar="REV",
        help="also measure pytest_ocr as of this git revision, side by side (column 'before')",
    )
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    lengths = [int(float(x)) for x in args.lengths.split(",")]
    groups = [g for g in args.metrics.split(",") if g]
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        parser.error(f"unknown metric group(s) {unknown}; known: {', '.join(GROUPS)}")
    columns = [f"{n:.0e}".replace("+0", "") for n in lengths]
    versions: list[tuple[str, Path | None]] = [("", None)]
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; timeout {args.timeout:g} s, cap {args.memory_mb} MB"
    )
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if args.against:
            before = root / "before"
            before.mkdir()
            archive = subprocess.run(
                ["git", "archive", args.against, "pytest_ocr"], capture_output=True, check=True, cwd=REPO
            ).stdout
            subprocess.run(["tar", "-x", "-C", str(before)], input=archive, check=True)
            versions.append((" before", before))
            print(f"'before': pytest_ocr as of {args.against}")
        if not args.no_grid:
            for ref_kind in args.refs.split(","):
                rows: dict[str, dict[str, dict | None]] = {}
                for group in groups:
                    if group in OUTPUT_ONLY and ref_kind != args.refs.split(",")[0]:
                        continue
                    rows[group] = {}
                    for n, length_column in zip(lengths, columns, strict=False):
                        ref_file, hyp_file = root / f"{ref_kind}-{n}.ref", root / f"{ref_kind}-{n}.hyp"
                        if not ref_file.exists():
                            reference, hypothesis = pair(ref_kind, n)
                            ref_file.write_text(reference, encoding="utf-8")
                            hyp_file.write_text(hypothesis, encoding="utf-8")
                        for suffix, package in versions:
                            column = length_column + suffix
                            earlier = [r for c, r in rows[group].items() if c.endswith(" before") == bool(suffix)]
                            if any(r and r.get("timeout") for r in earlier):
                                rows[group][column] = {"timeout": True}
                                continue
                            result = measure(group, ref_file, hyp_file, args.timeout, args.memory_mb, package)
                            rows[group][column] = result
                            print(f"  {ref_kind} {group} {column}: {cell(result, args.timeout)}", flush=True)
                title = REF_TITLES[ref_kind] + (
                    " (output-only metrics ignore the reference)" if ref_kind == "2k" else ""
                )
                print_table(title, [c + suffix for c in columns for suffix, _ in versions], rows, args.timeout)
        if args.shapes or args.no_grid:
            n = lengths[-1]
            reference = pair("2k", 2_000)[0]
            ref_file = root / "shape.ref"
            ref_file.write_text(reference, encoding="utf-8")
            texts = shapes(n)
            rows = {}
            for group in groups:
                rows[group] = {}
                for shape, text in texts.items():
                    hyp_file = root / f"shape-{shape}.hyp"
                    if not hyp_file.exists():
                        hyp_file.write_text(text, encoding="utf-8")
                    rows[group][shape] = measure(group, ref_file, hyp_file, args.timeout, args.memory_mb)
                    print(f"  shape {shape} {group}: {cell(rows[group][shape], args.timeout)}", flush=True)
            print_table(
                f"hostile outputs of {n:.0e} characters against a 2,000-character reference",
                list(texts),
                rows,
                args.timeout,
            )


if __name__ == "__main__":
    main()
