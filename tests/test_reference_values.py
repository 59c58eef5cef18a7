"""Values published by established evaluation tools and documents, reproduced.

Every expected value in this file is copied from a named source (a test suite or a
document of another project, or one of the specs in /work/shared/spec) or counted
by hand in a comment next to it. None is derived by running pytest_ocr.

Where a source deliberately follows another convention than ours (jiwer's and
dinglehopper's empty reference, dinglehopper's Unicode word segmentation), the
test pins our value *and* states the source's, so the difference stays visible.
Where a spec prints a value that is arithmetically wrong for its own inputs, the
test pins the correct value (counted in a comment) and asserts that the printed
value is not what we return.

Multi-sentence values of jiwer and torchmetrics are corpus-level: errors and
lengths are summed over the sentences before dividing. That is our micro average,
``metrics.pooled(name, summed counts)``, computed by ``micro()`` below.
"""

from __future__ import annotations

import math
import shutil
import unicodedata
from collections import Counter
from pathlib import Path

import pytest
from conftest import levenshtein

from pytest_ocr import metrics
from pytest_ocr.cases.datasets import load as load_dataset
from pytest_ocr.files import decode_text
from pytest_ocr.metrics import Normalization, pooled, profile, score

RAW = metrics.RAW
OCRD = profile("ocrd")  # NFC, dinglehopper's equivalences, lines trimmed, grapheme clusters


def result(name, reference, hypothesis, **options):
    return score(reference, hypothesis, [name], **options)[name]


def value(name, reference, hypothesis, **options):
    return result(name, reference, hypothesis, **options).value


def micro(name, references, hypotheses, **options):
    """Our micro average over the pairs: the metric of the summed counts."""
    assert len(references) == len(hypotheses)
    total: Counter = Counter()
    for reference, hypothesis in zip(references, hypotheses, strict=True):
        total.update(result(name, reference, hypothesis, **options).counts)
    return pooled(name, dict(total))


def summed_details(name, references, hypotheses, keys, **options):
    total: Counter = Counter()
    for reference, hypothesis in zip(references, hypotheses, strict=True):
        details = result(name, reference, hypothesis, **options).details
        total.update({k: details[k] for k in keys})
    return dict(total)


def word_measures(reference, hypothesis):
    return {name: value(name, reference, hypothesis) for name in ("wer", "mer", "wil", "wip")}


def all_m(wer, mer, wil):
    """jitsi/jiwer tests/test_measures.py's helper: wip is 1 - wil."""
    return {"wer": wer, "mer": mer, "wil": wil, "wip": 1 - wil}


# =====================================================================================
# jiwer (jitsi/jiwer)
# =====================================================================================


# jitsi/jiwer tests/test_measures.py, TestMeasuresDefaultTransform.test_input_gt_string_h_string
# (and the _h_list/_list_h/_list_list variants, same values)
@pytest.mark.parametrize(
    "reference, hypothesis, expected",
    [
        ("This is a test", "This is a test", all_m(0, 0, 0)),
        ("This is a test", "", all_m(1, 1, 1)),
        ("This is a test", "This test", all_m(0.5, 0.5, 0.5)),
    ],
)
def test_jiwer_measures_input_methods(reference, hypothesis, expected):
    assert word_measures(reference, hypothesis) == pytest.approx(expected)


# jitsi/jiwer tests/test_measures.py, test_known_values: "Taken from the 'From WER and
# RIL to MER and WIL' paper" (Morris, Maier, Green 2004).
@pytest.mark.parametrize(
    "reference, hypothesis, expected",
    [
        ("X", "X", all_m(0, 0, 0)),
        ("X", "X X Y Y", all_m(3, 0.75, 0.75)),
        ("X Y X", "X Z", all_m(2 / 3, 2 / 3, 5 / 6)),
        ("X", "Y", all_m(1, 1, 1)),
        ("X", "Y Z", all_m(2, 1, 1)),
    ],
)
def test_jiwer_known_values_from_morris_et_al(reference, hypothesis, expected):
    assert word_measures(reference, hypothesis) == pytest.approx(expected)


# jitsi/jiwer tests/test_measures.py, test_different_sentence_length_equal_type
def test_jiwer_short_reference_long_hypothesis():
    measures = word_measures(
        "i am a short ground truth", "i am a considerably longer and very much incorrect hypothesis"
    )
    assert measures == pytest.approx(all_m(7 / 6, 0.7, 0.85))


# jitsi/jiwer tests/test_measures.py, TestMeasuresContiguousSentencesTransform:
# ["hello", "this", "sentence", "is fractured"] vs ["this sentence"] -> 0.6 with the
# contiguous transform, which joins the sentences with spaces first. As one text:
def test_jiwer_contiguous_sentences():
    measures = word_measures("hello this sentence is fractured", "this sentence")
    assert measures == pytest.approx(all_m(0.6, 0.6, 0.6))


# jitsi/jiwer tests/test_measures.py, TestMeasuresDefaultTransform.test_permutations_invariance:
# list input, pooled over the sentence pairs.
@pytest.mark.parametrize(
    "references, hypotheses",
    [
        (["i", "am i good"], ["i am", "i good"]),
        (["am i good", "i"], ["i good", "i am"]),
    ],
)
def test_jiwer_permutations_pooled(references, hypotheses):
    ours = {name: micro(name, references, hypotheses) for name in ("wer", "mer", "wil", "wip")}
    assert ours == pytest.approx(all_m(0.5, 0.4, 7 / 16))


# jitsi/jiwer tests/test_cer.py, test_input_ref_string_hyp_string
@pytest.mark.parametrize(
    "reference, hypothesis, expected",
    [
        ("This is a test", "This is a test", 0 / 14),
        ("This is a test", "", 14 / 14),
        ("This is a test", "This test", 5 / 14),
    ],
)
def test_jiwer_cer_input_methods(reference, hypothesis, expected):
    assert value("cer", reference, hypothesis) == pytest.approx(expected)


# jitsi/jiwer tests/test_cer.py, test_known_values (the Morris et al. pairs, in characters;
# spaces count, so "X X Y Y" is 7 characters against 1)
@pytest.mark.parametrize(
    "reference, hypothesis, expected",
    [("X", "X", 0), ("X", "X X Y Y", 6), ("X Y X", "X Z", 3 / 5), ("X", "Y", 1), ("X", "Y Z", 3)],
)
def test_jiwer_cer_known_values(reference, hypothesis, expected):
    assert value("cer", reference, hypothesis) == pytest.approx(expected)


# jitsi/jiwer tests/test_cer.py, test_permutations_invariance (pooled over the pairs)
@pytest.mark.parametrize(
    "references, hypotheses",
    [(["i", "am i good"], ["i am", "i good"]), (["am i good", "i"], ["i good", "i am"])],
)
def test_jiwer_cer_permutations_pooled(references, hypotheses):
    assert micro("cer", references, hypotheses) == pytest.approx(0.6)


# jitsi/jiwer tests/test_cer.py, test_return_dict: cer 0.7, hits 6, S 1, D 3, I 3
def test_jiwer_cer_return_dict_counts():
    references, hypotheses = ["i", "am i good"], ["i am", "y good"]
    assert micro("cer", references, hypotheses) == pytest.approx(0.7)
    keys = ("hits", "substitutions", "deletions", "insertions")
    assert summed_details("cer", references, hypotheses, keys) == {
        "hits": 6,
        "substitutions": 1,
        "deletions": 3,
        "insertions": 3,
    }


