"""Metric speed and memory: pytest_ocr.metrics vs jiwer, dinglehopper and bare rapidfuzz.

What is measured
    In-process throughput of the metric functions over the same 1,000 page pairs, and
    the peak memory of scoring one very long pair:

    1. cer with S/D/I counts -- ``metrics.character_errors(ref, hyp)`` (default
       normalisation: NFC, whitespace collapsed; returns S/D/I/hits) vs
       ``jiwer.process_characters(ref, hyp)`` (its default transform: strip, split
       into characters). Also shown: ``metrics.score(ref, hyp, ["cer"])``, which on top
       of the counts builds the confusion table and report details.
       Target: ours >= 2x jiwer's throughput (ratio = jiwer time / our time).
    2. cer value alone -- ``metrics.cer(ref, hyp)`` vs the floor, a bare
       ``rapidfuzz.distance.Levenshtein.distance(ref, hyp)`` on texts that already
       had our default normalisation applied (same strings our function ends up
       comparing). Three lines: our default normalisation on the raw pages (what a
       user pays), the same on already-normalised pages (normalisation still runs),
       and ``normalize=metrics.RAW`` on the normalised pages (bare call overhead).
       Target: <= 1.3x the floor's time (ratio = our time / floor time).
    3. grapheme-mode cer -- ``metrics.cer(ref, hyp, normalize=GRAPHEMES)`` (NFC,
       grapheme clusters, whitespace kept: exactly dinglehopper's definition) and
       ``normalize=metrics.profile("ocrd")`` (also dinglehopper's ligatures and
       equivalences, each line trimmed: what its command line does to a text file) vs
       ``dinglehopper.character_error_rate.character_error_rate(ref, hyp)`` (NFC, uniseg
       grapheme clusters). Values are asserted equal before timing (for the profile,
       against dinglehopper given the lines its ``plain_extract`` would give).
       3b. the same on Devanagari pages (conjuncts, vowel signs; the edits misplace
       viramas and marks, where UAX #29's rule GB9c decides the clusters).
       Target: ours >= 5x dinglehopper's throughput.
       Measured 2026-11-25 (grapheme splitter per UAX #29 for Unicode 17.0.0, --reps 3-5):
       77.8-82.8x on the Latin pages (the ocrd profile 74.1x), 60.4-62.7x on the Devanagari
       pages (before, with regex's \\X: 83-92x on the Latin pages).
    4. the default metric set -- ``metrics.score(ref, hyp)`` (``DEFAULT_METRICS``:
       cer, wer, ned, exact_match) vs ``Levenshtein.editops(ref, hyp)`` on the raw pair.
       Target: <= 3x editops's time.
    5. memory -- ``metrics.score(ref, hyp, ["cer", "wer"])`` on one pair of 100,000- and
       one of 200,000-character pages (same generator, 3% errors), each in a fresh
       subprocess: tracemalloc peak of Python allocations, and the growth of
       ``ru_maxrss`` (all allocations, including rapidfuzz's C++ ones) across the
       call. A full O(n*m) DP matrix for 200k x 200k would be 4e10 cells (5,000 MB even
       at 1 bit per cell). Target: doubling n at most 2.5x the peak (linear ~2x,
       quadratic ~4x), on both measures.

Inputs (in memory, or a temporary directory for the memory subprocesses; nothing is
written into the repo): pages of 1,400-1,600 characters, lines of <= 72 characters
built from a word list (English, German, historic spellings with combining marks such
as "uͤber", so grapheme clusters differ from code points; fixed seed). Each hypothesis
gets round(3% x length) random character edits, a third each substitutions,
insertions and deletions (OCR-like confusions, occasionally a space). All text is NFC.

How
    Each side is the same Python loop over the 1,000 pairs calling one function.
    One untimed warm-up call per side, then REPS repetitions; within a repetition each
    comparison's sides run back to back, in alternating order (A B C, C B A, ...),
    so slow phases of the shared machine hit all sides alike. Fast comparisons loop
    over the pairs several times per sample. Reported: median per side (ms per 1,000
    pairs and us per pair) and the ratio of medians.

    For any missed target (or with ``--profile``), our side of that comparison is run
    once under cProfile and the top entries are printed.

Benchmark-only dependency: dinglehopper (benchmarks/requirements.txt). Without it
comparison 3 is skipped with a note.

Usage: python benchmarks/bench_metrics.py [--reps N] [--profile] [--no-memory]
Always exits 0: this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import pstats
import random
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
from importlib.metadata import version
from pathlib import Path

import jiwer
import regex
from rapidfuzz.distance import Levenshtein

from pytest_ocr import metrics

try:
    from dinglehopper.character_error_rate import character_error_rate as dinglehopper_cer
    from dinglehopper.extracted_text import normalize_sbb
except ImportError as exc:  # benchmark-only dependency
    dinglehopper_cer = None
    DINGLEHOPPER_ERROR = f"{type(exc).__name__}: {exc}"

SEED = 20240611
N_PAIRS = 1000
PAGE_CHARS = (1400, 1600)
LINE_CHARS = 72
ERROR_RATE = 0.03
MEMORY_SIZES = (100_000, 200_000)
DINGLEHOPPER_STRIDE = 50  # comparison 3 uses every 50th pair (20 pages): dinglehopper takes ~0.15 s per page

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
# Devanagari pages for comparison 3b: conjuncts (virama between consonants), vowel signs,
# nasal marks; OCR-like edits then misplace viramas and marks, as real engines do.
DEVANAGARI_WORDS = (
    "सभी मनुष्यों को गौरव और अधिकारों के मामले में जन्मजात स्वतन्त्रता समानता प्राप्त है उन्हें "
    "बुद्धि अन्तरात्मा की देन है परस्पर भाईचारे भाव से बर्ताव करना चाहिये क्षेत्र श्री द्वारा "
    "प्रत्येक व्यक्ति राष्ट्रीय सामाजिक शिक्षा स्वास्थ्य १९४८ २०२३ रुपये कुल राशि दिनांक"
).split()
DEVANAGARI_CONFUSIONS = "कखगघचजटडतदनपबमयरलवसह\u094d\u093e\u093f\u0940\u0941\u0947\u0948\u094b\u0902\u0901 "
PUNCT = [",", ",", ".", ";", ":"]
# OCR-like replacement/insertion characters; a space now and then.
CONFUSIONS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,;:-'äöüſ     "


def make_page(rng: random.Random, length: int, words: tuple[str, ...] | list[str] = WORDS) -> str:
    lines: list[str] = []
    line: list[str] = []
    line_len = total = 0
    while total < length:
        word = rng.choice(words)
        if rng.random() < 0.12:
            word += rng.choice(PUNCT)
        if rng.random() < 0.08:
            word = word[:1].upper() + word[1:]
        if line and line_len + 1 + len(word) > LINE_CHARS:
            lines.append(" ".join(line))
            total += line_len + 1
            line, line_len = [], 0
        line.append(word)
        line_len += len(word) + (1 if line_len else 0)
    if line:
        lines.append(" ".join(line))
    return unicodedata.normalize("NFC", "\n".join(lines))


def corrupt(text: str, rng: random.Random, rate: float = ERROR_RATE, confusions: str = CONFUSIONS) -> str:
    chars = list(text)
    positions = sorted(rng.sample(range(len(chars)), max(1, round(rate * len(chars)))), reverse=True)
    for i in positions:  # right to left, so earlier positions stay valid
        edit = rng.choice(("sub", "del", "ins"))
        if edit == "sub":
            chars[i] = rng.choice(confusions.replace(chars[i], "") or "x")
        elif edit == "del":
            del chars[i]
        else:
            chars.insert(i, rng.choice(confusions))
    return unicodedata.normalize("NFC", "".join(chars).strip())


def generate_pairs(seed: int = SEED, n: int = N_PAIRS) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        reference = make_page(rng, rng.randint(*PAGE_CHARS))
        pairs.append((reference, corrupt(reference, rng)))
    return pairs


def devanagari_pairs(n: int) -> list[tuple[str, str]]:
    rng = random.Random(SEED + 1)
    pairs = []
    for _ in range(n):
        reference = make_page(rng, rng.randint(*PAGE_CHARS), DEVANAGARI_WORDS)
        pairs.append((reference, corrupt(reference, rng, confusions=DEVANAGARI_CONFUSIONS)))
    return pairs


# dinglehopper's character_error_rate(str, str): NFC and grapheme clusters, nothing else
GRAPHEMES = metrics.Normalization(unit="grapheme", whitespace="keep")


def as_read(text: str) -> str:
    """The text as dinglehopper's plain_extract reads it from a file: each line stripped,
    then its SBB normalisation (NFC, ligatures, equivalences)."""
    return "\n".join(normalize_sbb(line.strip()) for line in text.split("\n"))


def looped(fn, pairs):
    """A side: the same plain loop for everyone."""

    def run():
        for reference, hypothesis in pairs:
            fn(reference, hypothesis)

    return run


# -- checks: both sides of a comparison compute the same thing --------------------------------


def check_equivalence(pairs, normalized_pairs, indic_pairs) -> list[str]:
    notes = []
    sample = range(0, len(pairs), 20)  # 50 pairs
    for k in sample:
        (r, h), (nr, nh) = pairs[k], normalized_pairs[k]
        ours = metrics.character_errors(r, h)
        theirs = jiwer.process_characters(nr, nh)
        assert (ours.substitutions, ours.deletions, ours.insertions, ours.hits) == (
            theirs.substitutions,
            theirs.deletions,
            theirs.insertions,
            theirs.hits,
        ), (k, ours, theirs)
        assert metrics.cer(r, h) == Levenshtein.distance(nr, nh) / len(nr), k
        assert metrics.cer(nr, nh, normalize=metrics.RAW) == metrics.cer(r, h), k
        result = metrics.score(r, h)
        assert result["cer"].value == metrics.cer(r, h), k
        assert result["cer"].counts["errors"] == ours.errors, k

    def jiwer_errors(r, h):
        o = jiwer.process_characters(r, h)
        return o.substitutions + o.deletions + o.insertions

    ours_errors = [metrics.character_errors(r, h).errors for r, h in pairs]
    same_raw = sum(e == jiwer_errors(r, h) for e, (r, h) in zip(ours_errors, pairs, strict=True))
    same_normalized = sum(e == jiwer_errors(nr, nh) for e, (nr, nh) in zip(ours_errors, normalized_pairs, strict=True))
    notes.append(
        f"S/D/I/hits equal to jiwer's on {len(sample)} sampled pairs (asserted, jiwer given our normalised "
        f"text); error totals equal on {same_normalized}/{len(pairs)} pairs given our normalised text, on "
        f"{same_raw}/{len(pairs)} given the raw pages (jiwer only strips; we also collapse whitespace runs "
        f"that edits created next to line breaks)"
    )
    if dinglehopper_cer is not None:
        exact = GRAPHEMES
        ocrd = metrics.profile("ocrd")
        subset = pairs[::DINGLEHOPPER_STRIDE]
        theirs = [dinglehopper_cer(r, h) for r, h in subset]
        for k, ((r, h), value) in enumerate(zip(subset, theirs, strict=True)):
            assert metrics.cer(r, h, normalize=exact) == value, (k, metrics.cer(r, h, exact), value)
        for k, (r, h) in enumerate(subset):
            assert metrics.cer(r, h, normalize=ocrd) == dinglehopper_cer(as_read(r), as_read(h)), ("ocrd", k)
        fewer = sum(len(exact.units(r)) < len(r) for r, _ in subset)
        notes.append(
            f"grapheme cer equal to dinglehopper's on all {len(subset)} pages of comparison 3 with "
            f"NFC + grapheme clusters, and with the ocrd profile given the text as dinglehopper reads a file "
            f"(asserted); {fewer}/{len(subset)} references have fewer graphemes than code points"
        )
        for k, (r, h) in enumerate(indic_pairs):
            assert metrics.cer(r, h, normalize=exact) == dinglehopper_cer(r, h), ("devanagari", k)
        misplaced = sum(regex.findall(r"\X", h) != exact.units(h) for _, h in indic_pairs)
        notes.append(
            f"grapheme cer equal to dinglehopper's on all {len(indic_pairs)} Devanagari pages of comparison 3b "
            f"(asserted); regex's \\X splits {misplaced}/{len(indic_pairs)} of their hypotheses differently (GB9c)"
        )
    return notes


# -- timing ------------------------------------------------------------------------------------


class Comparison:
    def __init__(self, name, baseline, variants, target, higher_is_better, inner=1, n_pairs=N_PAIRS):
        self.name = name
        self.baseline = baseline  # (label, run)
        self.variants = variants  # [(label, run)]
        self.target = target
        self.throughput = higher_is_better  # ratio = baseline / ours  (else ours / baseline)
        self.inner = inner
        self.n_pairs = n_pairs
        self.times = {label: [] for label, *_ in [baseline, *variants]}

    def sides(self):
        return [self.baseline[:2]] + [v[:2] for v in self.variants]

    def sample(self, rep: int) -> None:
        sides = self.sides()
        if rep % 2:
            sides.reverse()
        for label, run in sides:
            gc.collect()
            start = time.perf_counter()
            for _ in range(self.inner):
                run()
            self.times[label].append((time.perf_counter() - start) / self.inner)

    def ratio(self, label: str) -> float:
        ours = statistics.median(self.times[label])
        base = statistics.median(self.times[self.baseline[0]])
        return base / ours if self.throughput else ours / base

    def ok(self, label: str) -> bool:
        r = self.ratio(label)
        return r >= self.target if self.throughput else r <= self.target

    def target_text(self) -> str:
        return f">= {self.target:g}x" if self.throughput else f"<= {self.target:g}x"


def print_table(comparisons: list[Comparison]) -> None:
    print(f"{'comparison / side':58s} {'ms/1000':>8s} {'us/pair':>8s} {'ratio':>6s} {'target':>7s}  result")
    for c in comparisons:
        print(f"{c.name} ({'throughput ours/theirs' if c.throughput else 'time ours/floor'})")
        base_label = c.baseline[0]
        base = statistics.median(c.times[base_label])
        n_pairs = c.n_pairs
        print(f"  {base_label:56s} {base * 1000 * 1000 / n_pairs:8.1f} {base * 1e6 / n_pairs:8.1f}")
        for label, *_ in c.variants:
            t = statistics.median(c.times[label])
            print(
                f"  {label:56s} {t * 1000 * 1000 / n_pairs:8.1f} {t * 1e6 / n_pairs:8.1f} {c.ratio(label):6.2f} "
                f"{c.target_text():>7s}  {'PASS' if c.ok(label) else 'MISS'}"
            )


def profile_side(label: str, run, n_pairs: int) -> None:
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.runcall(run)
    elapsed = time.perf_counter() - start
    print(f"\ncProfile of '{label}' over {n_pairs} pairs ({elapsed:.3f} s under the profiler)")
    stats = pstats.Stats(profiler)
    stats.sort_stats("cumulative")
    stats.print_stats(16)
    stats.sort_stats("tottime")
    print("-- by own time --")
    stats.print_stats(8)


# -- memory ------------------------------------------------------------------------------------

MEMORY_CHILD = r"""
import json, resource, sys, time, tracemalloc
from pytest_ocr import metrics
ref = open(sys.argv[1], encoding="utf-8").read()
hyp = open(sys.argv[2], encoding="utf-8").read()
metrics.score("warm up the caches", "warm up the cashes", ["cer", "wer"])
def status_kb(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":"))
try:  # reset the kernel's peak-RSS mark (VmHWM), so imports' peak does not hide ours
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    hwm_reset = True
except OSError:
    hwm_reset = False
