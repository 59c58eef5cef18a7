"""Text normalisation: what is treated as "the same text" before scoring.

Expected outputs are written out by hand or derived from the Unicode database
(unicodedata) in the test, never from pytest_ocr's own output.
"""

from __future__ import annotations

import unicodedata

import jiwer
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_ocr import metrics
from pytest_ocr.metrics import Normalization
from pytest_ocr.metrics.normalize import UNICODE_FORMS

PROPERTY = settings(max_examples=200, derandomize=True, deadline=None, database=None)

E_ACUTE_NFC = "\u00e9"  # é, one code point
E_ACUTE_NFD = "e\u0301"  # e + COMBINING ACUTE ACCENT


# -- the default --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  INVOICE   #12345 \n", "INVOICE #12345"),
        ("line one\nline two\r\n\tend", "line one line two end"),
        ("a\u00a0b\u3000c", "a b c"),  # no-break and ideographic spaces are whitespace too
        ("caf" + E_ACUTE_NFD, "caf" + E_ACUTE_NFC),  # NFC composes
        ("Straße", "Straße"),  # no case folding by default
        ("«Hello», world!", "«Hello», world!"),  # punctuation kept by default
        ("", ""),
        (" \n\t ", ""),
    ],
)
def test_default_is_nfc_and_collapsed_stripped_whitespace(text, expected):
    assert metrics.DEFAULT(text) == expected
    assert Normalization()(text) == expected


def test_default_and_raw_steps():
    assert metrics.DEFAULT.steps() == ["NFC", "collapse_whitespace"]
    assert metrics.RAW.steps() == []
    assert metrics.RAW("  caf" + E_ACUTE_NFD + "\n\n") == "  caf" + E_ACUTE_NFD + "\n\n"  # untouched


def test_steps_are_listed_in_the_order_they_run():
    everything = Normalization(unicode="NFKC", casefold=True, remove_punctuation=True, whitespace="collapse")
    assert everything.steps() == ["NFKC", "casefold", "remove_punctuation", "collapse_whitespace"]
    assert Normalization(unicode="none", casefold=True).steps() == ["casefold", "collapse_whitespace"]
    assert Normalization(unicode="NFD", whitespace="keep", remove_punctuation=True).steps() == [
        "NFD",
        "remove_punctuation",
    ]


# -- Unicode forms ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("form", "composed_equals_decomposed"),
    [("NFC", True), ("NFD", True), ("NFKC", True), ("NFKD", True), ("none", False)],
)
def test_canonical_equivalents_are_equal_unless_unicode_is_none(form, composed_equals_decomposed):
    normalize = Normalization(unicode=form)
    assert (normalize(E_ACUTE_NFC) == normalize(E_ACUTE_NFD)) is composed_equals_decomposed
    assert (metrics.exact_match(E_ACUTE_NFC, E_ACUTE_NFD, normalize=normalize) == 1.0) is composed_equals_decomposed


@pytest.mark.parametrize(
    ("form", "expected"),
    [
        ("NFC", "\ufb01"),  # LATIN SMALL LIGATURE FI survives canonical forms
        ("NFD", "\ufb01"),
        ("NFKC", "fi"),  # ... and is split by compatibility forms
        ("NFKD", "fi"),
        ("none", "\ufb01"),
    ],
)
def test_fi_ligature_is_split_by_compatibility_forms_only(form, expected):
    assert Normalization(unicode=form)("\ufb01") == expected


@pytest.mark.parametrize(
    ("form", "expected"),
    [
        ("NFC", "\u00e9"),
        ("NFD", "e\u0301"),
        ("NFKC", "\u00e9"),
        ("NFKD", "e\u0301"),
        ("none", "\u00e9"),
    ],
)
def test_each_form_produces_its_own_shape(form, expected):
    assert Normalization(unicode=form)("\u00e9") == expected


def test_nfkc_folds_full_width_and_superscripts():
    assert Normalization(unicode="NFKC")("ＩＮＶ №１²") == "INV No12"


@pytest.mark.parametrize("bad", ["nfc", "NFX", "", "NFC ", None])
def test_invalid_unicode_form_raises(bad):
    with pytest.raises(ValueError, match="NFC"):  # the message lists the valid forms
        Normalization(unicode=bad)


def test_the_valid_forms():
    assert set(UNICODE_FORMS) == {"NFC", "NFD", "NFKC", "NFKD", "none"}


def test_from_dict():
    assert Normalization.from_dict(None) == metrics.DEFAULT
    assert Normalization.from_dict({}) == metrics.DEFAULT
    expected = Normalization(unicode="NFKC", casefold=True)
    assert Normalization.from_dict({"unicode": "NFKC", "casefold": True}) == expected
    with pytest.raises(ValueError):
        Normalization.from_dict({"unicode": "latin1"})