# jitsi/jiwer tests/test_empty_ref.py, test_empty_ref_empty_hyp: wer 0, mer 0, wip 1, wil 0
@pytest.mark.parametrize("pages", range(0, 10))
def test_jiwer_empty_reference_and_hypothesis(pages):
    if pages == 0:
        assert word_measures("", "") == all_m(0, 0, 0)
    else:
        ours = {name: micro(name, [""] * pages, [""] * pages) for name in ("wer", "mer", "wil", "wip")}
        assert ours == all_m(0, 0, 0)


# jitsi/jiwer tests/test_empty_ref.py, test_empty_ref: insertions 1, wer 1, mer 1, wip 0, wil 1
def test_jiwer_empty_reference_one_word():
    assert word_measures("", "hello") == all_m(1, 1, 1)
    assert result("wer", "", "hello").details["insertions"] == 1


# jitsi/jiwer tests/test_empty_ref.py, test_empty_ref_more: for i in 2..10 words against
# an empty reference jiwer's WER is i (the insertion count); mer 1, wip 0, wil 1.
# Ours by default scores an empty reference 1.0 whatever the number of inserted words
# (pytest_ocr/metrics/edit.py, "Empty reference policy"); empty_reference_value="errors" is jiwer's.
@pytest.mark.parametrize("i", range(2, 11))
def test_jiwer_empty_reference_more_words(i):
    hypothesis = " ".join(str(j) for j in range(i))
    jiwer_wer = i
    measures = word_measures("", hypothesis)
    assert measures == {"wer": 1.0, "mer": 1.0, "wil": 1.0, "wip": 0.0}
    assert measures["wer"] != jiwer_wer
    details = result("wer", "", hypothesis).details
    assert details["insertions"] == i and details["empty_reference"] is True
    jiwers = result("wer", "", hypothesis, empty_reference_value="errors")
    assert jiwers.value == jiwer_wer and jiwers.details["empty_reference_value"] == "errors"


# jitsi/jiwer tests/test_empty_ref.py, test_empty_hyp: deletions 1, wer 1, mer 1, wip 0, wil 1
def test_jiwer_empty_hypothesis():
    assert word_measures("hello", "") == all_m(1, 1, 1)
    assert result("wer", "hello", "").details["deletions"] == 1


# jitsi/jiwer tests/test_empty_ref.py, test_multiple_one_empty_ref: pooled
# wer 1/2, mer 1/3, wil 1/3, wip 2/3, insertions 1
def test_jiwer_multiple_sentences_one_empty_reference():
    references, hypotheses = ["hello world", ""], ["hello world", "done"]
    ours = {name: micro(name, references, hypotheses) for name in ("wer", "mer", "wil", "wip")}
    assert ours == pytest.approx({"wer": 1 / 2, "mer": 1 / 3, "wil": 1 / 3, "wip": 2 / 3})
    assert summed_details("wer", references, hypotheses, ["insertions"]) == {"insertions": 1}
    # The empty-reference page on its own follows our policy (jiwer: WER 1 = 1 insertion, same here).
    assert value("wer", "", "done") == 1.0


# jitsi/jiwer tests/test_empty_ref.py, test_one_empty_ref_and_hyp: an empty/empty pair
# added to a set of pages changes no pooled measure.
def test_jiwer_an_empty_pair_changes_no_pooled_value():
    for name in ("wer", "mer", "wil", "wip"):
        assert micro(name, ["hello world"], ["hello world"]) == micro(name, ["hello world", ""], ["hello world", ""])


# jitsi/jiwer tests/test_empty_ref.py, test_cer_empty_ref: ("", "") 0, ("", "a") 1,
# ("", "abd") 3, ("a", "") 1, ("abc", "") 1. Ours equals jiwer except for ("", "abd"):
# jiwer returns the 3 insertions, our policy 1.0; with empty_reference_value="errors", all equal.
@pytest.mark.parametrize(
    "reference, hypothesis, jiwer_cer, ours",
    [("", "", 0, 0.0), ("", "a", 1, 1.0), ("", "abd", 3, 1.0), ("a", "", 1, 1.0), ("abc", "", 1, 1.0)],
)
def test_jiwer_cer_empty_reference(reference, hypothesis, jiwer_cer, ours):
    assert value("cer", reference, hypothesis) == ours
    if reference == "" and len(hypothesis) > 1:
        assert ours != jiwer_cer
        assert result("cer", reference, hypothesis).counts["errors"] == jiwer_cer  # same error count
    else:
        assert ours == jiwer_cer
    assert value("cer", reference, hypothesis, empty_reference_value="errors") == jiwer_cer


# =====================================================================================
# dinglehopper (qurator-spk/dinglehopper)
# =====================================================================================
# dinglehopper normalises to NFC and counts extended grapheme clusters (uniseg):
# our "ocrd" profile. Its CER moved from "errors / reference length" (older
# qurator/dinglehopper/tests/test_character_error_rate.py, commit 14421c8) to
# rapidfuzz's Levenshtein.normalized_distance, i.e. errors / the longer length
# (src/dinglehopper/tests/test_character_error_rate.py, commit b488af3): our
# cer_denominator "ref" and "max" respectively.

SCHLYN = "Schlyñ"  # ends with U+00F1 LATIN SMALL LETTER N WITH TILDE: 6 code points
SCHLYM = "Schlym\u0303"  # ends with m + U+0303 COMBINING TILDE: 7 code points, 6 clusters

# qurator/dinglehopper/tests/test_edit_distance.py (commit 0e263cf), TEST_STRINGS:
# distance(s1, s2) is the raw Levenshtein distance in grapheme clusters.
DINGLEHOPPER_DISTANCES = [
    ("a", "a", 0),
    ("a", "b", 1),
    ("Foo", "Bar", 3),
    ("", "", 0),
    ("Foo", "", 3),
    ("", "Foo", 3),
    ("Foo", "Food", 1),
    ("Fnord", "Food", 2),
    ("Müll", "Mull", 1),
    ("Abstand", "Sand", 4),
]


@pytest.mark.parametrize("s1, s2, expected", DINGLEHOPPER_DISTANCES)
def test_dinglehopper_edit_distance(s1, s2, expected):
    assert result("cer", s1, s2, normalize=OCRD).counts["errors"] == expected


# qurator/dinglehopper/tests/test_edit_distance.py (commit 0e263cf), TEST_SEQUENCES:
# distances between lists of tokens; ours as words joined by spaces.
@pytest.mark.parametrize("s1, s2, expected", [(["a", "ab"], ["a", "ab", "c"], 1), (["a", "ab"], ["a", "c"], 1)])
def test_dinglehopper_sequence_distance(s1, s2, expected):
    counts = result("wer", " ".join(s1), " ".join(s2)).counts
    assert counts["substitutions"] + counts["deletions"] + counts["insertions"] == expected


# qurator/dinglehopper/tests/test_edit_distance.py (commit 0e263cf), TEST_UNICODE:
# NFC vs NFD "Schlyñ" -> 0, "Schlyñ" vs "Schlym̃" -> 1 (grapheme clusters); and
# test_editops_fast_unicode: the code-point distance without normalisation is NOT these.
@pytest.mark.parametrize(
    "s1, s2, expected",
    [(unicodedata.normalize("NFC", SCHLYN), unicodedata.normalize("NFD", SCHLYN), 0), (SCHLYN, SCHLYM, 1)],
)
def test_dinglehopper_unicode_distance(s1, s2, expected):
    assert result("cer", s1, s2, normalize=OCRD).counts["errors"] == expected
    assert result("cer", s1, s2, normalize=RAW).counts["errors"] != expected