maxrss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
rss_before = status_kb("VmRSS")
start = time.perf_counter()
result = metrics.score(ref, hyp, ["cer", "wer"])
elapsed = time.perf_counter() - start
maxrss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
hwm_after = status_kb("VmHWM")
values = {name: r.value for name, r in result.items()}
del result
tracemalloc.start()
metrics.score(ref, hyp, ["cer", "wer"])
_, traced_peak = tracemalloc.get_traced_memory()
tracemalloc.stop()
print(json.dumps({"seconds": elapsed, "rss_before_kb": rss_before, "hwm_reset": hwm_reset,
                  "hwm_delta_kb": hwm_after - rss_before if hwm_reset else None,
                  "maxrss_delta_kb": maxrss_after - maxrss_before, "traced_peak_bytes": traced_peak,
                  "values": values}))
"""


def long_page(rng: random.Random, length: int) -> str:
    return make_page(rng, length)[:length].rstrip()


def measure_memory() -> None:
    print("\nMemory: metrics.score(ref, hyp, ['cer', 'wer']) on one long pair per size, fresh subprocess each")
    rows = {}
    with tempfile.TemporaryDirectory(prefix="bench-metrics-") as tmp:
        for size in MEMORY_SIZES:
            rng = random.Random(SEED + size)
            reference = long_page(rng, size)
            hypothesis = corrupt(reference, rng)
            ref_path, hyp_path = Path(tmp) / f"ref{size}.txt", Path(tmp) / f"hyp{size}.txt"
            ref_path.write_text(reference, encoding="utf-8")
            hyp_path.write_text(hypothesis, encoding="utf-8")
            proc = subprocess.run(
                [sys.executable, "-c", MEMORY_CHILD, str(ref_path), str(hyp_path)], capture_output=True, text=True
            )
            if proc.returncode != 0:
                print(f"  {size}: child failed rc={proc.returncode}\n{proc.stderr[-2000:]}")
                return
            data = json.loads(proc.stdout.strip().splitlines()[-1])
            data["ref_len"], data["hyp_len"] = len(reference), len(hypothesis)
            rows[size] = data
    mb = lambda kb: "n/a" if kb is None else f"{kb / 1024:.2f}"  # noqa: E731
    print(
        f"  {'chars (ref x hyp)':22s} {'score s':>8s} {'traced peak MB':>15s} {'peak RSS growth MB':>19s} "
        f"{'ru_maxrss delta MB':>19s} {'RSS before MB':>14s}  values"
    )
    for d in rows.values():
        print(
            f"  {d['ref_len']:>9,d} x {d['hyp_len']:<9,d} {d['seconds']:8.2f} {d['traced_peak_bytes'] / 2**20:15.2f} "
            f"{mb(d['hwm_delta_kb']):>19s} {mb(d['maxrss_delta_kb']):>19s} {d['rss_before_kb'] / 1024:14.1f}  "
            + ", ".join(f"{k}={v:.4f}" for k, v in d["values"].items())
        )
    small, large = (rows[s] for s in MEMORY_SIZES)
    cells = large["ref_len"] * large["hyp_len"]
    print(
        f"  full O(n*m) DP matrix at {MEMORY_SIZES[1]:,}: {cells:.2e} cells = {cells / 8 / 1e6:,.0f} MB at 1 bit/cell, "
        f"{cells * 4 / 1e6:,.0f} MB at 4 bytes/cell"
    )
    print(
        "  (peak RSS growth = VmHWM after the call - VmRSS before it, with the peak mark reset via "
        "/proc/self/clear_refs; ru_maxrss delta misses anything below the process's earlier peak)"
    )
    print(f"  {'measure':40s} {'ratio 200k/100k':>16s} {'target':>8s}  result   (linear ~2, quadratic ~4)")
    measures = [("tracemalloc peak (Python allocations)", small["traced_peak_bytes"], large["traced_peak_bytes"])]
    if small["hwm_delta_kb"] is not None:
        measures.append(("peak RSS growth (all allocations)", small["hwm_delta_kb"], large["hwm_delta_kb"]))
    else:
        measures.append(("ru_maxrss delta (all allocations)", small["maxrss_delta_kb"], large["maxrss_delta_kb"]))
    for name, a, b in measures:
        if a <= 0:
            print(f"  {name:40s} {'n/a (no growth at 100k)':>16s}")
            continue
        value = b / a
        print(f"  {name:40s} {value:16.2f} {'<= 2.5x':>8s}  {'PASS' if value <= 2.5 else 'MISS'}")
    print(
        f"  time: {large['seconds'] / small['seconds']:.2f}x for 2x the length (editops is O(n*d/64): d grows with n "
        f"at a fixed error rate)"
    )


# -- main --------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7, help="timed repetitions per side (default 7)")
    parser.add_argument("--profile", action="store_true", help="profile our sides even if they meet the target")
    parser.add_argument("--no-memory", action="store_true", help="skip the long-page memory measurement")
    args = parser.parse_args()

    t_start = time.perf_counter()
    pairs = generate_pairs()
    normalized = [(metrics.DEFAULT(r), metrics.DEFAULT(h)) for r, h in pairs]
    ref_chars = [len(r) for r, _ in pairs]
    realized = statistics.mean(Levenshtein.distance(r, h) / len(r) for r, h in normalized)
    print(
        f"{N_PAIRS} page pairs, reference {min(ref_chars)}-{max(ref_chars)} chars "
        f"(mean {statistics.mean(ref_chars):.0f}, "
        f"{statistics.mean(r.count(chr(10)) + 1 for r, _ in pairs):.0f} lines), "
        f"mean realised cer {realized:.4f}; seed {SEED}; {args.reps} interleaved repetitions, medians"
    )
    print(
        f"python {sys.version.split()[0]}, jiwer {version('jiwer')}, rapidfuzz {version('rapidfuzz')}, "
        f"dinglehopper {version('dinglehopper') if dinglehopper_cer else 'not available'}"
    )
    indic = devanagari_pairs(len(pairs[::DINGLEHOPPER_STRIDE]))
    for note in check_equivalence(pairs, normalized, indic):
        print(f"check: {note}")

    ocrd = metrics.profile("ocrd")
    score_cer = lambda r, h: metrics.score(r, h, ["cer"])  # noqa: E731
    comparisons = [
        Comparison(
            "1. cer with S/D/I counts vs jiwer.process_characters",
            ("jiwer.process_characters(ref, hyp)", looped(jiwer.process_characters, pairs)),
            [
                ("metrics.character_errors(ref, hyp)", looped(metrics.character_errors, pairs)),
                ('metrics.score(ref, hyp, ["cer"]) (+confusions, details)', looped(score_cer, pairs)),
            ],
            target=2.0,
            higher_is_better=True,
        ),
        Comparison(
            "2. cer value vs bare Levenshtein.distance (floor)",
            ("Levenshtein.distance(ref, hyp) on normalised text", looped(Levenshtein.distance, normalized)),
            [
                ("metrics.cer(ref, hyp), raw pages", looped(metrics.cer, pairs)),
                ("metrics.cer(ref, hyp), pages already normalised", looped(metrics.cer, normalized)),
                (
                    "metrics.cer(ref, hyp, normalize=RAW), normalised pages",
                    looped(lambda r, h: metrics.cer(r, h, normalize=metrics.RAW), normalized),
                ),
            ],
            target=1.3,
            higher_is_better=False,
            inner=2,
        ),
    ]
    if dinglehopper_cer is not None:
        subset = pairs[::DINGLEHOPPER_STRIDE]

        def ours(pages, normalization):
            return looped(lambda r, h: metrics.cer(r, h, normalization), pages)

        graphemes = ("metrics.cer(ref, hyp, normalize=GRAPHEMES)", GRAPHEMES)
        for title, pages, variants in (
            (
                "3. grapheme cer vs dinglehopper character_error_rate",
                subset,
                [graphemes, ('  same, profile("ocrd")', ocrd)],
            ),
            ("3b. the same on Devanagari pages", indic, [graphemes]),
        ):
            comparisons.append(
                Comparison(
                    f"{title} ({len(pages)} pages, both sides)",
                    ("dinglehopper character_error_rate(ref, hyp)", looped(dinglehopper_cer, pages)),
                    [(label, ours(pages, normalization)) for label, normalization in variants],
                    target=5.0,
                    higher_is_better=True,
                    n_pairs=len(pages),
                )
            )
    comparisons.append(
        Comparison(
            "4. default metric set vs Levenshtein.editops",
            ("Levenshtein.editops(ref, hyp)", looped(Levenshtein.editops, pairs)),
            [(f"metrics.score(ref, hyp) ({', '.join(metrics.DEFAULT_METRICS)})", looped(metrics.score, pairs))],
            target=3.0,
            higher_is_better=False,
        )
    )

    for c in comparisons:  # warm-up: caches, lazy tables, allocator
        for _, run in c.sides():
            run()
    for rep in range(args.reps):
        for c in comparisons:
            c.sample(rep)

    print()
    print_table(comparisons)
    print("(ms/1000 = median seconds per sample scaled to 1,000 pairs; us/pair = the same per pair)")
    if dinglehopper_cer is None:
        print(
            f"3. grapheme cer vs dinglehopper: SKIPPED, dinglehopper not importable ({DINGLEHOPPER_ERROR}); "
            f"pip install -r benchmarks/requirements.txt"
        )
    print(f"(timing took {time.perf_counter() - t_start:.0f} s)")

    for c in comparisons:
        for label, run in c.variants:
            if args.profile or not c.ok(label):
                profile_side(label, run, c.n_pairs)

    if not args.no_memory:
        measure_memory()
    print(f"\n(total {time.perf_counter() - t_start:.0f} s)")
    sys.exit(0)


if __name__ == "__main__":
    main()
