"""Agreement with the field's reference tools on random pairs: how often pytest-ocr,
with the settings the docs' "Compatibility with other tools" table gives, returns
exactly the number the tool returns.

What is compared (N random pairs each, fixed seed)
    jiwer 4          cer with ``{unicode: none, whitespace: trim}``; wer, mer, wil, wip with
                     ``{unicode: none}`` (whitespace collapsed), on texts whose words are
                     separated by spaces, and separately on texts with tabs and line breaks
                     between words (where jiwer keeps "a\\nb" as one word: a difference by
                     design, so that share is reported, not a target).
    dinglehopper     ``character_error_rate(gt, ocr)`` against ``{unit: grapheme,
                     whitespace: keep}``, and against the ``ocrd`` profile given the texts
                     as dinglehopper's command line reads them from files (``plain_text``),
                     with ``empty_reference_value="infinity"``. Needs
                     ``pip install -r benchmarks/requirements.txt``.
    ocreval          its ``accuracy`` program's Characters and Errors against
                     ``char_accuracy`` with ``{unicode: none, whitespace: isri}``. Needs the
                     built binary: ``--ocreval PATH`` (github.com/eddieantonio/ocreval,
                     ``make`` with libutf8proc-dev).

The texts mix Latin with precomposed and combining accents, Devanagari conjuncts and
viramas, Tibetan stacks, CJK, punctuation and whitespace of every kind ocreval treats
specially; the hypotheses are the references with 8 % random character edits (whitespace
included), some references empty.

Results, ``--pairs 2000 --ocreval ...`` on 2026-11-25 (jiwer 4.0.0, dinglehopper 0.11.0 with
uniseg 0.10.1, ocreval 7.0 at commit 873a0de):

    jiwer, words separated by spaces:   cer, wer, mer, wil, wip     1958 / 1958 each
    jiwer, any whitespace:              cer                          1971 / 1971
                                        wer, mer                      229 / 1971 (by design)
                                        wil, wip                      212 / 1971 (by design)
    dinglehopper character_error_rate vs {unit: grapheme, whitespace: keep}   2000 / 2000
    dinglehopper's command line on files vs the ocrd profile                  1997 / 1997
        (3 pairs refused by dinglehopper: "not in NFC" after unjoining a ligature before
        a combining mark; pytest-ocr puts the result back in NFC)
    ocreval accuracy vs char_accuracy {unicode: none, whitespace: isri}       1955 / 1955
        (45 references empty after spacing: accuracy reports nothing for them)

jiwer's words are split on spaces after runs of two or more whitespace characters become
one space, so a single line break or tab inside a text joins two words; pytest-ocr splits
on any whitespace.

Usage: python benchmarks/bench_agreement.py [--pairs N] [--ocreval PATH]
Always exits 0: this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import math
import random
import re
import subprocess
import tempfile
from importlib.metadata import version
from pathlib import Path

import jiwer

from pytest_ocr import metrics

try:
    from dinglehopper import character_error_rate, plain_text
except ImportError:  # benchmark-only dependency
    character_error_rate = plain_text = None

SEED = 20261125
LETTERS = list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789.,;:-'\"äöüßéçñ") + [
    "e\u0301", "o\u0308", "क", "ष", "त", "\u094d", "ि", "\u093e", "ག", "\u0f90", "中", "文", "ﬁ", "ſ",
]  # fmt: skip
SPACES = [" "]
WHITESPACE = [" ", " ", "  ", "\n", "\n\n", "\t", "\u00a0", " \n ", "\r\n"]


def page(rng: random.Random, separators: list[str]) -> str:
    if rng.random() < 0.02:
        return ""
    words = ["".join(rng.choice(LETTERS) for _ in range(rng.randint(1, 8))) for _ in range(rng.randint(1, 30))]
    text = words[0]
    for word in words[1:]:
        text += rng.choice(separators) + word
    return text + rng.choice(["", "\n"]) if separators is WHITESPACE else text


def corrupt(rng: random.Random, text: str, separators: list[str]) -> str:
    chars = list(text)
    if not chars:
        return rng.choice(["", "a b"])
    for i in sorted(rng.sample(range(len(chars)), max(1, len(chars) * 8 // 100)), reverse=True):
        edit = rng.choice("sdi")
        if edit == "s":
            chars[i] = rng.choice(LETTERS + separators)
        elif edit == "d":
            del chars[i]
        else:
            chars.insert(i, rng.choice(LETTERS + separators))
    return "".join(chars)


def pairs(n: int, separators: list[str], seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    found = []
    for _ in range(n):
        reference = page(rng, separators)
        found.append((reference, corrupt(rng, reference, separators)))
    return found


def agreement(label: str, equal: list[bool]) -> None:
    print(f"  {label:<72} {sum(equal):>5} / {len(equal)}")


def jiwer_part(n: int) -> None:
    print(f"jiwer {version('jiwer')}")
    cer_settings = metrics.Normalization(unicode="none", whitespace="trim")
    word_settings = metrics.Normalization(unicode="none")
    for name, separators in (("spaces between words", SPACES), ("any whitespace between words", WHITESPACE)):
        found = [(r, h) for r, h in pairs(n, separators, SEED) if r.strip()]  # jiwer refuses an empty reference
        equal = [math.isclose(metrics.cer(r, h, cer_settings), jiwer.cer(r, h), abs_tol=1e-12) for r, h in found]
        agreement(f"cer, {name}", equal)
        for measure in ("wer", "mer", "wil", "wip"):
            theirs = getattr(jiwer, measure)
            equal = [
                math.isclose(metrics.score(r, h, measure, word_settings)[measure].value, theirs(r, h), abs_tol=1e-12)
                for r, h in found
            ]
            agreement(f"{measure}, {name}", equal)


def dinglehopper_part(n: int) -> None:
    if character_error_rate is None:
        print("dinglehopper: not installed (pip install -r benchmarks/requirements.txt)")
        return
    print("dinglehopper")
    graphemes = metrics.Normalization(unit="grapheme", whitespace="keep")
    ocrd = metrics.profile("ocrd")
    found = pairs(n, WHITESPACE, SEED + 1)
    equal = []
    for r, h in found:
        ours = metrics.cer(r, h, graphemes, empty_reference_value="infinity")
        equal.append(ours == character_error_rate(r, h))
    agreement("character_error_rate(gt, ocr) vs {unit: grapheme, whitespace: keep}", equal)
    equal = []
    refused = 0
    with tempfile.TemporaryDirectory() as tmp:
        gt, ocr = Path(tmp) / "gt.txt", Path(tmp) / "ocr.txt"
        for r, h in found:
            gt.write_text(r, encoding="utf-8", newline="")
            ocr.write_text(h, encoding="utf-8", newline="")
            try:
                theirs = character_error_rate(plain_text(str(gt), "utf-8"), plain_text(str(ocr), "utf-8"))
            except ValueError:  # 'String "..." is not in NFC.': a ligature unjoined before a combining mark
                refused += 1
                continue
            equal.append(metrics.cer(r, h, ocrd, empty_reference_value="infinity") == theirs)
    agreement(f"its command line on two files vs the ocrd profile ({refused} refused by it)", equal)


def ocreval_part(n: int, binary: str) -> None:
    print("ocreval", binary)
    isri = metrics.Normalization(unicode="none", whitespace="isri")
    equal = []
    with tempfile.TemporaryDirectory() as tmp:
        gt, ocr, report = Path(tmp) / "gt.txt", Path(tmp) / "ocr.txt", Path(tmp) / "report.txt"
        for r, h in pairs(n, WHITESPACE, SEED + 2):
            if not isri(r):
                continue  # accuracy divides by the characters: no report for an empty page
            gt.write_text(r, encoding="utf-8", newline="")
            ocr.write_text(h, encoding="utf-8", newline="")
            subprocess.run([binary, str(gt), str(ocr), str(report)], check=True)
            text = report.read_text(encoding="utf-8")
            found = [int(re.search(rf"(\d+)\s+{what}\n", text).group(1)) for what in ("Characters", "Errors")]  # type: ignore[union-attr]
            counts = metrics.score(r, h, ["char_accuracy"], isri)["char_accuracy"].counts
            equal.append([counts["total"], counts["total"] - counts["correct"]] == found)
    agreement("accuracy's Characters and Errors vs char_accuracy {whitespace: isri}", equal)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--ocreval", metavar="PATH", help="ocreval's accuracy program")
    args = parser.parse_args()
    print(f"{args.pairs} random pairs per comparison, seed {SEED}; pairs where pytest-ocr equals the tool:")
    jiwer_part(args.pairs)
    dinglehopper_part(args.pairs)
    if args.ocreval:
        ocreval_part(args.pairs, args.ocreval)
    else:
        print("ocreval: --ocreval PATH not given")


if __name__ == "__main__":
    main()
