"""CER, WER, NED and exact match, checked against an independent implementation.

Every expected value here comes from jiwer 4 (a separate CER/WER implementation)
or from a worked example published in the specs under /work/shared/spec, never
from pytest_ocr itself. Where jiwer and pytest_ocr deliberately differ (an empty
reference), both behaviours are pinned side by side.

Like-for-like comparison with jiwer needs inputs on which the two pipelines do
the same thing: jiwer's default CER transform only strips the ends, its WER
transform splits on single spaces, and it applies no Unicode normalisation. So
the generated texts are words of non-whitespace characters joined by single
spaces, and are either compared with ``normalize=metrics.RAW`` or NFC-normalised
(with unicodedata, independently of our code) before being handed to jiwer.
"""

from __future__ import annotations

import random
import string
import unicodedata
from collections import Counter

import jiwer
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_ocr import metrics
from pytest_ocr.metrics import Normalization

# Deterministic and moderate, so CI is stable and the file stays fast.
PROPERTY = settings(
    max_examples=200,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def fraction(name, result):
    """(errors, what they are divided by) from a MetricResult's additive counts."""
    c = result.counts
    if name == "cer":
        return c["errors"], c["denominator"]
    if name == "wer":
        return c["substitutions"] + c["deletions"] + c["insertions"], c["hits"] + c["substitutions"] + c["deletions"]
    if name == "ned":
        return c["distance"], c["longer"]
    raise KeyError(name)


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def jiwer_char_counts(reference: str, hypothesis: str) -> dict:
    out = jiwer.process_characters(reference, hypothesis)
    return {
        "substitutions": out.substitutions,
        "deletions": out.deletions,
        "insertions": out.insertions,
        "hits": out.hits,
        "reference_length": out.hits + out.substitutions + out.deletions,
    }


def jiwer_word_counts(reference: str, hypothesis: str) -> dict:
    out = jiwer.process_words(reference, hypothesis)
    return {
        "substitutions": out.substitutions,
        "deletions": out.deletions,
        "insertions": out.insertions,
        "hits": out.hits,
        "reference_length": out.hits + out.substitutions + out.deletions,
    }


def our_counts(counts: metrics.ErrorCounts) -> dict:
    return {
        "substitutions": counts.substitutions,
        "deletions": counts.deletions,
        "insertions": counts.insertions,
        "hits": counts.hits,
        "reference_length": counts.reference_length,
    }


def compare_with_jiwer(reference: str, hypothesis: str, normalize: Normalization) -> list[str]:
    """Every disagreement between pytest_ocr (with `normalize`) and jiwer on the
    NFC forms of the texts (identical to the texts themselves when they are NFC)."""
    ref, hyp = nfc(reference), nfc(hypothesis)
    problems = []

    def differ(what, ours, theirs):
        if ours != theirs:
            problems.append(f"{what}: ours={ours!r} jiwer={theirs!r} for {reference!r} vs {hypothesis!r}")

    chars = jiwer_char_counts(ref, hyp)
    words = jiwer_word_counts(ref, hyp)
    differ("cer", metrics.cer(reference, hypothesis, normalize=normalize), jiwer.cer(ref, hyp))
    differ("wer", metrics.wer(reference, hypothesis, normalize=normalize), jiwer.wer(ref, hyp))
    differ("char counts", our_counts(metrics.character_errors(reference, hypothesis, normalize=normalize)), chars)
    differ("word counts", our_counts(metrics.word_errors(reference, hypothesis, normalize=normalize)), words)

    # NED = edit distance / longer length; the distance is jiwer's S + D + I.
    distance = chars["substitutions"] + chars["deletions"] + chars["insertions"]
    longer = max(len(ref), len(hyp))
    differ("ned", metrics.ned(reference, hypothesis, normalize=normalize), distance / longer if longer else 0.0)

    # score() must agree with the plain functions' independent counterparts too.
    results = metrics.score(reference, hypothesis, normalize=normalize)
    for name, counts, rate in (("cer", chars, jiwer.cer(ref, hyp)), ("wer", words, jiwer.wer(ref, hyp))):
        r = results[name]
        errors = counts["substitutions"] + counts["deletions"] + counts["insertions"]
        differ(f"score {name} value", r.value, rate)
        differ(f"score {name} fraction", fraction(name, r), (errors, counts["reference_length"]))
        differ(f"score {name} details", {k: r.details[k] for k in counts}, counts)
    differ("score ned", fraction("ned", results["ned"]), (distance, longer))
    differ("score exact_match", results["exact_match"].value, 1.0 if ref == hyp else 0.0)
    return problems


# -- seeded random pairs ------------------------------------------------------------

# Latin, digits, punctuation and symbols, plus precomposed accents, Greek, Cyrillic,
# CJK, Devanagari and Tibetan (with vowel signs and subjoined letters, which are
# combining marks) and a few generic combining accents. No whitespace: spaces are
# only ever inserted as single word separators.
ALPHABET = (
    string.ascii_letters
    + string.digits
    + "#$%&.,;:!?-/()'\""
    + "éèüßñçÅ"
    + "αβγδεΩΣ"
    + "абвгдЖЯ"
    + "日本語文字中"
    + "कखगनमि्ा"
    + "ཀཁགངབསརལ་།ིེོུྒྱྲ"
    + "\u0301\u0308\u0327"
)


def random_word(rng: random.Random) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 9)))