def test_cer_of_nfd_hypothesis_against_nfc_reference():
    # cer-review-tibetan.md §3.4: differently normalised output inflates CER unless
    # both sides are normalised. "café" (4 code points) vs "cafe\u0301" (5): raw, é -> e
    # is a substitution and the accent an insertion, 2 / 4 - as jiwer also says.
    reference, hypothesis = "caf\u00e9", "cafe\u0301"
    assert metrics.cer(reference, hypothesis) == 0.0
    assert metrics.cer(reference, hypothesis, normalize=Normalization(unicode="none")) == 0.5
    assert jiwer.cer(reference, hypothesis) == 0.5
    # The same for Tibetan: U+0F73 (vowel sign II) decomposes canonically to
    # U+0F71 U+0F72, but NFC does not recompose it (composition exclusion), so
    # only the decomposed form is stable; both sides normalise to it.
    assert metrics.cer("\u0f40\u0f73", "\u0f40\u0f71\u0f72") == 0.0
    assert metrics.cer("\u0f40\u0f73", "\u0f40\u0f71\u0f72", normalize=Normalization(unicode="none")) > 0


# -- case folding -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Straße", "strasse"),  # casefold, not lower(): ß -> ss
        ("ΣΊΣΥΦΟΣ", "σίσυφοσ"),  # final sigma folds to σ
        ("ПРИВЕТ", "привет"),
    ],
)
def test_casefold(text, expected):
    assert Normalization(casefold=True)(text) == expected
    assert Normalization()(text) == unicodedata.normalize("NFC", text)  # off by default


def test_nfkc_runs_before_casefold():
    # ROMAN NUMERAL TWELVE: NFKC makes it "XII", which casefold then lowers. In the
    # other order casefold gives U+217B (small roman numeral) and NFKC "xii" too,
    # but only the documented order gets there without relying on that.
    assert Normalization(unicode="NFKC", casefold=True)("\u216b") == "xii"
    assert Normalization(unicode="NFKC", casefold=True)("Straße") == "strasse"


# -- punctuation --------------------------------------------------------------------

PUNCTUATION_EXAMPLES = [
    ("«", "Pi"),
    ("»", "Pf"),
    (",", "Po"),
    ("!", "Po"),
    ("#", "Po"),
    ("-", "Pd"),
    ("_", "Pc"),
    ("(", "Ps"),
    (")", "Pe"),
    ("、", "Po"),  # IDEOGRAPHIC COMMA
    ("।", "Po"),  # DEVANAGARI DANDA
    ("།", "Po"),  # TIBETAN MARK SHAD
]
SYMBOL_EXAMPLES = [("$", "Sc"), ("€", "Sc"), ("+", "Sm"), ("©", "So"), ("^", "Sk")]


@pytest.mark.parametrize(("char", "category"), PUNCTUATION_EXAMPLES)
def test_remove_punctuation_removes_p_categories(char, category):
    assert unicodedata.category(char) == category  # the premise, checked, not assumed
    normalize = Normalization(remove_punctuation=True)
    assert normalize(f"a{char}b") == "ab"
    assert Normalization()(f"a{char}b") == f"a{char}b"  # off by default


@pytest.mark.parametrize(("char", "category"), SYMBOL_EXAMPLES)
def test_remove_punctuation_keeps_symbols(char, category):
    assert unicodedata.category(char) == category
    assert Normalization(remove_punctuation=True)(f"a{char}b") == f"a{char}b"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("«Hello», world!", "Hello world"),
        ("Total: $12.50 (paid)", "Total $1250 paid"),
        ("a - b", "a b"),  # the space left by the dash is collapsed afterwards
        ("日本、東京。", "日本東京"),
        ("नमस्ते। दुनिया।", "नमस्ते दुनिया"),
        ("བཀྲ་ཤིས། བདེ་ལེགས།", "བཀྲཤིས བདེལེགས"),  # the tsheg ་ (U+0F0B) is Po as well
    ],
)
def test_remove_punctuation_examples(text, expected):
    assert Normalization(remove_punctuation=True)(text) == expected


@PROPERTY
@given(st.text(max_size=40))
def test_remove_punctuation_is_exactly_the_p_categories(text):
    # Independent definition straight from the Unicode database.
    expected = "".join(c for c in text if not unicodedata.category(c).startswith("P"))
    assert Normalization(unicode="none", whitespace="keep", remove_punctuation=True)(text) == expected


# -- whitespace ---------------------------------------------------------------------


def test_whitespace_keep_keeps_newlines_and_tabs():
    text = "  line one\n\tline  two\n"
    assert Normalization(whitespace="keep")(text) == text
    assert Normalization(whitespace="collapse")(text) == "line one line two"


def test_whitespace_trim_strips_only_the_ends_of_the_text():
    text = " \t line one\n\tline  two\n"
    assert Normalization(whitespace="trim")(text) == "line one\n\tline  two"
    assert Normalization(whitespace="trim").steps() == ["NFC", "trim"]


