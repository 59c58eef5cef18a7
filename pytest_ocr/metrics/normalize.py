"""Text normalisation applied to both reference and hypothesis before scoring, and
the unit texts are counted in (code points or grapheme clusters).

Steps run in a fixed order: Unicode normalisation, the user's equivalences and the
profile's rules, case folding, punctuation removal, whitespace collapsing.
The order matters: NFKC may produce characters that case folding changes, and
removing punctuation can leave double spaces.

Profiles are named starting points; explicit options override them:

- ``default``: NFC, whitespace collapsed (what a case gets with no ``normalize:``)
- ``none``: the texts exactly as given
- ``ocrd``: NFC, counted in grapheme clusters (as the OCR-D specification and dinglehopper count)
- ``tibetan``: zero-width spaces removed, repeated tsheg collapsed, a tsheg before a shad dropped
- ``historic``: long s as s, r rotunda as r, Latin ligatures unjoined, combining small e over a/o/u as umlaut
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from functools import cache
from typing import Literal, cast

from . import graphemes

UNICODE_FORMS = ("NFC", "NFD", "NFKC", "NFKD", "none")
UnicodeForm = Literal["NFC", "NFD", "NFKC", "NFKD", "none"]
UNITS = ("codepoint", "grapheme")

# Rules of the profiles: (pattern, replacement), applied in order after the Unicode form.
_TSHEG, _SHAD = "\u0f0b", "\u0f0d"
_COMBINING_E = "\u0364"
PROFILE_RULES: dict[str, tuple[tuple[str, str], ...]] = {
    "tibetan": (
        ("\u200b", ""),  # zero-width space: invisible, engines differ in emitting it
        (f"{_TSHEG}{{2,}}", _TSHEG),  # a repeated tsheg is one
        (f"{_TSHEG}(?={_SHAD})", ""),  # tsheg before shad is a stylistic variant
    ),
    "historic": (
        ("ſ", "s"),
        ("ꝛ", "r"),
        ("ﬀ", "ff"), ("ﬁ", "fi"), ("ﬂ", "fl"), ("ﬃ", "ffi"), ("ﬄ", "ffl"), ("ﬅ", "st"), ("ﬆ", "st"),
        (f"a{_COMBINING_E}", "ä"), (f"o{_COMBINING_E}", "ö"), (f"u{_COMBINING_E}", "ü"),
        (f"A{_COMBINING_E}", "Ä"), (f"O{_COMBINING_E}", "Ö"), (f"U{_COMBINING_E}", "Ü"),
    ),
}  # fmt: skip

PROFILES: dict[str, dict] = {
    "default": {},
    "none": {"unicode": "none", "collapse_whitespace": False},
    "ocrd": {"unit": "grapheme"},
    "tibetan": {},
    "historic": {},
}


@cache
def _punctuation_table() -> dict[int, None]:
    # Every code point in a Unicode punctuation category (P*). Built on first use:
    # scanning all of Unicode takes ~0.5 s, too much to pay on every import.
    return {cp: None for cp in range(sys.maxunicode + 1) if unicodedata.category(chr(cp)).startswith("P")}


# A replacement rule: a pattern and what its matches become (a string or a function of the match).
Rule = tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]


@cache
def _rules(profile: str, equivalences: tuple[tuple[str, str], ...], form: UnicodeForm) -> tuple[Rule, ...]:
    """The replacements to run, in order: the user's equivalences first (their keys
    see the text before a profile rewrites it), then the profile's rules. Keys are put
    in the same Unicode form as the text, or an "ü" key would never match NFD text."""
    rules: list[Rule] = []
    if equivalences:

        def in_form(text: str) -> str:
            return text if form == "none" else unicodedata.normalize(form, text)

        # One alternation, longest key first, so "ſt" wins over "ſ" where both are given.
        table = {in_form(k): v for k, v in equivalences}
        alternation = "|".join(re.escape(k) for k in sorted(table, key=len, reverse=True))

        def replace(m: re.Match[str]) -> str:
            return table[m.group(0)]

        rules.append((re.compile(alternation), replace))
    rules += [(re.compile(pattern), replacement) for pattern, replacement in PROFILE_RULES.get(profile, ())]
    return tuple(rules)


@dataclass(frozen=True)
class Normalization:
    unicode: str = "NFC"
    collapse_whitespace: bool = True
    casefold: bool = False
    remove_punctuation: bool = False
    unit: str = "codepoint"
    profile: str = "default"
    equivalences: tuple[tuple[str, str], ...] = field(default=())

    def __post_init__(self) -> None:
        if self.unicode not in UNICODE_FORMS:
            raise ValueError(f"unicode must be one of {', '.join(UNICODE_FORMS)}, not {self.unicode!r}")
        if self.unit not in UNITS:
            raise ValueError(f"unit must be one of {', '.join(UNITS)}, not {self.unit!r}")
        if self.profile not in PROFILES:
            raise ValueError(f"profile must be one of {', '.join(PROFILES)}, not {self.profile!r}")
        if isinstance(self.equivalences, dict):  # accept the natural form too
            object.__setattr__(self, "equivalences", tuple(sorted(self.equivalences.items())))

    @classmethod
    def from_dict(cls, options: dict | str | None) -> Normalization:
        """From a case file's ``normalize:``: a profile name, or a mapping whose
        ``profile`` key (default ``default``) sets the starting point that the other
        keys override."""
        if isinstance(options, str):
            options = {"profile": options}
        options = dict(options or {})
        profile = options.get("profile", "default")
        if profile not in PROFILES:
            raise ValueError(f"profile must be one of {', '.join(PROFILES)}, not {profile!r}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ValueError(f"unknown normalisation option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        merged = {**PROFILES[profile], **options}
        if isinstance(merged.get("equivalences"), dict):
            merged["equivalences"] = tuple(sorted(merged["equivalences"].items()))
        return cls(**merged)

    def without_whitespace_collapse(self) -> Normalization:
        """The same normalisation keeping layout (line breaks, indentation), for line and layout metrics."""
        return Normalization(**{**{f.name: getattr(self, f.name) for f in fields(self)}, "collapse_whitespace": False})

    def steps(self) -> list[str]:
        """The steps this normalisation applies, in order, as recorded in reports."""
        steps = []
        if self.unicode != "none":
            steps.append(self.unicode)
        if self.equivalences:
            steps.append("equivalences:" + json.dumps(dict(self.equivalences), ensure_ascii=False, sort_keys=True))
        if PROFILE_RULES.get(self.profile):
            steps.append(f"profile:{self.profile}")
        if self.casefold:
            steps.append("casefold")
        if self.remove_punctuation:
            steps.append("remove_punctuation")
        if self.collapse_whitespace:
            steps.append("collapse_whitespace")
        return steps

    def __call__(self, text: str) -> str:
        form = cast(UnicodeForm, self.unicode)  # checked against UNICODE_FORMS in __post_init__
        if form != "none":
            text = unicodedata.normalize(form, text)
        rules = _rules(self.profile, self.equivalences, form)
        if rules:
            for pattern, replacement in rules:
                text = pattern.sub(replacement, text)
            if form != "none":  # a replacement may not be in the chosen form
                text = unicodedata.normalize(form, text)
        if self.casefold:
            text = text.casefold()
            if form != "none":  # folding can undo composition ("ǰ" -> "j" + U+030C)
                text = unicodedata.normalize(form, text)
        if self.remove_punctuation:
            text = text.translate(_punctuation_table())
        if self.collapse_whitespace:
            text = collapse_whitespace(text)
        return text

    def units(self, text: str) -> str | list[str]:
        """The sequence characters are counted in: the string itself (code points) or
        its extended grapheme clusters (UAX #29, Unicode 17.0.0)."""
        return text if self.unit == "codepoint" else graphemes.clusters(text)


def collapse_whitespace(text: str) -> str:
    """Whitespace runs (line breaks included) to one space, ends stripped.

    Most OCR text has spaces and line breaks only; a few replaces cost a third of a
    split into words and a join."""
    joined = text.replace("\n", " ")
    # Every whitespace character but the space is unprintable (Unicode Z* and Cc), so a
    # printable text has no other whitespace to collapse.
    if not joined.isprintable():
        return " ".join(text.split())
    while "  " in joined:  # each pass halves every run of spaces
        joined = joined.replace("  ", " ")
    return joined.strip(" ")


DEFAULT = Normalization()
RAW = Normalization.from_dict("none")


def profile(name: str, **overrides: object) -> Normalization:
    """A named profile, optionally with some options overridden."""
    return Normalization.from_dict({"profile": name, **overrides})