def random_reference(rng: random.Random) -> str:
    # Mostly multi-word; sometimes a single short word so tiny denominators occur.
    n_words = rng.choice([1, 1, 2, 3, 5, 8, 13, 20])
    return " ".join(random_word(rng) for _ in range(n_words))


def corrupt(rng: random.Random, reference: str) -> str:
    """Apply random character- and word-level substitutions, insertions and deletions."""
    if rng.random() < 0.05:
        return ""  # engine returned nothing
    if rng.random() < 0.05:
        return random_reference(rng)  # engine returned something unrelated
    chars = list(reference)
    for _ in range(rng.randint(0, 1 + len(reference) // 4)):
        op = rng.choice(["sub", "ins", "del", "space", "word_ins", "word_del"])
        pos = rng.randrange(len(chars) + 1)
        if op == "sub" and pos < len(chars):
            chars[pos] = rng.choice(ALPHABET)
        elif op == "ins":
            chars.insert(pos, rng.choice(ALPHABET))
        elif op == "del" and pos < len(chars):
            del chars[pos]
        elif op == "space":  # splits a word (or is a no-op next to a space)
            chars.insert(pos, " ")
        elif op == "word_ins":
            chars[pos:pos] = list(" " + random_word(rng) + " ")
        elif op == "word_del":
            words = "".join(chars).split(" ")
            del words[rng.randrange(len(words))]
            chars = list(" ".join(words))
    # Back to canonical form: single spaces, none at the ends.
    return " ".join(w for w in "".join(chars).split(" ") if w)


def random_pairs(seed: int, n: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        reference = random_reference(rng)
        pairs.append((nfc(reference), nfc(corrupt(rng, reference))))
    return pairs


PAIRS = random_pairs(seed=20240611, n=500)


def test_random_pairs_exercise_every_kind_of_error():
    # Guards against a generator that quietly stops producing the cases the
    # cross-check below is meant to cover (which would make it pass vacuously).
    char = [jiwer_char_counts(r, h) for r, h in PAIRS]
    word = [jiwer_word_counts(r, h) for r, h in PAIRS]
    for counts in (char, word):
        for kind in ("substitutions", "deletions", "insertions"):
            assert sum(1 for c in counts if c[kind]) > 50, kind
    assert sum(1 for r, _ in PAIRS if " " in r) > 300  # multi-word references
    assert sum(1 for r, h in PAIRS if r == h) > 5  # exact matches
    assert any(h == "" for _, h in PAIRS)
    assert any(jiwer.cer(r, h) > 1 for r, h in PAIRS)  # CER is not capped at 1
    assert any(any("\u0f00" <= ch <= "\u0fff" for ch in r) for r, _ in PAIRS)


@pytest.mark.slow
@pytest.mark.parametrize("normalize", [metrics.RAW, metrics.DEFAULT], ids=["raw", "default"])
def test_500_random_pairs_agree_with_jiwer(normalize):
    # The pairs are already normalised (NFC, single spaces, stripped), so RAW and
    # the default normalisation must both give exactly jiwer's numbers.
    problems = [p for reference, hypothesis in PAIRS for p in compare_with_jiwer(reference, hypothesis, normalize)]
    assert not problems, f"{len(problems)} disagreements, first ones:\n" + "\n".join(problems[:10])


# -- hypothesis property tests ------------------------------------------------------

SCRIPT_RANGES = [
    (0x0021, 0x007E),  # ASCII
    (0x00C0, 0x017F),  # Latin-1 / Latin Extended-A
    (0x0300, 0x036F),  # combining diacritical marks
    (0x0370, 0x03FF),  # Greek
    (0x0400, 0x04FF),  # Cyrillic
    (0x0900, 0x097F),  # Devanagari
    (0x0F00, 0x0FFF),  # Tibetan
    (0x4E00, 0x9FFF),  # CJK unified ideographs
]
# Letters, marks, numbers, punctuation, symbols: everything except separators
# (whitespace) and control/unassigned code points.
VISIBLE = ("L", "M", "N", "P", "S")
characters = st.one_of(
    [st.characters(min_codepoint=lo, max_codepoint=hi, categories=VISIBLE) for lo, hi in SCRIPT_RANGES]
)
words = st.text(characters, min_size=1, max_size=8)
texts = st.lists(words, min_size=1, max_size=8).map(" ".join)


@st.composite
def edited(draw, reference: str) -> str:
    """The reference with a few word-level and character-level edits."""
    out = reference.split(" ")
    for _ in range(draw(st.integers(0, 4))):
        op = draw(st.sampled_from(["sub_char", "ins_char", "del_char", "sub_word", "ins_word", "del_word"]))
        i = draw(st.integers(0, len(out)))
        if op == "ins_word":
            out.insert(i, draw(words))
        elif i == len(out):
            continue
        elif op == "sub_word":
            out[i] = draw(words)
        elif op == "del_word":
            del out[i]
        elif out[i]:  # a word emptied by an earlier deletion has no characters left to edit
            w = out[i]
            j = draw(st.integers(0, len(w) - 1))
            new = draw(characters)
            if op == "sub_char":
                w = w[:j] + new + w[j + 1 :]
            elif op == "ins_char":
                w = w[:j] + new + w[j:]
            else:
                w = w[:j] + w[j + 1 :]
            out[i] = w
    return " ".join(w for w in out if w)


@st.composite
def pairs(draw) -> tuple[str, str]:
    reference = draw(texts)
    hypothesis = draw(st.one_of(edited(reference), texts, st.just("")))
    return reference, hypothesis


@pytest.mark.slow
@PROPERTY
@given(pairs())
def test_raw_metrics_agree_with_jiwer_on_any_script(pair):
    # Raw code points, combining marks not composed: exactly what jiwer sees.
    reference, hypothesis = pair
    raw = metrics.RAW
    assert metrics.cer(reference, hypothesis, normalize=raw) == jiwer.cer(reference, hypothesis)
    assert metrics.wer(reference, hypothesis, normalize=raw) == jiwer.wer(reference, hypothesis)
    assert our_counts(metrics.character_errors(reference, hypothesis, normalize=raw)) == jiwer_char_counts(
        reference, hypothesis
    )
    assert our_counts(metrics.word_errors(reference, hypothesis, normalize=raw)) == jiwer_word_counts(
        reference, hypothesis
    )
    ours = metrics.score(reference, hypothesis, ["mer", "wil", "wip"], normalize=raw)
    theirs = {"mer": jiwer.mer, "wil": jiwer.wil, "wip": jiwer.wip}
    for name, measure in theirs.items():
        assert ours[name].value == pytest.approx(measure(reference, hypothesis), abs=1e-12), name


@pytest.mark.slow
@PROPERTY
@given(pairs())
def test_default_metrics_equal_jiwer_on_nfc_text(pair):
    # With the default normalisation, our numbers are jiwer's numbers on the NFC
    # forms of the texts (our texts have no whitespace to collapse).
    reference, hypothesis = pair
    assert compare_with_jiwer(reference, hypothesis, metrics.DEFAULT) == []


@pytest.mark.slow
@PROPERTY
@given(pairs())
def test_ned_and_exact_match_bounds(pair):
    reference, hypothesis = pair
    value = metrics.ned(reference, hypothesis)
    assert 0.0 <= value <= 1.0
    assert (value == 0.0) == (metrics.exact_match(reference, hypothesis) == 1.0)
    assert metrics.exact_match(reference, hypothesis) in (0.0, 1.0)


# -- worked examples from the specs -------------------------------------------------


def test_spec_1_1_cer_worked_example():
    # ocr-metrics-spec.md §1.1: one substitution (O -> 0) in 14 characters, CER 7.14 %.
    reference, hypothesis = "INVOICE #12345", "INV0ICE #12345"
    assert metrics.cer(reference, hypothesis) == 1 / 14
    counts = metrics.character_errors(reference, hypothesis)
    assert (counts.substitutions, counts.deletions, counts.insertions) == (1, 0, 0)
    assert counts.reference_length == 14
    assert counts.hits == 13
    assert round(metrics.cer(reference, hypothesis) * 100, 2) == 7.14
    result = metrics.score(reference, hypothesis, ["cer"])["cer"]
    assert (result.value, *fraction("cer", result)) == (1 / 14, 1, 14)
    assert jiwer.cer(reference, hypothesis) == 1 / 14  # and jiwer agrees


def test_spec_1_2_wer_worked_example():
    # ocr-metrics-spec.md §1.2: AMOUNT -> AMUNT is one substituted word of 3, WER 33.33 %.
    reference, hypothesis = "TOTAL AMOUNT DUE", "TOTAL AMUNT DUE"
    assert metrics.wer(reference, hypothesis) == 1 / 3
    counts = metrics.word_errors(reference, hypothesis)
    assert (counts.substitutions, counts.deletions, counts.insertions) == (1, 0, 0)
    assert counts.reference_length == 3
    assert counts.hits == 2
    assert round(metrics.wer(reference, hypothesis) * 100, 2) == 33.33
    result = metrics.score(reference, hypothesis, ["wer"])["wer"]
    assert (result.value, *fraction("wer", result)) == (1 / 3, 1, 3)
    assert jiwer.wer(reference, hypothesis) == 1 / 3


@pytest.mark.parametrize(
    ("text", "code_points"),
    [
        ("རྒྱལ", 4),  # cer-review-tibetan.md §3.2: ར + ྒ + ྱ + ལ
        ("བསྒྲུབས", 7),  # §3.1: one syllable, 7 code points
    ],
)
def test_tibetan_cer_counts_code_points(text, code_points):
    # Deleting everything costs one deletion per code point, not per syllable.
    counts = metrics.character_errors(text, "")
    assert (counts.reference_length, counts.deletions) == (code_points, code_points)
    assert metrics.cer(text, "") == 1.0


def test_tibetan_missing_subjoined_consonant_is_one_deletion():
    # cer-review-tibetan.md §3.3: རྒ for རྒྱ is "1 deletion at code-point level".
    counts = metrics.character_errors("རྒྱ", "རྒ")
    assert (counts.substitutions, counts.deletions, counts.insertions) == (0, 1, 0)
    assert metrics.cer("རྒྱ", "རྒ") == 1 / 3 == jiwer.cer("རྒྱ", "རྒ")


def test_cer_can_exceed_one():
    # ocr-metrics-spec.md §1.1: range [0, inf), insertions are not capped.
    assert metrics.cer("abc", "abcdefgh") == 5 / 3 == jiwer.cer("abc", "abcdefgh")


# -- empty reference policy ---------------------------------------------------------


@pytest.mark.parametrize(
    ("reference", "hypothesis", "ours", "jiwer_cer"),
    [
        ("", "", 0.0, 0),
        ("", "abc", 1.0, 3),
        ("", "a", 1.0, 1),
        # Whitespace-only references are empty after the default normalisation;
        # for jiwer they are only empty after its Strip transform.
        ("   ", "", 0.0, 0),
        ("  \n\t ", "abc", 1.0, 3),
    ],
)
def test_empty_reference_policy_differs_from_jiwer(reference, hypothesis, ours, jiwer_cer):
    # cer-review-tibetan.md §2.2 / §6: empty reference -> 0.0 if the hypothesis is
    # empty too, else 1.0. jiwer instead returns the raw insertion count. Both are
    # pinned here so a change on either side is noticed.
    assert metrics.cer(reference, hypothesis) == ours
    assert jiwer.cer(reference, hypothesis) == jiwer_cer
    results = metrics.score(reference, hypothesis)
    for name in ("cer", "wer"):
        assert results[name].value == ours, name
        assert fraction(name, results[name])[1] == 0, name
    for result in results.values():
        assert result.details["empty_reference"] is True
    # Nothing to recognise and nothing recognised is a perfect match.
    assert results["exact_match"].value == (1.0 if ours == 0.0 else 0.0)
    assert results["ned"].value == ours


def test_empty_reference_policy_for_wer_differs_from_jiwer():
    assert metrics.wer("", "two words") == 1.0
    assert jiwer.wer("", "two words") == 2
    assert metrics.wer("", "") == 0.0


@pytest.mark.slow
@pytest.mark.parametrize(
    ("reference", "normalization"),
    [
        ("\n", Normalization(whitespace="keep")),
        (". .", Normalization(remove_punctuation=True, whitespace="keep")),
    ],
)
def test_wer_with_no_reference_words_is_flagged_as_empty_reference(reference, normalization):
    # The reference has no words after normalisation, so WER falls back to the
    # empty-reference policy (1.0 with denominator 0); the flag that lets a report
    # tell such a case apart from a wrong page should say so.
    result = metrics.score(reference, "word", ["wer"], normalization)["wer"]
    assert (result.value, fraction("wer", result)[1]) == (1.0, 0)
    assert result.details["empty_reference"] is True


@pytest.mark.parametrize(("reference", "hypothesis"), [("abc", ""), ("two words", "")])
def test_empty_hypothesis_is_all_deletions(reference, hypothesis):
    # cer-review-tibetan.md §6: "Inference is empty" -> len(ref)/len(ref) = 1.0.
    assert metrics.cer(reference, hypothesis) == 1.0 == jiwer.cer(reference, hypothesis)
    assert metrics.wer(reference, hypothesis) == 1.0 == jiwer.wer(reference, hypothesis)
    assert metrics.score(reference, hypothesis)["cer"].details["empty_reference"] is False


@pytest.mark.parametrize(
    ("numerator", "denominator", "expected"),
    [(0, 0, 0.0), (3, 0, 1.0), (0.5, 0, 1.0), (0, 10, 0.0), (3, 12, 0.25), (30, 12, 2.5)],
)
def test_ratio_follows_the_empty_reference_policy(numerator, denominator, expected):
    assert metrics.ratio(numerator, denominator) == expected


def test_pooled_is_the_micro_average_jiwer_computes_over_many_pages():
    # jiwer given lists of sentences pools S+D+I and reference lengths across them:
    # the independent definition of the micro average.
    pages = PAIRS[:40]
    refs, hyps = [r for r, _ in pages], [h for _, h in pages]
    for name, rate in (("cer", jiwer.cer), ("wer", jiwer.wer)):
        results = [metrics.score(r, h, [name])[name] for r, h in pages]
        summed = {key: sum(r.counts[key] for r in results) for key in results[0].counts}
        pooled = metrics.pooled(name, summed)
        assert pooled == pytest.approx(rate(refs, hyps), rel=1e-12), name


# -- ned and exact match ------------------------------------------------------------


@pytest.mark.parametrize(
    ("reference", "hypothesis", "expected"),
    [
        ("", "", 0.0),
        ("abc", "", 1.0),
        ("", "abc", 1.0),
        ("abc", "abd", 1 / 3),
        ("ab", "abcd", 2 / 4),  # divides by the longer text (CER here would be 1.0)
        ("kitten", "sitting", 3 / 7),  # the textbook Levenshtein example: 3 edits
        ("abc", "xyz", 1.0),
    ],
)
def test_ned_is_distance_over_the_longer_length(reference, hypothesis, expected):
    assert metrics.ned(reference, hypothesis) == expected
    assert metrics.score(reference, hypothesis, ["ned"])["ned"].value == expected


@pytest.mark.parametrize(
    ("reference", "hypothesis", "normalization", "expected"),
    [
        ("same", "same", metrics.DEFAULT, 1.0),
        ("same", "Same", metrics.DEFAULT, 0.0),
        ("same", "Same", Normalization(casefold=True), 1.0),
        ("  a   b\n", "a b", metrics.DEFAULT, 1.0),
        ("  a   b\n", "a b", metrics.RAW, 0.0),
        ("caf\u00e9", "cafe\u0301", metrics.DEFAULT, 1.0),
        ("caf\u00e9", "cafe\u0301", metrics.RAW, 0.0),
        ("Hello, world!", "Hello world", Normalization(remove_punctuation=True), 1.0),
    ],
)
def test_exact_match_after_normalisation(reference, hypothesis, normalization, expected):
    assert metrics.exact_match(reference, hypothesis, normalize=normalization) == expected
    assert metrics.score(reference, hypothesis, ["exact_match"], normalization)["exact_match"].value == expected


# -- score() ------------------------------------------------------------------------


def test_score_returns_the_requested_metrics_only_in_order():
    results = metrics.score("a b", "a c", ["wer", "cer"])
    assert list(results) == ["wer", "cer"]
    assert all(isinstance(r, metrics.MetricResult) for r in results.values())
    assert list(metrics.score("a", "a")) == list(metrics.DEFAULT_METRICS)


def test_score_rejects_unknown_metrics_by_name():
    with pytest.raises(KeyError, match="bleu"):
        metrics.score("a", "b", ["cer", "bleu"])


def test_score_records_normalisation_and_units():
    results = metrics.score("a", "b", normalize=Normalization(unicode="NFKC", casefold=True))
    for result in results.values():
        assert result.details["normalization"] == ["NFKC", "casefold", "collapse_whitespace"]
    assert results["cer"].details["unit"] == "codepoint"
    assert results["wer"].details["unit"] == "word"


def test_score_normalises_before_counting():
    # NFD hypothesis, extra spaces: no errors once normalised; lengths are of the
    # normalised reference (7 code points, 2 words), not of the raw input.
    results = metrics.score("caf\u00e9 ok", "  cafe\u0301   ok ")
    assert (results["cer"].value, fraction("cer", results["cer"])[1]) == (0.0, 7)
    assert (results["wer"].value, fraction("wer", results["wer"])[1]) == (0.0, 2)


@pytest.mark.parametrize(
    ("name", "better"), [("cer", "lower"), ("wer", "lower"), ("ned", "lower"), ("exact_match", "higher")]
)
def test_metric_direction(name, better):
    info = metrics.METRICS[name]
    assert info.better == better
    worse, best = (0.5, 0.0) if better == "lower" else (0.0, 1.0)
    assert info.improved(worse, best) and not info.improved(best, worse) and not info.improved(best, best)


# -- the library's vocabulary (issue 14, point 5) -------------------------------------


def test_confusions_of_two_strings_count_in_the_normalisations_unit():
    assert metrics.confusions("INVOICE", "INV0ICE") == Counter({("O", "0"): 1})
    assert metrics.confusions("n\u0303 x", "ñ  x") == Counter()  # NFC and whitespace, as cer counts them
    assert metrics.confusions("n\u0303", "ñ", metrics.RAW) == Counter({("n", "ñ"): 1, ("\u0303", "<DELETE>"): 1})
    # in grapheme clusters: "ñ" and "m̃" are one cluster each, one substitution
    assert metrics.confusions("Schlyñ", "Schlym\u0303", metrics.profile("ocrd")) == Counter({("ñ", "m\u0303"): 1})
    assert metrics.confusions(["total", "9.00"], ["total", "9.0O"]) == Counter({("9.00", "9.0O"): 1})  # units given


def test_score_takes_normalize_like_every_function_and_the_old_keyword_warns():
    ocrd = metrics.profile("ocrd")
    expected = metrics.cer("Schlyñ", "Schlym\u0303", normalize=ocrd)
    assert metrics.score("Schlyñ", "Schlym\u0303", ["cer"], normalize=ocrd)["cer"].value == expected == 1 / 6
    with pytest.warns(DeprecationWarning, match=r"score\(normalization=\.\.\.\) is now score\(normalize=\.\.\.\)"):
        old = metrics.score("Schlyñ", "Schlym\u0303", ["cer"], normalization=ocrd)
    assert old["cer"].value == expected
    assert list(metrics.score("a", "b", "cer")) == ["cer"]  # one name as a string is one metric