def test_whitespace_trim_lines_strips_each_line_as_dinglehopper_reads_a_file():
    # dinglehopper's plain_extract: line.strip() for each of readlines(), joined by "\n"
    trim_lines = Normalization(whitespace="trim_lines")
    assert trim_lines("  a  b \r\n\tc\n\n d \n") == "a  b\nc\n\nd"
    assert trim_lines("a\n") == "a" and trim_lines("\n") == "" and trim_lines("") == ""
    assert trim_lines.steps() == ["NFC", "trim_lines"]


# jiwer's CER transform strips the text's ends and nothing else (jiwer 4, cer_default =
# Compose([Strip(), ReduceToListOfListOfChars()])): "trim" without Unicode normalisation is it.
SPACED = st.text(st.sampled_from("ab é\u0301\n\t\u00a0 क्"), max_size=20).filter(str.strip)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(SPACED, st.text(st.sampled_from("ab é\u0301\n\t\u00a0 क्"), max_size=20))
def test_whitespace_trim_reproduces_jiwers_cer(reference, hypothesis):
    jiwers = Normalization(unicode="none", whitespace="trim")
    assert metrics.cer(reference, hypothesis, normalize=jiwers) == pytest.approx(jiwer.cer(reference, hypothesis))


def test_whitespace_isri_compresses_spacing_as_ocreval_does():
    # ocreval's compress_spacing (src/text.c): blanks (tab, VT, FF, CR, NBSP, Zs, Zl, Zp) are
    # spaces, runs one space, none at a line's ends, empty lines dropped, line breaks kept
    isri = Normalization(unicode="none", whitespace="isri")
    assert isri("  a \t b \n\n  \n c") == "a b\nc"
    assert isri("\n\na\n") == "a\n"
    assert isri("x\u2028y\u00a0 z\r\n") == "x y z\n"
    assert isri("a\x1cb") == "a\x1cb"  # not one of its blanks
    assert isri.steps() == ["isri"]


def test_collapse_whitespace_is_read_as_the_older_spelling_of_whitespace():
    assert Normalization.from_dict({"collapse_whitespace": False}) == Normalization(whitespace="keep")
    assert Normalization.from_dict({"collapse_whitespace": True}) == Normalization(whitespace="collapse")
    with pytest.warns(DeprecationWarning, match="collapse_whitespace"):  # the library's keyword, until 0.3
        assert metrics.profile("ocrd", collapse_whitespace=False).whitespace == "keep"
    with pytest.raises(ValueError, match="not both"):
        Normalization.from_dict({"collapse_whitespace": False, "whitespace": "trim"})
    with pytest.raises(ValueError, match="whitespace must be one of collapse, trim, trim_lines, isri, keep"):
        Normalization(whitespace="strip")


def test_whitespace_only_text_normalises_to_empty():
    assert metrics.DEFAULT(" \t\n\u00a0\u2003 ") == ""


@PROPERTY
@given(st.text(max_size=40))
def test_default_output_shape(text):
    out = metrics.DEFAULT(text)
    assert out == out.strip()
    assert "  " not in out
    assert not any(c.isspace() and c != " " for c in out)
    assert unicodedata.is_normalized("NFC", out)
    # Words (runs of non-whitespace) are preserved, NFC-normalised.
    assert out.split(" ") == (unicodedata.normalize("NFC", text).split() or [""])


def test_every_whitespace_character_but_the_space_is_unprintable():
    # collapse_whitespace's fast path relies on it
    whitespace = [chr(cp) for cp in range(0x110000) if chr(cp).isspace()]
    assert len(whitespace) == 29
    assert [c for c in whitespace if c.isprintable()] == [" "]


WHITESPACE_HEAVY = st.text(
    alphabet=st.sampled_from(["a", "ü", "x", " ", " ", "\n", "\n", "\t", "\u3000", "\u00a0", "\r"]), max_size=30
)


@pytest.mark.slow
@PROPERTY
@given(st.one_of(st.text(max_size=40), WHITESPACE_HEAVY))
def test_whitespace_collapse_equals_split_and_join(text):
    from pytest_ocr.metrics.normalize import collapse_whitespace

    assert collapse_whitespace(text) == " ".join(text.split())


@PROPERTY
@given(st.text(max_size=40))
def test_normalising_twice_changes_nothing(text):
    for normalize in (metrics.DEFAULT, Normalization(unicode="NFKC", casefold=True, remove_punctuation=True)):
        once = normalize(text)
        assert normalize(once) == once


def test_casefold_keeps_the_text_in_the_chosen_normal_form():
    # "ǰ" (U+01F0) folds to "j" + U+030C, which has no precomposed form: NFC must be
    # re-applied after folding so "Ǆ"-like letters count as one code point where they can.
    folded = Normalization(casefold=True)("ÅNGSTRÖM ǰ")
    assert folded == unicodedata.normalize("NFC", folded)
    assert folded.startswith("ångström")


def test_threshold_digits_are_ascii_only():
    from pytest_ocr.cases.rules import ThresholdError, parse

    with pytest.raises(ThresholdError):
        parse("cer", "< \u0660.\u0665")  # Arabic-Indic digits