# src/dinglehopper/tests/test_edit_distance.py (commit b488af3): distance() became
# Levenshtein.normalized_distance: Fnord/Food 2/5, Müll/Mull 1/4, NFC/NFD Schlyñ 0,
# Schlyñ/Schlym̃ 1/6. That is our ned in grapheme clusters.
@pytest.mark.parametrize(
    "s1, s2, expected",
    [
        ("Fnord", "Food", 2 / 5),
        ("Müll", "Mull", 1 / 4),
        (unicodedata.normalize("NFC", SCHLYN), unicodedata.normalize("NFD", SCHLYN), 0),
        (SCHLYN, SCHLYM, 1 / 6),
    ],
)
def test_dinglehopper_normalized_distance(s1, s2, expected):
    assert value("ned", s1, s2, normalize=OCRD) == pytest.approx(expected)


# qurator/dinglehopper/tests/test_character_error_rate.py (commit 14421c8): CER over the
# reference length. dinglehopper returns inf for ("", "Foo"); ours is 1.0 by policy.
@pytest.mark.parametrize(
    "reference, hypothesis, expected",
    [
        ("a", "a", 0),
        ("a", "b", 1 / 1),
        ("Foo", "Bar", 3 / 3),
        ("Foo", "", 3 / 3),
        ("", "", 0),
        ("Foo", "Food", 1 / 3),
        ("Fnord", "Food", 2 / 5),
        ("Müll", "Mull", 1 / 4),
        ("Abstand", "Sand", 4 / 7),
    ],
)
def test_dinglehopper_cer_over_reference_length(reference, hypothesis, expected):
    assert value("cer", reference, hypothesis, normalize=OCRD) == pytest.approx(expected)


def test_dinglehopper_cer_empty_reference_is_inf_there_and_one_here():
    dinglehopper_old = float("inf")  # math.isinf(character_error_rate("", "Foo")) at 14421c8
    ours = value("cer", "", "Foo", normalize=OCRD)
    assert ours == 1.0 and ours != dinglehopper_old
    assert value("cer", "", "Foo", normalize=OCRD, empty_reference_value="infinity") == dinglehopper_old
    # and character_error_rate("", "") == 0:
    assert value("cer", "", "", normalize=OCRD, empty_reference_value="infinity") == 0  # character_error_rate("", "")


# src/dinglehopper/tests/test_integ_empty_files.py, test_empty_files: the CER of two files as
# plain_text reads them (a BOM is no text), with dinglehopper's convention for an empty reference.
@pytest.mark.parametrize(
    "gt, ocr, expected",
    [
        ("", "Lorem ipsum", math.inf),
        ("Lorem ipsum", "", 1.0),
        ("\ufeff", "Lorem ipsum", math.inf),
        ("Lorem ipsum", "\ufeff", 1.0),
        ("", "", 0.0),
        ("\ufeff", "", 0.0),
        ("", "\ufeff", 0.0),
    ],
)
def test_dinglehopper_empty_files(tmp_path, gt, ocr, expected):
    (tmp_path / "gt.txt").write_text(gt, encoding="utf-8")
    (tmp_path / "ocr.txt").write_text(ocr, encoding="utf-8")
    texts = [decode_text((tmp_path / name).read_bytes()) for name in ("gt.txt", "ocr.txt")]
    assert value("cer", *texts, normalize=OCRD, empty_reference_value="infinity") == expected


# src/dinglehopper/tests/test_character_error_rate.py (commit b488af3): the same pairs
# with rapidfuzz's normalized distance, errors / the longer length: ("", "Foo") 3/3,
# ("Foo", "Food") 1/4, the rest unchanged. Ours with cer_denominator="max".
@pytest.mark.parametrize(
    "reference, hypothesis, expected",
    [
        ("a", "a", 0),
        ("a", "b", 1 / 1),
        ("Foo", "Bar", 3 / 3),
        ("Foo", "", 3 / 3),
        ("", "", 0),
        ("", "Foo", 3 / 3),
        ("Foo", "Food", 1 / 4),
        ("Fnord", "Food", 2 / 5),
        ("Müll", "Mull", 1 / 4),
        ("Abstand", "Sand", 4 / 7),
    ],
)
def test_dinglehopper_cer_over_longer_length(reference, hypothesis, expected):
    assert value("cer", reference, hypothesis, normalize=OCRD, cer_denominator="max") == pytest.approx(expected)


# Both versions of test_character_error_rate_hard: NFC "Schlyñ lorem ipsum." against NFD
# "Schlyñ lorem ipsum!" is 1/19 (only ./! differs once both are NFC), and "Schlyñ" vs
# "Schlym̃" is 1/6 in both directions "because both strings have the same length in
# terms of grapheme clusters".
@pytest.mark.parametrize("denominator", ["ref", "max"])
def test_dinglehopper_cer_hard(denominator):
    s1 = unicodedata.normalize("NFC", "Schlyñ lorem ipsum.")
    s2 = unicodedata.normalize("NFD", "Schlyñ lorem ipsum!")
    assert value("cer", s1, s2, normalize=OCRD, cer_denominator=denominator) == pytest.approx(1 / 19)
    assert len(SCHLYN) == 6 and len(SCHLYM) == 7
    assert value("cer", SCHLYM, SCHLYN, normalize=OCRD, cer_denominator=denominator) == pytest.approx(1 / 6)
    assert value("cer", SCHLYN, SCHLYM, normalize=OCRD, cer_denominator=denominator) == pytest.approx(1 / 6)


def test_dinglehopper_cer_hard_in_code_points_is_asymmetric():
    # Why the grapheme unit matters (counted by hand): in code points "Schlyñ" -> "Schlym̃"
    # is ñ->m (substitution) + U+0303 (insertion) = 2 errors, over 6 code points one way
    # and over 7 the other.
    assert value("cer", SCHLYN, SCHLYM) == pytest.approx(2 / 6)
    assert value("cer", SCHLYM, SCHLYN) == pytest.approx(2 / 7)


# src/dinglehopper/tests/test_word_error_rate.py (commits 38fcbc8 and 7a79bae).
# dinglehopper splits words by Unicode word segmentation (uniseg) and drops punctuation;
# we split on whitespace. Only pairs where the two give the same words are reproduced
# with the default profile.
@pytest.mark.parametrize(
    "reference, hypothesis, expected",
    [
        ("Dies ist ein Beispielsatz!", "Dies ist ein Beispielsatz!", 0),
        # whitespace words "Beispielsatz!"/"Beispielsarz:" differ like uniseg's "Beispielsatz"/"Beispielsarz"
        ("Dies ist ein Beispielsatz!", "Dies ist ein Beispielsarz:", 1 / 4),
        ("Dies ist ein Beispielsatz!", "Dies ein ist Beispielsatz!", 2 / 4),
        ("Dies ist ein Beispielsatz!", "", 4 / 4),
        ("", "", 0),
    ],
)
def test_dinglehopper_wer(reference, hypothesis, expected):
    assert value("wer", reference, hypothesis) == pytest.approx(expected)


def test_dinglehopper_wer_empty_reference():
    # 38fcbc8: math.isinf(word_error_rate("", "Dies ist ein Beispielsatz!"));
    # 7a79bae: == 4 / 4. Ours is 1.0 (policy), equal to the newer dinglehopper.
    ours = value("wer", "", "Dies ist ein Beispielsatz!")
    assert ours == 4 / 4
    assert ours != float("inf")


