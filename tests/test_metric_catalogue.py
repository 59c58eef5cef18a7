"""Behaviour of the whole metric catalogue (``metrics.METRICS``), cross-checked.

Expected values come from independent code written here (``collections.Counter``
arithmetic, a brute-force LCS, a small Levenshtein DP, uniseg's grapheme
clusters), from jiwer 4 on inputs where jiwer and pytest_ocr see the same words,
or from hand counts in comments. None is derived by running pytest_ocr.

Like-for-like with jiwer: the generated texts are words of non-whitespace
"letters" (Latin, Cyrillic, Arabic, CJK, Devanagari, Tibetan, precomposed and
decomposed accents) joined by single spaces, and jiwer gets them NFC-normalised
by ``unicodedata`` since our default profile is NFC. jiwer splits on spaces, we
on whitespace runs: the same words for such texts.
"""

from __future__ import annotations

import itertools
import json
import math
import unicodedata
from collections import Counter

import jiwer
import pytest
from conftest import levenshtein
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from uniseg.graphemecluster import grapheme_clusters as uniseg_clusters

from pytest_ocr import metrics
from pytest_ocr.metrics import METRICS, Normalization, pooled, profile, score
from pytest_ocr.metrics.registry import TABLE_METRICS

PROPERTY = settings(
    max_examples=200,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
FEWER = settings(PROPERTY, max_examples=100)

# The text metrics: the others need fields, a schema or a task (tests/test_*_metrics.py).
TEXT = {name: m for name, m in METRICS.items() if m.needs == "text"}
ALL = list(TEXT)
# Those that score a page's text as a whole; the table metrics score its tables alone, and a
# page without tables on either side has nothing to get wrong (tests/test_teds.py has their cases).
WHOLE_PAGE = [name for name in ALL if name not in TABLE_METRICS]
LOWER = [name for name, m in TEXT.items() if m.better == "lower"]
HIGHER = [name for name, m in TEXT.items() if m.better == "higher"]
PROFILES = ["default", "none", "ocrd", "tibetan", "historic"]

# One "letter" may be several code points (a base and its combining marks).
LETTERS = [
    "a", "b", "c", "x", "Z", "7",
    "é", "e\u0301", "ö", "o\u0308\u0323", "n\u0303",  # precomposed and decomposed
    "ж", "Щ", "ع", "ب", "中", "文", "क", "ि", "क्ष",
    "ག", "ཀྲ", "ས", "\u0f0b",  # Tibetan letter, stack, letter, tsheg
]  # fmt: skip


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def value(name, reference, hypothesis, **options):
    return score(reference, hypothesis, [name], **options)[name].value


def result(name, reference, hypothesis, **options):
    return score(reference, hypothesis, [name], **options)[name]


words = st.lists(st.sampled_from(LETTERS), min_size=1, max_size=3).map("".join)


@st.composite
def word_lists(draw, max_words=8):
    """Two word lists over a small shared vocabulary, so that hits, substitutions,
    insertions and deletions all occur."""
    vocabulary = draw(st.lists(words, min_size=1, max_size=5))
    ref = draw(st.lists(st.sampled_from(vocabulary), max_size=max_words))
    hyp = draw(st.lists(st.sampled_from(vocabulary), max_size=max_words))
    return ref, hyp


@st.composite
def text_pairs(draw, max_words=8):
    ref, hyp = draw(word_lists(max_words))
    return " ".join(ref), " ".join(hyp)


def our_word_counts(details) -> tuple:
    return details["hits"], details["substitutions"], details["deletions"], details["insertions"]


# -- word measures against jiwer -------------------------------------------------------


@pytest.mark.slow
@PROPERTY
@given(pair=text_pairs())
def test_word_counts_and_mer_wil_wip_equal_jiwer(pair):
    reference, hypothesis = pair
    results = score(reference, hypothesis, ["wer", "mer", "wil", "wip"])
    out = jiwer.process_words(nfc(reference), nfc(hypothesis))
    assert our_word_counts(results["wer"].details) == (out.hits, out.substitutions, out.deletions, out.insertions)
    assert results["mer"].value == pytest.approx(out.mer)
    assert results["wil"].value == pytest.approx(out.wil)
    assert results["wip"].value == pytest.approx(out.wip)
    if out.hits + out.substitutions + out.deletions:
        assert results["wer"].value == pytest.approx(out.wer)
    else:  # empty reference: jiwer gives the insertion count, we 0.0 or 1.0 (policy)
        assert out.wer == out.insertions
        assert results["wer"].value == (1.0 if out.insertions else 0.0)


@pytest.mark.slow
@PROPERTY
@given(pages=st.lists(text_pairs(max_words=6), min_size=1, max_size=5))
def test_micro_average_equals_jiwer_list_input(pages):
    references = [nfc(r) for r, _ in pages]
    hypotheses = [nfc(h) for _, h in pages]
    totals = {name: Counter() for name in ("wer", "mer", "wil", "wip", "cer")}
    for reference, hypothesis in pages:
        for name, r in score(reference, hypothesis, list(totals)).items():
            totals[name].update(r.counts)
    micro = {name: pooled(name, dict(counts)) for name, counts in totals.items()}

    words_out = jiwer.process_words(references, hypotheses)
    chars_out = jiwer.process_characters(references, hypotheses)
    assert micro["mer"] == pytest.approx(words_out.mer)
    assert micro["wil"] == pytest.approx(words_out.wil)
    assert micro["wip"] == pytest.approx(words_out.wip)
    reference_words = words_out.hits + words_out.substitutions + words_out.deletions
    if reference_words:
        assert micro["wer"] == pytest.approx(words_out.wer)
    else:
        assert micro["wer"] == (1.0 if words_out.insertions else 0.0)
    reference_chars = chars_out.hits + chars_out.substitutions + chars_out.deletions
    if reference_chars:
        assert micro["cer"] == pytest.approx(chars_out.cer)
    else:
        assert micro["cer"] == (1.0 if chars_out.insertions else 0.0)


# -- bags, subsequences, n-grams against code written here ----------------------------


@pytest.mark.slow
@PROPERTY
@given(lists=word_lists())
def test_token_precision_recall_f1_are_multiset_arithmetic(lists):
    ref, hyp = lists
    shared = sum((Counter(ref) & Counter(hyp)).values())
    precision = shared / len(hyp) if hyp else (1.0 if not ref else 0.0)
    recall = shared / len(ref) if ref else (1.0 if not hyp else 0.0)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    results = score(" ".join(ref), " ".join(hyp), ["token_precision", "token_recall", "token_f1"])
    assert results["token_precision"].value == pytest.approx(precision)
    assert results["token_recall"].value == pytest.approx(recall)
    assert results["token_f1"].value == pytest.approx(f1)
    assert results["token_f1"].counts["matched"] == shared


def test_token_metrics_count_repeats():
    # "a a a b" vs "a b b": shared multiset {a, b} = 2; precision 2/3, recall 2/4, F1 4/7.
    results = score("a a a b", "a b b", ["token_precision", "token_recall", "token_f1"])
    assert results["token_precision"].value == pytest.approx(2 / 3)
    assert results["token_recall"].value == pytest.approx(2 / 4)
    assert results["token_f1"].value == pytest.approx(4 / 7)


def brute_force_lcs(a: list, b: list) -> int:
    """Longest common subsequence by trying every subsequence of a, longest first."""

    def is_subsequence(seq, of):
        it = iter(of)
        return all(x in it for x in seq)

    for k in range(len(a), 0, -1):
        if any(is_subsequence(combo, b) for combo in itertools.combinations(a, k)):
            return k
    return 0


@pytest.mark.slow
@PROPERTY
@given(lists=word_lists(max_words=6))
def test_lcs_ratio_equals_brute_force(lists):
    ref, hyp = lists
    ref, hyp = [nfc(w) for w in ref], [nfc(w) for w in hyp]
    r = result("lcs_ratio", " ".join(ref), " ".join(hyp))
    lcs = brute_force_lcs(ref, hyp)
    assert r.counts["matches"] == lcs
    expected = lcs / len(ref) if ref else (1.0 if not hyp else 0.0)
    assert r.value == pytest.approx(expected)


@pytest.mark.slow
@PROPERTY
@given(lists=word_lists(), n=st.sampled_from([2, 3]))
def test_ngram_overlap_equals_counter_of_windows(lists, n):
    ref, hyp = lists
    ref, hyp = [nfc(w) for w in ref], [nfc(w) for w in hyp]

    def windows(words):
        # a non-empty text shorter than n words is one n-gram of all its words
        if 0 < len(words) < n:
            return Counter([tuple(words)])
        return Counter(tuple(words[i : i + n]) for i in range(len(words) - n + 1))

    ref_ngrams, hyp_ngrams = windows(ref), windows(hyp)
    shared = sum((ref_ngrams & hyp_ngrams).values())
    r = result("bigram_overlap" if n == 2 else "trigram_overlap", " ".join(ref), " ".join(hyp))
    assert r.counts == {
        "matches": shared,
        "reference_ngrams": sum(ref_ngrams.values()),
        "hypothesis_ngrams": sum(hyp_ngrams.values()),
    }
    if ref_ngrams:
        assert r.value == pytest.approx(shared / sum(ref_ngrams.values()))


def test_ngram_overlap_by_hand_with_repeats():
    # "a b a b a": bigrams ab, ba, ab, ba (4); trigrams aba, bab, aba (3).
    # "a b a": bigrams ab, ba; trigram aba. Shared bigrams 2 -> 2/4; shared trigrams 1 -> 1/3.
    assert value("bigram_overlap", "a b a b a", "a b a") == pytest.approx(2 / 4)
    assert value("trigram_overlap", "a b a b a", "a b a") == pytest.approx(1 / 3)
    # The other way round the reference "a b a" has bigrams ab, ba and trigram aba, all of them
    # in "a b a b a": 2 of 2 and 1 of 1.
    assert value("bigram_overlap", "a b a", "a b a b a") == 1.0
    assert value("trigram_overlap", "a b a", "a b a b a") == 1.0


@pytest.mark.slow
@PROPERTY
@given(lists=word_lists())
def test_sequence_accuracy_and_token_exact_match_rate_count_positions(lists):
    ref, hyp = lists
    ref, hyp = [nfc(w) for w in ref], [nfc(w) for w in hyp]
    same = sum(r == h for r, h in zip(ref, hyp, strict=False))
    results = score(" ".join(ref), " ".join(hyp), ["sequence_accuracy", "token_exact_match_rate"])
    longer = max(len(ref), len(hyp))
    assert results["token_exact_match_rate"].value == pytest.approx(same / longer if longer else 1.0)
    if ref:
        assert results["sequence_accuracy"].value == pytest.approx(same / len(ref))


@pytest.mark.slow
@PROPERTY
@given(lists=word_lists())
def test_bow_error_is_ocrevaluation_formula(lists):
    ref, hyp = lists
    ref, hyp = [nfc(w) for w in ref], [nfc(w) for w in hyp]
    a, b = Counter(ref), Counter(hyp)
    differences = abs(len(ref) - len(hyp)) + sum(abs(a[w] - b[w]) for w in set(a) | set(b))
    r = result("bow_error", " ".join(ref), " ".join(hyp))
    assert r.counts == {"differences": differences, "denominator": 2 * len(ref)}
    if ref:
        assert r.value == pytest.approx(differences / (2 * len(ref)))


# -- characters: graphemes, denominators, confusions ----------------------------------

CLUSTERS = [
    "a", "b", "é", "e\u0301", "n\u0303\u0323", "ö", " ",
    "ག", "ཀྲ", "\u0f0b", "བསྒྲུ",  # Tibetan letter, stack, tsheg, a stacked syllable part
    "क्ष", "कि",  # Devanagari conjunct, consonant + vowel sign
    "\U0001f1e9\U0001f1ea",  # regional indicator pair (a flag)
    "\U0001f469\u200d\U0001f4bb",  # ZWJ emoji sequence
    "\u1100\u1161\u11a8", "각",  # Hangul jamo (NFC composes them) and the precomposed syllable
]  # fmt: skip
cluster_texts = st.lists(st.sampled_from(CLUSTERS), max_size=10).map("".join)


def default_form(text: str) -> str:
    """What the default profile does, written independently: NFC, whitespace collapsed."""
    return " ".join(nfc(text).split())


@pytest.mark.slow
@PROPERTY
@given(reference=cluster_texts, hypothesis=cluster_texts)
def test_grapheme_unit_counts_extended_grapheme_clusters(reference, hypothesis):
    ref_clusters = list(uniseg_clusters(default_form(reference)))  # an independent UAX #29 splitter
    hyp_clusters = list(uniseg_clusters(default_form(hypothesis)))
    r = result("cer", reference, hypothesis, normalize=Normalization(unit="grapheme"))
    assert r.details["unit"] == "grapheme"
    assert r.details["reference_length"] == len(ref_clusters)
    assert r.details["hypothesis_length"] == len(hyp_clusters)
    assert r.counts["errors"] == levenshtein(ref_clusters, hyp_clusters)
    # and in code points
    c = result("cer", reference, hypothesis)
    assert c.details["reference_length"] == len(default_form(reference))
    assert c.counts["errors"] == levenshtein(list(default_form(reference)), list(default_form(hypothesis)))


def test_grapheme_unit_by_hand():
    # "ཀྲི" is ཀ + ྲ + ི: 3 code points, 1 cluster; the flag is 2 code points, 1 cluster.
    r = result("cer", "ཀྲི\U0001f1e9\U0001f1ea", "", normalize=profile("ocrd"))
    assert r.details["reference_length"] == 2
    assert result("cer", "ཀྲི\U0001f1e9\U0001f1ea", "").details["reference_length"] == 5


@pytest.mark.parametrize(
    "reference, hypothesis, ref, longer, path",
    [
        # 2 insertions (x, y), 2 hits: ref 2/2, max 2/4, path (i+s+d)/(i+s+d+c) = 2/4
        ("ab", "xaby", 1.0, 2 / 4, 2 / 4),
        # a deleted, e inserted, bcd hit (2 substitutions... would cost 4): 2/4, 2/4, 2/5
        ("abcd", "bcde", 2 / 4, 2 / 4, 2 / 5),
        # a deleted, e x y inserted, bcd hit: 4/4, 4/6, 4/7
        ("abcd", "bcdexy", 4 / 4, 4 / 6, 4 / 7),
        # 3 substitutions: 3/3 everywhere
        ("abc", "xyz", 1.0, 1.0, 1.0),
        # 2 deletions, 2 hits: 2/4, 2/4, 2/4
        ("abcd", "ab", 2 / 4, 2 / 4, 2 / 4),
        # empty reference: the policy, whatever the denominator
        ("", "abc", 1.0, 1.0, 1.0),
        ("", "", 0.0, 0.0, 0.0),
    ],
)
def test_cer_denominators_by_hand(reference, hypothesis, ref, longer, path):
    for denominator, expected in (("ref", ref), ("max", longer), ("path", path)):
        assert value("cer", reference, hypothesis, cer_denominator=denominator) == pytest.approx(expected)


def test_cer_denominator_is_validated():
    with pytest.raises(ValueError, match="cer_denominator"):
        score("a", "b", ["cer"], cer_denominator="hyp")


@PROPERTY
@given(
    reference=st.text(alphabet="abcd ", max_size=12),
    hypothesis=st.text(alphabet="abcd ", max_size=12),
    unit=st.sampled_from(["codepoint", "grapheme"]),
)
def test_confusions_account_for_every_error(reference, hypothesis, unit):
    normalization = Normalization(unit=unit)
    r = result("cer", reference, hypothesis, normalize=normalization)
    d = r.details
    table = d["confusions"]
    for entry in table:
        assert isinstance(entry, list) and len(entry) == 3
        ref_unit, hyp_unit, count = entry
        assert isinstance(count, int) and count > 0
        assert not (ref_unit == "<INSERT>" and hyp_unit == "<DELETE>")
        assert ref_unit != hyp_unit  # hits are not confusions
    assert sum(n for _, _, n in table) == d["substitutions"] + d["deletions"] + d["insertions"] == r.counts["errors"]
    assert sum(n for _, h, n in table if h == "<DELETE>") == d["deletions"]
    assert sum(n for r_, _, n in table if r_ == "<INSERT>") == d["insertions"]
    # Balance: hits pair a unit with itself, so for every unit u,
    # (times u is in the reference) - (times in the hypothesis)
    #   = (times u is a confused reference unit) - (times u is a confused hypothesis unit).
    ref_units = Counter(default_form(reference))
    hyp_units = Counter(default_form(hypothesis))
    as_ref = Counter()
    as_hyp = Counter()
    for r_, h, n in table:
        as_ref[r_] += n
        as_hyp[h] += n
    for u in set(ref_units) | set(hyp_units):
        assert ref_units[u] - hyp_units[u] == as_ref[u] - as_hyp[u]
    # most frequent first
    assert [n for _, _, n in table] == sorted((n for _, _, n in table), reverse=True)


def test_confusions_by_hand():
    # "cat" -> "cut!": a->u substituted, "!" inserted. "dog" -> "dg": o deleted.
    assert result("cer", "cat", "cut!").details["confusions"] == [["<INSERT>", "!", 1], ["a", "u", 1]]
    assert result("cer", "dog", "dg").details["confusions"] == [["o", "<DELETE>", 1]]
    # grapheme units are whole clusters: "Schlyñ" -> "Schlym̃" is one ñ -> m̃ confusion
    confusions = result("cer", "Schlyñ", "Schlym\u0303", normalize=profile("ocrd")).details["confusions"]
    assert confusions == [["ñ", "m\u0303", 1]]


# -- profiles ---------------------------------------------------------------------------

TSHEG, SHAD, ZWSP = "\u0f0b", "\u0f0d", "\u200b"
CONSONANTS = ["ཀ", "ཁ", "ག", "ང", "བ", "ས", "ར", "ལ"]
SUBJOINED = ["", "ྱ", "ྲ"]
VOWELS = ["", "ི", "ུ", "ེ", "ོ"]
syllables = st.tuples(st.sampled_from(CONSONANTS), st.sampled_from(SUBJOINED), st.sampled_from(VOWELS)).map("".join)


@st.composite
def tibetan_variants(draw):
    """A Tibetan line and a variant differing only in what §7.3 of cer-review-tibetan.md
    normalises: zero-width spaces, repeated tshegs, a tsheg before the shad."""
    parts = draw(st.lists(syllables, min_size=1, max_size=6))
    original = TSHEG.join(parts) + SHAD
    variant = ""
    for i, part in enumerate(parts):
        variant += part
        if draw(st.booleans()):
            variant += ZWSP
        if i < len(parts) - 1:
            variant += TSHEG * draw(st.integers(1, 3))
    variant += TSHEG * draw(st.integers(0, 2)) + SHAD
    return original, variant


@pytest.mark.slow
@PROPERTY
@given(pair=tibetan_variants())
def test_tibetan_profile_removes_what_7_3_lists(pair):
    original, variant = pair
    assume(original != variant)
    tibetan = profile("tibetan")
    assert tibetan(variant) == tibetan(original) == nfc(original)
    assert value("cer", original, variant, normalize=tibetan) == 0.0
    assert value("cer", original, variant) > 0.0  # the default profile counts them


@pytest.mark.parametrize(
    "text, expected",
    [
        ("ཀ་་ཁ", "ཀ་ཁ"),  # repeated tsheg
        ("ཀ་་་ཁ", "ཀ་ཁ"),
        ("ཀ་།", "ཀ།"),  # tsheg before shad
        ("ཀ་་།", "ཀ།"),  # both
        ("ཀ\u200b་ཁ", "ཀ་ཁ"),  # zero-width space
        ("ཀ་\u200b་ཁ", "ཀ་ཁ"),  # zero-width space between tshegs, then collapsed
        ("ཀ་ཁ།", "ཀ་ཁ།"),  # already clean
    ],
)
def test_tibetan_profile_examples(text, expected):
    assert profile("tibetan")(text) == expected


@pytest.mark.parametrize(
    "reference, hypothesis, default_cer",
    [
        # ſ -> s twice; by default 2 substitutions over 5 characters
        ("Maſſe", "Masse", 2 / 5),
        # ligature ﬁ -> fi; by default ﬁ->f substituted and i inserted: 2 over 5 (NFC keeps ﬁ)
        ("ﬁnden", "finden", 2 / 5),
        # u + combining small e (U+0364) -> ü; by default u->ü substituted, U+0364 deleted: 2 of 7
        ("Mu\u0364ller", "Müller", 2 / 7),
        # r rotunda -> r
        ("Heꝛr", "Herr", 1 / 4),
    ],
)
def test_historic_profile(reference, hypothesis, default_cer):
    assert value("cer", reference, hypothesis, normalize=profile("historic")) == 0.0
    assert value("cer", reference, hypothesis) == pytest.approx(default_cer)


def test_historic_profile_unjoins_in_grapheme_units_too():
    historic_graphemes = profile("historic", unit="grapheme")
    assert historic_graphemes("Mu\u0364ller") == "Müller"
    assert value("cer", "Mu\u0364ller", "Müller", normalize=historic_graphemes) == 0.0
    # In clusters "uͤ" is one unit against "ü": 1 substitution over 6 clusters by default.
    assert value("cer", "Mu\u0364ller", "Müller", normalize=Normalization(unit="grapheme")) == pytest.approx(1 / 6)


@pytest.mark.parametrize(
    "equivalences",
    [{"ſ": "s", "ſſ": "ß"}, {"ſſ": "ß", "ſ": "s"}],  # the order of the keys does not matter
)
def test_equivalences_longest_key_wins(equivalences):
    normalization = Normalization(equivalences=equivalences)
    assert normalization("Maſſe") == "Maße"  # not "Masse": "ſſ" wins over "ſ"
    assert normalization("Maſſſe") == "Maßse"  # leftmost match first, then the longest key there
    assert normalization("Haſe") == "Hase"
    assert value("cer", "Maſſe", "Maße", normalize=normalization) == 0.0
    assert value("cer", "Maſſe", "Maße") == pytest.approx(2 / 5)  # ſ->ß, ſ deleted


def test_equivalences_from_a_case_file_mapping():
    normalization = Normalization.from_dict({"profile": "ocrd", "equivalences": {"ꝛ": "r", "ﬅ": "st"}})
    assert normalization.unit == "grapheme"
    assert normalization("Heꝛr ﬅ") == "Herr st"


@pytest.mark.parametrize(
    "normalization",
    [
        Normalization(equivalences={"u\u0308": "ue"}),  # NFD key, default NFC text
        Normalization(unicode="NFD", equivalences={"\u00fc": "ue"}),  # NFC key, NFD text
    ],
)
def test_equivalence_keys_match_canonically_equivalent_text(normalization):
    assert normalization("M\u00fcller") == "Mueller"


# -- every metric -------------------------------------------------------------------------

EDGE_PAIRS = [("", ""), ("", "x"), ("x", ""), ("", "x y z"), ("x y z", ""), ("  \n ", "\n"), ("\n\n", "a\nb")]


@pytest.mark.parametrize("profile_name", PROFILES)
@pytest.mark.parametrize("denominator", metrics.CER_DENOMINATORS)
@pytest.mark.parametrize("reference, hypothesis", EDGE_PAIRS)
def test_every_metric_is_json_finite_on_empty_inputs(reference, hypothesis, profile_name, denominator):
    results = score(reference, hypothesis, ALL, normalize=profile(profile_name), cer_denominator=denominator)
    assert list(results) == ALL
    for name, r in results.items():
        assert isinstance(r.value, float) or isinstance(r.value, int), name
        assert math.isfinite(r.value), name
        assert all(math.isfinite(v) for v in r.counts.values()), name
        json.dumps({"value": r.value, "counts": r.counts, "details": r.details}, allow_nan=False)


@pytest.mark.parametrize("reference, hypothesis", [("", "x"), ("x", ""), ("", "x y z"), ("x y z", "")])
@pytest.mark.parametrize("name", WHOLE_PAGE)
def test_one_empty_side_scores_the_worst_value(name, reference, hypothesis):
    # Empty reference with a non-empty hypothesis (and the reverse): rates 1.0, scores 0.0.
    worst = 1.0 if METRICS[name].better == "lower" else 0.0
    assert value(name, reference, hypothesis) == worst


def test_ssa_and_ngrams_with_an_empty_side():
    # What works today: an empty hypothesis scores 0.0 on SSA; "" vs "x y z" has a
    # hypothesis bigram and trigram that the empty reference lacks: 0.0.
    assert value("ssa", "x", "") == 0.0
    assert value("bigram_overlap", "", "x y z") == 0.0
    assert value("trigram_overlap", "", "x y z") == 0.0


@pytest.mark.parametrize(
    "name, hypothesis", [("ssa", "x"), ("ssa", "garbage\ntext"), ("bigram_overlap", "x"), ("trigram_overlap", "x y")]
)
def test_empty_reference_with_a_hypothesis_is_not_perfect(name, hypothesis):
    r = result(name, "", hypothesis)
    assert r.details["empty_reference"] is True
    assert r.value == 0.0


PERFECT_TEXTS = [
    "",
    "a",
    "Hello world",
    "INVOICE #12345\nTOTAL: $150.00",
    "line one\n\n  indented line two\nthree",
    "ཀ་ཁ་ག།",
    "Schlym\u0303 lorem",
    "ſind ﬁnden Mu\u0364ller",
]


@pytest.mark.parametrize("profile_name", PROFILES)
@pytest.mark.parametrize("text", PERFECT_TEXTS)
def test_a_perfect_hypothesis_scores_the_best_value(text, profile_name):
    results = score(text, text, ALL, normalize=profile(profile_name))
    for name, r in results.items():
        best = 0.0 if METRICS[name].better == "lower" else 1.0
        assert r.value == best, name


@pytest.mark.parametrize("name", WHOLE_PAGE)
def test_better_direction_perfect_beats_garbage(name):
    reference = "alpha beta gamma delta\nsecond line here"
    perfect = value(name, reference, reference)
    garbage = value(name, reference, "zzz")
    assert METRICS[name].improved(garbage, perfect)
    assert not METRICS[name].improved(perfect, garbage)
    assert METRICS[name].better in ("lower", "higher")


BOUNDED = [
    "ned", "ned_similarity", "exact_match", "mer", "wip", "wil", "token_precision", "token_recall",
    "token_f1", "token_exact_match_rate", "ser", "lcs_ratio", "sequence_accuracy", "bigram_overlap",
    "trigram_overlap", "ssa",
]  # fmt: skip


@st.composite
def short_pages(draw):
    """Up to 3 short lines: small enough for fca's 768 coefficient settings."""
    lines = draw(st.lists(st.lists(words, max_size=3).map(" ".join), max_size=3))
    return "\n".join(lines)


@pytest.mark.slow
@FEWER
@given(reference=short_pages(), hypothesis=short_pages(), profile_name=st.sampled_from(PROFILES))
def test_every_value_is_its_counts_and_within_range(reference, hypothesis, profile_name):
    results = score(reference, hypothesis, ALL, normalize=profile(profile_name))
    for name, r in results.items():
        assert math.isfinite(r.value), name
        # the value is a function of the counts, so the micro average of one case is its value
        assert METRICS[name].from_counts(r.counts) == pytest.approx(r.value), name
        assert pooled(name, r.counts) == pytest.approx(r.value), name
        if name in BOUNDED:
            assert 0.0 <= r.value <= 1.0, name
        elif METRICS[name].better == "lower":
            assert r.value >= 0.0, name  # cer, wer, bow_error can exceed 1
        else:
            assert r.value <= 1.0, name  # char_accuracy and fca can go below 0
    assert results["ned_similarity"].value == pytest.approx(1 - results["ned"].value)
    assert results["wil"].value == pytest.approx(1 - results["wip"].value)
    assert results["exact_match"].value in (0.0, 1.0)
    if reference == hypothesis:
        for name, r in results.items():
            assert r.value == (0.0 if METRICS[name].better == "lower" else 1.0), name


def test_char_accuracy_is_isri_accuracy():
    # (n - errors) / n: "abcd" -> "abxd" is 3/4; "a" -> "xyz" has 3 errors for 1 character: -2.
    assert value("char_accuracy", "abcd", "abxd") == pytest.approx(3 / 4)
    assert value("char_accuracy", "a", "xyz") == pytest.approx(-2.0)


def test_ned_is_symmetric_and_bounded_where_cer_is_not():
    # "a" vs "xyz": 3 edits; cer 3/1, ned 3/3 both ways.
    assert value("cer", "a", "xyz") == pytest.approx(3.0)
    assert value("ned", "a", "xyz") == value("ned", "xyz", "a") == pytest.approx(1.0)


def test_exact_match_pools_to_the_share_of_exact_cases():
    counts = Counter()
    for ref, hyp in [("a", "a"), ("b", "c"), ("d", "d"), ("e", "E")]:
        counts.update(result("exact_match", ref, hyp).counts)
    assert pooled("exact_match", dict(counts)) == pytest.approx(2 / 4)


def test_ser_compares_lines_position_by_position():
    # Lines empty after normalisation are dropped; lines compared after each is normalised.
    r = result("ser", "one\n\ntwo  \nthree", "one\ntwo\nthree!")
    assert r.counts == {"error_lines": 1, "lines": 3}
    assert r.details["error_indices"] == [2]
    # an extra line in the hypothesis is an error at its index
    r = result("ser", "one\ntwo", "one\ntwo\nthree")
    assert r.counts == {"error_lines": 1, "lines": 3} and r.details["error_indices"] == [2]


def test_fca_ignores_line_order_where_cer_does_not():
    reference, hypothesis = "total 5.00\nfee 1.00", "fee 1.00\ntotal 5.00"
    assert value("fca", reference, hypothesis) == 1.0
    assert value("cer", reference, hypothesis) > 0.0


def test_score_rejects_unknown_names():
    with pytest.raises(KeyError, match="nope"):
        score("a", "a", ["cer", "nope"])


def test_ssa_does_not_see_inserted_letters():
    # As wer-cer-ssa.md defines it, (correct matches - whitespace penalty) / reference length:
    # an inserted non-whitespace character is neither a lost match nor a whitespace edit.
    # "a" -> "abcdef": 1 match, no penalty: 1.0. Inserted line breaks are penalised:
    # "a" -> "a\n\n\n": 1 match, penalty 3: max(0, 1 - 3) / 1 = 0.
    assert value("ssa", "a", "abcdef") == 1.0
    assert value("ssa", "a", "a\n\n\n") == 0.0


def test_texts_shorter_than_n_words_are_one_ngram():
    # "hello" has no bigram; counting it as the one "n-gram" ("hello",) makes a different
    # word a miss instead of a vacuous match, and the same word a hit.
    assert value("bigram_overlap", "hello", "world") == 0.0
    assert value("bigram_overlap", "hello", "hello") == 1.0
    assert value("trigram_overlap", "hello world", "hello world") == 1.0
    assert value("trigram_overlap", "hello world", "world hello") == 0.0


def test_user_equivalences_run_before_the_profile_rules():
    # The user's "ſſ" -> "ß" sees the text before the historic profile turns every ſ into s.
    assert profile("historic", equivalences={"ſſ": "ß"})("Maſſe") == "Maße"