# Pairs where uniseg drops punctuation that whitespace splitting keeps: the same value
# as dinglehopper only once punctuation is removed (remove_punctuation=True), after
# which the whitespace words are exactly uniseg's words. With the default profile the
# words "Dies."/"Dies" and "amet,"/"amet." differ, which dinglehopper does not count.
@pytest.mark.parametrize(
    "reference, hypothesis, expected, default_profile",
    [
        ("Dies. ist ein Beispielsatz!", "Dies ist ein Beispielsatz!", 0, 1 / 4),
        ("Dies. ist ein Beispielsatz!", "Dies ist ein Beispielsatz.", 0, 2 / 4),
        ("Schlyñ lorem ipsum dolor sit amet,", "Schlym̃ lorem ipsum dolor sit amet.", 1 / 6, 2 / 6),
    ],
)
def test_dinglehopper_wer_needs_punctuation_removed(reference, hypothesis, expected, default_profile):
    no_punctuation = profile("ocrd", remove_punctuation=True)
    assert value("wer", reference, hypothesis, normalize=no_punctuation) == pytest.approx(expected)
    assert value("wer", reference, hypothesis) == pytest.approx(default_profile)


# Not reproduced: test_words ("3,14" is one uniseg word; removing punctuation makes it
# "314") and test_words_private_use_area (uniseg splits "ver⸗" from the next line).


# src/dinglehopper/tests/test_align.py (commit d50d624): the alignments, as our counts
# and confusion table (both tools take the alignment from rapidfuzz's editops).
@pytest.mark.parametrize(
    "s1, s2, counts, confusions",
    [
        # test_left_empty: [(None, "f"), (None, "o"), (None, "o")]
        ("", "foo", (0, 0, 3, 0), [["<INSERT>", "o", 2], ["<INSERT>", "f", 1]]),
        # test_right_empty: [("f", None), ("o", None), ("o", None)]
        ("foo", "", (0, 3, 0, 0), [["o", "<DELETE>", 2], ["f", "<DELETE>", 1]]),
        # test_left_longer: f, o, o kept, ("d", None)
        ("food", "foo", (0, 1, 0, 3), [["d", "<DELETE>", 1]]),
        # test_right_longer: f, o, o kept, (None, "d")
        ("foo", "food", (0, 0, 1, 3), [["<INSERT>", "d", 1]]),
        # test_some_diff: left a b c d e None / right a a a d e f
        ("abcde", "aaadef", (2, 0, 1, 3), [["<INSERT>", "f", 1], ["b", "a", 1], ["c", "a", 1]]),
        # test_longer: ("e", None), (None, "e"), ("!", ".") and 16 equal pairs
        ("Dies ist eine Tst!", "Dies ist ein Test.", (1, 1, 1, 16),
         [["!", ".", 1], ["<INSERT>", "e", 1], ["e", "<DELETE>", 1]]),
    ],
)  # fmt: skip
def test_dinglehopper_alignments(s1, s2, counts, confusions):
    details = result("cer", s1, s2, normalize=OCRD).details
    assert (details["substitutions"], details["deletions"], details["insertions"], details["hits"]) == counts
    assert details["confusions"] == confusions


def test_dinglehopper_align_completely_different():
    # test_completely_different: len(list(align("abcde", "fghij"))) == 5, i.e. 5 substitutions
    details = result("cer", "abcde", "fghij", normalize=OCRD).details
    assert (details["substitutions"], details["deletions"], details["insertions"]) == (5, 0, 0)


def test_dinglehopper_align_with_some_fake_ocr_errors():
    # test_with_some_fake_ocr_errors: the 18 characters "SomeJunk MoreJunk " are inserted and
    # the last pair is ("ß", "b").
    details = result(
        "cer",
        "Über die vielen Sorgen wegen desselben vergaß",
        "SomeJunk MoreJunk Übey die vielen Sorgen wegen AdditionalJunk deffelben vcrgab",
        normalize=OCRD,
    ).details
    assert ["ß", "b", 1] in details["confusions"]
    assert details["insertions"] >= 18


# The ocrd profile does to a text what dinglehopper's command line does to a text file
# (src/dinglehopper/ocr_files.py plain_extract and extracted_text.py substitute_equivalences,
# commit cd68a97): NFC, ligatures unjoined, equivalences substituted, each line's ends stripped.


# src/dinglehopper/tests/test_ocr_files.py, test_plain and test_plain_BOM: a file
# "First, a line.\nAnd a second line.\n" (with or without a BOM) reads as the text below.
@pytest.mark.parametrize("bom", ["", "\ufeff"])
def test_dinglehopper_plain_text_reading(tmp_path, bom):
    (tmp_path / "ocr.txt").write_text(bom + "First, a line.\nAnd a second line.\n", encoding="utf-8")
    text = decode_text((tmp_path / "ocr.txt").read_bytes())  # how pytest-ocr reads every text file
    assert OCRD(text) == "First, a line.\nAnd a second line."


# src/dinglehopper/tests/data/line_dirs/basic: gt a "This is a test.\n" / ocr "Tis is a test.\n",
# gt b "Another test.\n" / ocr "AnÖther test.\n": character_error_rate_n gives (1/15, 15) and
# (1/13, 13) on the files as plain_text reads them (trailing line breaks gone).
@pytest.mark.parametrize(
    "gt, ocr, errors, length",
    [("This is a test.\n", "Tis is a test.\n", 1, 15), ("Another test.\n", "AnÖther test.\n", 1, 13)],
)
def test_dinglehopper_line_dirs_basic(gt, ocr, errors, length):
    counts = result("cer", gt, ocr, normalize=OCRD).counts
    assert (counts["errors"], counts["denominator"]) == (errors, length)


# extracted_text.py (commit cd68a97): unjoin_ligatures and substitute_equivalences. Each
# pair is one of their table's entries (MUFI and eMOP private-use code points included).
@pytest.mark.parametrize(
    "written, read",
    [
        ("Graﬁk", "Grafik"), ("Schiﬀ", "Schiff"), ("ﬂach", "flach"), ("Treﬀer", "Treffer"), ("ﬃ", "ffi"),
        ("Faﬆ", "Fast"), ("ĳs", "ijs"), ("\ueba6", "ſſ"), ("\ueba7", "ſſi"), ("\uf502", "ch"),
        ("\ueec4", "ck"), ("\uf4f9", "ll"), ("\ueba2", "ſi"), ("\ueada", "ſt"), ("\ueec5", "ct"),
        ("\ueedc", "tz"), ("\uf532", "as"), ("\uf533", "is"), ("\uf534", "us"), ("\uf535", "Qu"),
        ("\ue8bf", "q&"), ("\ueba5", "ſp"),
        ("\ue72b", "ü"), ("\ue42c", "ä"), ("\ue644", "ö"), ("a==b", "a–b"), ("a—b", "a–b"), ("’", "'"),
        ("⸗", "-"), ("a\u0364", "ä"), ("o\u0364", "ö"), ("u\u0364", "ü"), ("\uf50e", "q\u0301"),
    ],
)  # fmt: skip
def test_dinglehopper_equivalences(written, read):
    assert OCRD(written) == unicodedata.normalize("NFC", read)
    assert value("cer", read, written, normalize=OCRD) == 0.0


# src/dinglehopper/tests/test_integ_character_error_rate_ocr.py,
# test_character_error_rate_between_page_alto_2: PAGE ground truth against Tesseract's ALTO
# (tests/data/dinglehopper, region level as dinglehopper's default): 8 / 591, "Manually verified".
def test_dinglehopper_page_against_alto(tmp_path):
    for xml in (Path(__file__).parent / "data" / "dinglehopper").glob("*.xml"):
        shutil.copy(xml, tmp_path)
    # the scans are not needed for the text: empty files where the datasets look for them
    # (the PAGE file names its scan; the ALTO file none, so it is looked up by the file's stem)
    for name in ("lorem-ipsum-scan.tif", "lorem-ipsum-scan-bad.ocr.tesseract.alto.tif"):
        (tmp_path / name).touch()
    texts = []
    for kind, options in (
        ("page-xml", {"include": ["*.page.xml"]}),
        ("alto", {"include": ["*.alto.xml"], "image_dir": "."}),
    ):
        loaded = load_dataset({"type": kind, "path": ".", "level": "region", **options}, tmp_path)
        assert not loaded.skipped, loaded.skipped
        [case] = loaded.cases
        texts.append(case["expected"]["text"])
    counts = result("cer", *texts, normalize=OCRD).counts
    assert (counts["errors"], counts["denominator"]) == (8, 591)


# =====================================================================================
# torchmetrics (Lightning-AI/torchmetrics), docstring examples of
# src/torchmetrics/functional/text/{wer,cer,mer,wil,wip}.py. Corpus-level values:
# compared with our micro average. The docstrings print 4 decimals.
# =====================================================================================

TM_PREDS = ["this is the prediction", "there is an other sample"]
TM_TARGET = ["this is the reference", "there is another one"]


@pytest.mark.parametrize(
    "name, expected",
    [
        ("wer", 0.5000),  # wer.py: word_error_rate -> tensor(0.5000)
        ("cer", 0.3415),  # cer.py: char_error_rate -> tensor(0.3415)
        ("mer", 0.4444),  # mer.py: match_error_rate -> tensor(0.4444)
        ("wil", 0.6528),  # wil.py: word_information_lost -> tensor(0.6528)
        ("wip", 0.3472),  # wip.py: word_information_preserved -> tensor(0.3472)
    ],
)
def test_torchmetrics_docstring_examples(name, expected):
    assert micro(name, TM_TARGET, TM_PREDS) == pytest.approx(expected, abs=5e-5)


def test_torchmetrics_example_counted_by_hand():
    # Sentence 1: this is the reference / this is the prediction: H=3, S=1.
    # Sentence 2: there is another one / there is an other sample: there, is equal;
    # another->an, one->other, +sample: H=2, S=2, I=1.
    # Pooled: H=5, S=3, D=0, I=1; N_ref=8, N_hyp=9.
    # wer = 4/8, mer = 4/9, wip = 5/8 * 5/9 = 25/72, wil = 47/72.
    assert micro("wer", TM_TARGET, TM_PREDS) == pytest.approx(4 / 8)
    assert micro("mer", TM_TARGET, TM_PREDS) == pytest.approx(4 / 9)
    assert micro("wip", TM_TARGET, TM_PREDS) == pytest.approx(25 / 72)
    assert micro("wil", TM_TARGET, TM_PREDS) == pytest.approx(47 / 72)
    keys = ("hits", "substitutions", "deletions", "insertions")
    assert summed_details("wer", TM_TARGET, TM_PREDS, keys) == {
        "hits": 5,
        "substitutions": 3,
        "deletions": 0,
        "insertions": 1,
    }


# =====================================================================================
# OCR-D specification (OCR-D/spec ocrd_eval.md, "Text Evaluation")
# =====================================================================================


def test_ocrd_levenshtein_example():
    # "Levenshtein Distance", Example: GT "ſind", OCR "fmd": distance 3.
    # (By hand: the only common character is "d", so at least max(4, 3) - 1 = 3 edits.)
    assert result("cer", "ſind", "fmd").counts["errors"] == 3
    assert value("cer", "ſind", "fmd") == pytest.approx(3 / 4)
    # Still 3 after long s becomes s (the historic profile): s/f differ as ſ/f did.
    assert result("cer", "ſind", "fmd", normalize=profile("historic")).counts["errors"] == 3


# "Character Error Rate (CER)": CER = (i+s+d)/n; "sometimes ... n as the maximum of both
# lengths"; the normalized CER_n = (i+s+d)/(i+s+d+c). Ours: cer_denominator ref, max, path.
# The spec's three examples, counted by hand:
@pytest.mark.parametrize(
    "reference, hypothesis, ref, longer, path",
    [
        # deletion: "Sonnenfinſterniſſe:" (6 + 12 + 1 = 19 characters) loses ":": d=1, c=18
        ("Sonnenfinſterniſſe:", "Sonnenfinſterniſſe", 1 / 19, 1 / 19, 1 / 19),
        # substitution: "Die Finſterniſſe des 1801ſten Jahrs" (3+1+12+1+3+1+8+1+5 = 35), 1 -> i: s=1, c=34
        ("Die Finſterniſſe des 1801ſten Jahrs", "Die Finſterniſſe des 180iſten Jahrs", 1 / 35, 1 / 35, 1 / 35),
        # insertion: "diese Strahlen, und" (5+1+9+1+3 = 19) gains a space before the comma: i=1, c=19
        ("diese Strahlen, und", "diese Strahlen , und", 1 / 19, 1 / 20, 1 / 20),
        # beyond 100 %: "X" against "X X Y Y": i=6, c=1 -> 6/1, 6/7, 6/7
        ("X", "X X Y Y", 6.0, 6 / 7, 6 / 7),
    ],
)
def test_ocrd_cer_definitions(reference, hypothesis, ref, longer, path):
    assert value("cer", reference, hypothesis, cer_denominator="ref") == pytest.approx(ref)
    assert value("cer", reference, hypothesis, cer_denominator="max") == pytest.approx(longer)
    assert value("cer", reference, hypothesis, cer_denominator="path") == pytest.approx(path)


def test_ocrd_normalized_cer_differs_from_max_when_both_deletions_and_insertions():
    # "abcd" -> "bcde": a deleted, e inserted, b c d kept (i=1, d=1, c=3; two substitutions
    # would cost 4). ref: 2/4, max: 2/4, path: 2/(2+3).
    assert value("cer", "abcd", "bcde", cer_denominator="ref") == pytest.approx(2 / 4)
    assert value("cer", "abcd", "bcde", cer_denominator="max") == pytest.approx(2 / 4)
    assert value("cer", "abcd", "bcde", cer_denominator="path") == pytest.approx(2 / 5)


MONDFINSTERNIS = (
    "Eine Mondfinsternis ist die Himmelsbegebenheit welche sich zur Zeit des Vollmondes ereignet, wenn die "
    "Erde zwischen der Sonne und dem Monde steht, so daß die Strahlen der Sonne von der Erde aufgehalten "
    "werden, und daß man so den Schatten der Erde in dem Monde siehet. In diesem Jahre sind zwey "
    "Monfinsternisse, davon ist ebenfalls nur Eine bey uns sichtbar, und zwar am 30sten März des Morgens "
    "nach 4 Uhr, und währt bis nach 6 Uhr."
)

# "Bag of Words": the BoW printed for the paragraph above (punctuation stays on the words).
OCRD_BOW = {
    "Eine": 2, "Mondfinsternis": 1, "ist": 2, "die": 2, "Himmelsbegebenheit": 1,
    "welche": 1, "sich": 1, "zur": 1, "Zeit": 1, "des": 2, "Vollmondes": 1,
    "ereignet,": 1, "wenn": 1, "Erde": 3, "zwischen": 1, "der": 4, "Sonne": 2,
    "und": 4, "dem": 2, "Monde": 2, "steht,": 1, "so": 2, "daß": 2,
    "Strahlen": 1, "von": 1, "aufgehalten": 1, "werden,": 1, "man": 1, "den": 1,
    "Schatten": 1, "in": 1, "siehet.": 1, "In": 1, "diesem": 1, "Jahre": 1,
    "sind": 1, "zwey": 1, "Monfinsternisse,": 1, "davon": 1, "ebenfalls": 1, "nur": 1,
    "bey": 1, "uns": 1, "sichtbar,": 1, "zwar": 1, "am": 1, "30sten": 1,
    "März": 1, "Morgens": 1, "nach": 2, "4": 1, "Uhr,": 1, "währt": 1,
    "bis": 1, "6": 1, "Uhr.": 1,
}  # fmt: skip


def bow_text(bag: dict) -> str:
    return " ".join(word for word, n in bag.items() for _ in range(n))


def test_ocrd_bag_of_words_is_a_multiset_of_whitespace_tokens():
    # The spec's BoW, corrected: "die" occurs 3 times in the paragraph ("ist die
    # Himmelsbegebenheit", "wenn die Erde", "daß die Strahlen"), the spec prints 2. With
    # that one count fixed, a text made of the BoW's words (in another order) has no
    # bag-of-words difference from the paragraph.
    corrected = {**OCRD_BOW, "die": 3}
    assert value("bow_error", MONDFINSTERNIS, bow_text(corrected)) == 0.0
    assert value("token_recall", MONDFINSTERNIS, bow_text(corrected)) == 1.0
    assert value("token_precision", MONDFINSTERNIS, bow_text(corrected)) == 1.0
    # 56 distinct words, 75 tokens (the printed counts sum to 74, plus the third "die").
    assert len(corrected) == 56 and sum(corrected.values()) == 75
    assert result("token_recall", MONDFINSTERNIS, "").counts["reference_tokens"] == 75


def test_ocrd_bag_of_words_as_printed_misses_one_die():
    # Spec error: "die": 2. Against the printed BoW (74 tokens) the paragraph (75 tokens)
    # has one extra "die": bow_error = (|75 - 74| + 1) / (2 * 75) = 2/150; recall 74/75.
    printed = bow_text(OCRD_BOW)
    assert value("bow_error", MONDFINSTERNIS, printed) == pytest.approx(2 / 150)
    assert value("bow_error", MONDFINSTERNIS, printed) != 0.0
    assert value("token_recall", MONDFINSTERNIS, printed) == pytest.approx(74 / 75)
    assert value("token_precision", MONDFINSTERNIS, printed) == 1.0


def test_ocrd_bag_of_words_ignores_order():
    reversed_words = " ".join(reversed(MONDFINSTERNIS.split()))
    assert value("bow_error", MONDFINSTERNIS, reversed_words) == 0.0
    assert value("wer", MONDFINSTERNIS, reversed_words) > 0.5  # while the order-aware WER is bad


def test_ocrd_unicode_normalization_example():
    # "Unicode Normalization": ä as U+00E4 or as U+0061 U+0308 are equivalent and should be
    # compared after NFC. Default and ocrd profiles: no error; without normalisation 2 code
    # point edits (ä -> a substituted, U+0308 inserted).
    assert value("cer", "\u00e4", "a\u0308") == 0.0
    assert value("cer", "\u00e4", "a\u0308", normalize=OCRD) == 0.0
    assert result("cer", "\u00e4", "a\u0308", normalize=RAW).counts["errors"] == 2


# =====================================================================================
# ocrevalUAtion (impactcentre/ocrevalUAtion)
# =====================================================================================
# BagOfWords.wer (src/main/java/eu/digitisation/distance/BagOfWords.java):
# (|n_ref - n_hyp| + sum_w |count_ref(w) - count_hyp(w)|) / (2 n_ref): our bow_error.


def test_ocrevaluation_bag_of_words_distance_and_wer():
    # src/test/java/eu/digitisation/distance/BagOfWordsTest.java:
    # testDistance: BagOfWords("one two three").distance(BagOfWords("one two three one two one")) == 3
    # testWer: BagOfWords.wer("one two three one two one", "one two three") == 0.5
    r = result("bow_error", "one two three one two one", "one two three")
    assert r.value == pytest.approx(0.5)
    # our numerator = |6 - 3| + distance; distance = |3-1| (one) + |2-1| (two) + 0 (three) = 3
    assert r.counts == {"differences": 3 + 3, "denominator": 12}


def test_ocrevaluation_bag_of_words_error_measure():
    # src/test/java/eu/digitisation/ocrevaluation/ErrorMeasureTest.java, testBwer:
    # ("one two three one two one", "one four two three") -> 0.5.
    # By hand: |6 - 4| = 2; one 3 vs 1 -> 2, two 2 vs 1 -> 1, three 0, four 0 vs 1 -> 1: (2 + 4) / 12.
    assert value("bow_error", "one two three one two one", "one four two three") == pytest.approx(0.5)


def test_ocrevaluation_word_error_rate():
    # ErrorMeasureTest.testWer: wer("one two three one two one", "one two three four") == 0.5
    # ("1 replaced + 2 deleted out of 6 words").
    r = result("wer", "one two three one two one", "one two three four")
    assert r.value == pytest.approx(0.5)
    assert (r.details["substitutions"], r.details["deletions"], r.details["insertions"]) == (1, 2, 0)


# ErrorMeasureTest with src/test/resources/text1.txt ("Mi enhorabuena") and text2.txt
# ("mi en  hora\n buena"):
TEXT1, TEXT2 = "Mi enhorabuena", "mi en  hora\n buena"


def test_ocrevaluation_cer_of_the_test_resources():
    # testCer: 3.0 / 14 after StringNormalizer.reduceWS (our default collapses whitespace too):
    # "Mi enhorabuena" -> "mi en hora buena": M->m, two spaces inserted.
    assert value("cer", TEXT1, TEXT2) == pytest.approx(3 / 14)


def test_ocrevaluation_wer_of_the_test_resources_is_case_insensitive():
    # testWer: 1.5. ErrorMeasure.wer builds its token arrays with
    # TokenArrayFactory(false) ("case unsensitive"): mi = mi, enhorabuena -> en, + hora, + buena:
    # 3 errors over 2 words. Ours needs casefold for that; case-sensitively Mi/mi differs too (4/2).
    assert value("wer", TEXT1, TEXT2, normalize=Normalization(casefold=True)) == pytest.approx(1.5)
    assert value("wer", TEXT1, TEXT2) == pytest.approx(2.0)


# src/test/java/eu/digitisation/distance/StringEditDistanceTest.java, testLevenshteinDistance
@pytest.mark.parametrize(
    "first, second, expected",
    [("patata", "apta", 3), ("holanda", "wordland", 4), ("Mi enhorabuena", "mi en  hora  buena", 3)],
)
def test_ocrevaluation_levenshtein(first, second, expected):
    assert result("cer", first, second).counts["errors"] == expected


def test_ocrevaluation_operations():
    # testOperations, "patata" -> "apta": KEEP a x2 and t x1, DELETE p and a, SUBSTITUTE t.
    # (The test notes which letters are not the only possibility; the counts are forced:
    # distance 3 with 2 more reference letters means D - I = 2, S + D + I = 3.)
    details = result("cer", "patata", "apta").details
    assert (details["hits"], details["deletions"], details["substitutions"], details["insertions"]) == (3, 2, 1, 0)


def test_ocrevaluation_indel_distance_as_lcs():
    # testIndelDistance: indel("patata", "apta") == 4, so the longest common subsequence is
    # (6 + 4 - 4) / 2 = 3. Our lcs_ratio works on words: letters as one-letter words.
    assert value("lcs_ratio", "p a t a t a", "a p t a") == pytest.approx(3 / 6)


# =====================================================================================
# ocreval (eddieantonio/ocreval, the ISRI OCR evaluation tools with UTF-8)
# =====================================================================================
# Its `accuracy` program (Accuracy Report Version 7.0), built from commit 873a0de and run on
# these pairs as files on 2026-11-25: "Characters" and "Errors" of each report. It reads
# code points as they are (no NFC) and compresses spacing (src/text.c, compress_spacing):
# our `whitespace: isri` with `unicode: none`, and char_accuracy is its accuracy.
ISRI = Normalization(unicode="none", whitespace="isri")


@pytest.mark.parametrize(
    "correct, generated, characters, errors",
    [
        ("Mi enhorabuena\n", "mi en  hora\n buena\n", 15, 3),  # 80.00%
        ("INVOICE #12345\nTOTAL 9.00\n", "INV0ICE #12345\nTOTAL 9.0\n", 26, 2),  # 92.31%
        ("  The quick\tbrown fox\n\n\njumps over\n", "The quick brown  fox\njumps\u00a0ovr\n", 31, 1),  # 96.77%
        ("Müller\r\nStraße 5", "Mu\u0308ller\nStrasse 5", 15, 4),  # 73.33%: no NFC, ß is not ss
        ("line one\n\nline two", "line one line two", 17, 1),  # 94.12%
        ("\u0915\u094d\u0937\u093f", "\u0915\u0937\u093f", 4, 1),  # 75.00%: code points
    ],
)
def test_ocreval_accuracy(correct, generated, characters, errors):
    r = result("char_accuracy", correct, generated, normalize=ISRI)
    assert (r.counts["total"], r.counts["total"] - r.counts["correct"]) == (characters, errors)
    assert r.value == pytest.approx((characters - errors) / characters)


# =====================================================================================
# ocr-metrics-spec.md (/work/shared/spec), §1 worked examples
# =====================================================================================


def test_spec_1_1_cer():
    # §1.1: "INVOICE #12345" vs "INV0ICE #12345" -> cer 7.14 %, S 1, I 0, D 0, total_chars 14
    r = result("cer", "INVOICE #12345", "INV0ICE #12345")
    assert r.value * 100 == pytest.approx(7.14, abs=0.005)
    assert (r.details["substitutions"], r.details["insertions"], r.details["deletions"]) == (1, 0, 0)
    assert r.details["reference_length"] == 14


def test_spec_1_2_wer():
    # §1.2: "TOTAL AMOUNT DUE" vs "TOTAL AMUNT DUE" -> wer 33.33 %, 1 substitution, 3 words
    r = result("wer", "TOTAL AMOUNT DUE", "TOTAL AMUNT DUE")
    assert r.value * 100 == pytest.approx(33.33, abs=0.005)
    assert (r.details["substitutions"], r.details["deletions"], r.details["insertions"]) == (1, 0, 0)
    assert r.details["reference_length"] == 3


def test_spec_1_3_ser():
    # §1.3: 3 lines, the last one wrong -> ser 33.33 %, error_sentences 1, error_indices [2]
    ground_truth = ["INVOICE NUMBER: INV-2024-001", "DATE: 2024-03-15", "TOTAL: $150.00"]
    predicted = ["INVOICE NUMBER: INV-2024-001", "DATE: 2024-03-15", "TOTAL: $15O.OO"]
    r = result("ser", "\n".join(ground_truth), "\n".join(predicted))
    assert r.value * 100 == pytest.approx(33.33, abs=0.005)
    assert r.counts == {"error_lines": 1, "lines": 3}
    assert r.details["error_indices"] == [2]


def test_spec_1_3_ser_pads_the_shorter_side():
    # §1.3's code pads the shorter list with "": a missing last line is an error at index 2.
    ground_truth = "INVOICE NUMBER: INV-2024-001\nDATE: 2024-03-15\nTOTAL: $150.00"
    r = result("ser", ground_truth, "INVOICE NUMBER: INV-2024-001\nDATE: 2024-03-15")
    assert r.counts == {"error_lines": 1, "lines": 3}
    assert r.details["error_indices"] == [2]


SPEC_1_4_GT = "Invoice Number INV-2024-001 Total Amount $150.00"
SPEC_1_4_PRED = "Invoice Number INV-2024-OO1 Total Amount $150.00"


def test_spec_1_4_exact_match_rate():
    # §1.4: exact_match_rate 83.33: 5 of 6 positions equal (only INV-2024-001/-OO1 differs). Right.
    assert value("token_exact_match_rate", SPEC_1_4_GT, SPEC_1_4_PRED) * 100 == pytest.approx(83.33, abs=0.005)


@pytest.mark.parametrize("name", ["token_precision", "token_recall", "token_f1"])
def test_spec_1_4_token_precision_recall_f1(name):
    # §1.4 prints precision = recall = f1 = 0.857. Spec error: 6 tokens on each side, all
    # distinct, 5 shared (Invoice, Number, Total, Amount, $150.00; INV-2024-001 is not):
    # precision 5/6, recall 5/6, F1 5/6 = 0.833 (the spec's own set-based code gives the
    # same). 0.857 is 6/7, and no 7 occurs in this example.
    ours = value(name, SPEC_1_4_GT, SPEC_1_4_PRED)
    assert ours == pytest.approx(5 / 6)
    assert ours != pytest.approx(0.857, abs=0.0005)


SPEC_1_5_GT = "INVOICE #12345 TOTAL: $150.00"
SPEC_1_5_PRED = "INV0ICE #I2345 T0TAL: $15O.OO"


def test_spec_1_5_confusion_matrix():
    # §1.5 prints {"O": {"0": 3}, "1": {"I": 1}}, total_errors 4, confusion_rate 13.79 (4/29).
    # Spec error; counted by hand, both strings have 29 characters and differ at 6 positions:
    #   INVOICE -> INV0ICE   O->0
    #   #12345  -> #I2345    1->I
    #   TOTAL:  -> T0TAL:    O->0
    #   $150.00 -> $15O.OO   0->O, 0->O, 0->O
    # so O->0 x2, 0->O x3, 1->I x1: 6 substitutions, rate 6/29 = 20.69 %. (That 6 is also the
    # minimum, i.e. no alignment with insertions and deletions is cheaper, is checked with the
    # textbook DP written below, not with our code.)
    assert levenshtein(SPEC_1_5_GT, SPEC_1_5_PRED) == 6
    r = result("cer", SPEC_1_5_GT, SPEC_1_5_PRED)
    assert r.details["confusions"] == [["0", "O", 3], ["O", "0", 2], ["1", "I", 1]]
    assert r.counts == {"errors": 6, "denominator": 29}
    assert r.value * 100 == pytest.approx(20.69, abs=0.005)
    assert r.counts["errors"] != 4
    assert r.value * 100 != pytest.approx(13.79, abs=0.005)
    assert ["O", "0", 3] not in r.details["confusions"]


# =====================================================================================
# biblicus-metrics-reference.md (/work/shared/spec)
# =====================================================================================


def test_biblicus_f1_example():
    # "F1 Score" example: "hello world from biblicus" vs "hello world form":
    # precision 2/3, recall 2/4, F1 = 2 * (2/3 * 1/2) / (2/3 + 1/2) = 4/7 = 0.571
    gt, extracted = "hello world from biblicus", "hello world form"
    assert value("token_precision", gt, extracted) == pytest.approx(2 / 3)
    assert value("token_recall", gt, extracted) == pytest.approx(1 / 2)
    assert value("token_f1", gt, extracted) == pytest.approx(4 / 7)
    assert round(value("token_f1", gt, extracted), 3) == 0.571


def test_biblicus_precision_example():
    # "Precision" example: extracted "hello world form biblicus", 3 of 4 correct: 0.750
    assert value("token_precision", "hello world from biblicus", "hello world form biblicus") == pytest.approx(0.75)


def test_biblicus_recall_example():
    # "Recall" example: "hello world from biblicus system" vs "hello world biblicus": 3/5 = 0.600
    assert value("token_recall", "hello world from biblicus system", "hello world biblicus") == pytest.approx(0.6)


def test_biblicus_wer_example():
    # "Word Error Rate" example prints "1 substitution (form->from) ... WER: 1/4 = 0.250" for
    # "hello world from biblicus" vs "hello form world biblicus". Spec error: one edit cannot
    # do it (positions 1 and 2 both differ: world/form, from/world, and an insertion or
    # deletion alone changes the length). The minimum is 2, e.g. insert "form" before
    # "world" and delete "from": WER 2/4 = 0.5.
    ours = value("wer", "hello world from biblicus", "hello form world biblicus")
    assert ours == pytest.approx(0.5)
    assert ours != pytest.approx(0.25)


def test_biblicus_sequence_accuracy_example():
    # "Sequence Accuracy" example prints "Only 'hello' at position 0 is correct ... 1/4 = 0.250"
    # for ["hello", "world", "from", "biblicus"] vs ["hello", "form", "world", "biblicus"].
    # Spec error: "biblicus" is at position 3 in both, so 2 of 4 positions match: 0.5.
    ours = value("sequence_accuracy", "hello world from biblicus", "hello form world biblicus")
    assert ours == pytest.approx(0.5)
    assert ours != pytest.approx(0.25)


def test_biblicus_lcs_ratio_example():
    # "LCS Ratio" example: "the quick brown fox jumps" vs "the brown quick fox": LCS 3 -> 3/5
    assert value("lcs_ratio", "the quick brown fox jumps", "the brown quick fox") == pytest.approx(3 / 5)


def test_biblicus_bigram_example():
    # "Bigram Overlap" example: only ("hello", "world") matches of 3 reference bigrams: 1/3
    assert value("bigram_overlap", "hello world from biblicus", "hello world biblicus from") == pytest.approx(1 / 3)


def test_biblicus_trigram_example():
    # "Trigram Overlap" example: "the quick brown fox" vs "the brown quick fox": 0/2
    assert value("trigram_overlap", "the quick brown fox", "the brown quick fox") == 0.0


def test_biblicus_order_aware_calculation_example():
    # "Order-Aware Calculation": ["the", "quick", "fox"] vs ["the", "slow", "fox"]: 1/3
    r = result("wer", "the quick fox", "the slow fox")
    assert r.value == pytest.approx(1 / 3)
    assert r.details["substitutions"] == 1


def test_biblicus_ngram_calculation_example():
    # "N-gram Calculation": ["a", "b", "c"] vs ["a", "c", "b"]: no bigram matches, 0/2
    assert value("bigram_overlap", "a b c", "a c b") == 0.0
    assert result("bigram_overlap", "a b c", "a c b").counts == {
        "matches": 0,
        "reference_ngrams": 2,
        "hypothesis_ngrams": 2,
    }


def test_biblicus_set_based_calculation_example():
    # "Set-Based Calculation": "Hello, World!" and "hello world" match after lowercasing and
    # removing punctuation.
    lenient = Normalization(casefold=True, remove_punctuation=True)
    assert value("token_f1", "Hello, World!", "hello world", normalize=lenient) == 1.0
    assert value("token_f1", "Hello, World!", "hello world") == 0.0


def test_biblicus_wer_can_exceed_one():
    # "Why WER can exceed 1.0": 100 reference words, 200 extracted (100 correct + 100
    # insertions): WER = 100/100 = 1.0.
    words = " ".join(f"w{i}" for i in range(100))
    extra = " ".join(f"x{i}" for i in range(100))
    assert value("wer", words, words + " " + extra) == pytest.approx(1.0)
    assert value("wer", words, words + " " + extra + " more") > 1.0


# =====================================================================================
# wer-cer-ssa.md (/work/shared/spec), "Structural Sequence Accuracy": (correct matches -
# structural penalty) / reference characters, penalising edits involving whitespace
# (\n, \t, space), on text whose whitespace is kept. Counted by hand; every alignment
# below is the only minimal one.
# =====================================================================================


@pytest.mark.parametrize(
    "reference, hypothesis, hits, penalty, expected",
    [
        # a perfect copy, line break and indentation included: 7/7
        ("ab\n  cd", "ab\n  cd", 7, 0, 1.0),
        # a lost line break: "\n" deleted; hits 4 of 5, penalty 1: (4 - 1) / 5
        ("ab\ncd", "abcd", 4, 1, 3 / 5),
        # a line break read as a space: "\n" -> " " substituted; hits 4, penalty 1: 3/5
        ("ab\ncd", "ab cd", 4, 1, 3 / 5),
        # a wrong letter for comparison: d -> x, no whitespace involved: 4/5
        ("ab\ncd", "ab\ncx", 4, 0, 4 / 5),
        # an inserted line break: hits 4 of 4, penalty 1: 3/4
        ("abcd", "ab\ncd", 4, 1, 3 / 4),
        # a doubled space collapsed: one space deleted; hits 3 of 4, penalty 1: 2/4
        ("a  b", "a b", 3, 1, 2 / 4),
        # a tab for a space: substitution, both whitespace; hits 2 of 3, penalty 1: 1/3
        ("a b", "a\tb", 2, 1, 1 / 3),
        # lost indentation: 2 spaces deleted; hits 1 of 3, penalty 2: max(0, 1 - 2) / 3 = 0
        ("  x", "x", 1, 2, 0.0),
    ],
)
def test_ssa_worked_examples(reference, hypothesis, hits, penalty, expected):
    r = result("ssa", reference, hypothesis)
    assert r.value == pytest.approx(expected)
    assert (r.details["hits"], r.details["whitespace_penalty"]) == (hits, penalty)
    assert r.counts["reference_length"] == len(reference)


def test_ssa_sees_the_layout_cer_ignores():
    # The default profile collapses whitespace for CER: "ab\ncd" and "ab cd" are the same
    # text there (CER 0), while SSA charges the line break twice: 3/5.
    assert value("cer", "ab\ncd", "ab cd") == 0.0
    assert value("ssa", "ab\ncd", "ab cd") == pytest.approx(3 / 5)


# =====================================================================================
# cer-review-tibetan.md (/work/shared/spec)
# =====================================================================================


def test_tibetan_review_code_points():
    # §3.1: བསྒྲུབས = བ + ས + ྒ + ྲ + ུ + བ + ས = 7 code points; §3.2: རྒྱལ = 4 code points.
    assert result("cer", "བསྒྲུབས", "").details["reference_length"] == 7
    assert result("cer", "རྒྱལ", "").details["reference_length"] == 4


def test_tibetan_review_subjoined_consonant_code_point_vs_cluster():
    # §3.3 point 3: confusing རྒ with རྒྱ (missing one subjoined consonant) "would be 1
    # substitution at cluster level but 1 deletion at code-point level".
    cp = result("cer", "རྒྱ", "རྒ").details
    assert (cp["substitutions"], cp["deletions"], cp["insertions"]) == (0, 1, 0)
    cluster = result("cer", "རྒྱ", "རྒ", normalize=OCRD).details
    assert (cluster["substitutions"], cluster["deletions"], cluster["insertions"]) == (1, 0, 0)


@pytest.mark.parametrize(
    "reference, inference, expected",
    [("", "", 0.0), ("", "ཀ", 1.0), ("ཀ་ཁ", "", 1.0)],  # §6 edge cases: 0.0, 1.0 (convention), 1.0
)
def test_tibetan_review_edge_cases(reference, inference, expected):
    assert value("cer", reference, inference) == expected


def test_tibetan_review_section_7_3_normalisation():
    # §7.3: "་་" -> "་", "་།" -> "།", U+200B removed.
    tibetan = profile("tibetan")
    assert tibetan("ཀ་་ཁ") == "ཀ་ཁ"
    assert tibetan("ཀ་།") == "ཀ།"
    assert tibetan("ཀ\u200b་ཁ") == "ཀ་ཁ"
    assert value("cer", "ཀ་ཁ།", "ཀ་་\u200bཁ་།", normalize=tibetan) == 0.0
