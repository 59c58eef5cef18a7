"""Text normalisation applied to both reference and hypothesis before scoring, and
the unit texts are counted in (code points or grapheme clusters).

Steps run in a fixed order: the profile's markup (Markdown to its plain text), Unicode
normalisation, the user's equivalences and the profile's rules, case folding, punctuation
removal, whitespace (collapsed, trimmed at the ends of the text or of each line, or kept).
The order matters: markup is read as the engine wrote it (NFKC would turn a fullwidth
asterisk into emphasis), NFKC may produce characters that case folding changes, and
removing punctuation can leave double spaces.

Profiles are named starting points; explicit options override them:

- ``default``: NFC, whitespace collapsed (what a case gets with no ``normalize:``)
- ``none``: the texts exactly as given
- ``ocrd``: what dinglehopper does to a text file: NFC, its ligatures unjoined and
  equivalences substituted, each line's ends trimmed, counted in grapheme clusters
- ``tibetan``: zero-width spaces removed, repeated tsheg collapsed, a tsheg before a shad dropped
- ``historic``: long s as s, r rotunda as r, Latin ligatures unjoined, combining small e over a/o/u as umlaut
- ``markdown``: Markdown (as vision-language OCR engines write it) read as the plain text it shows, by
  ``markdown_text.markdown_text`` (the rules are that module's), then as ``default``
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
import warnings
from collections.abc import Callable, Iterable
from dataclasses import InitVar, dataclass, field, fields
from functools import cache, lru_cache
from typing import Literal, cast

from . import graphemes

UNICODE_FORMS = ("NFC", "NFD", "NFKC", "NFKD", "none")
UnicodeForm = Literal["NFC", "NFD", "NFKC", "NFKD", "none"]
UNITS = ("codepoint", "grapheme")

# Rules of the profiles: (pattern, replacement), applied in order after the Unicode form.
_TSHEG, _SHAD = "\u0f0b", "\u0f0d"
_COMBINING_E = "\u0364"
# dinglehopper's (qurator-spk/dinglehopper, src/dinglehopper/extracted_text.py, commit
# cd68a97): unjoin_ligatures, then substitute_equivalences, each key replaced in turn.
# Private-use code points are MUFI's and eMOP's.
_DINGLEHOPPER_LIGATURES = (
    ("\ueba6", "ſſ"),
    ("\ueba7", "ſſi"),
    ("\uf502", "ch"),
    ("\ueec4", "ck"),
    ("\uf4f9", "ll"),
    ("\ueba2", "ſi"),
    ("\ueada", "ſt"),
    ("ﬁ", "fi"),
    ("ﬀ", "ff"),
    ("ﬂ", "fl"),
    ("ﬃ", "ffi"),
    ("\ueec5", "ct"),
    ("\ueedc", "tz"),
    ("\uf532", "as"),
    ("\uf533", "is"),
    ("\uf534", "us"),
    ("\uf535", "Qu"),
    ("ĳ", "ij"),
    ("\ue8bf", "q&"),
    ("\ueba5", "ſp"),
    ("ﬆ", "st"),
)
_DINGLEHOPPER_EQUIVALENCES = (
    ("\ue72b", "ü"),
    ("\ue42c", "ä"),
    ("==", "–"),
    ("—", "–"),
    ("\ue644", "ö"),
    ("’", "'"),
    ("⸗", "-"),
    (f"a{_COMBINING_E}", "ä"),
    (f"o{_COMBINING_E}", "ö"),
    (f"u{_COMBINING_E}", "ü"),
    ("\uf50e", "q\u0301"),
)
PROFILE_RULES: dict[str, tuple[tuple[str, str], ...]] = {
    "ocrd": tuple((re.escape(key), value) for key, value in _DINGLEHOPPER_LIGATURES + _DINGLEHOPPER_EQUIVALENCES),
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
    "none": {"unicode": "none", "whitespace": "keep"},
    "ocrd": {"unit": "grapheme", "whitespace": "trim_lines"},
    "tibetan": {},
    "historic": {},
    "markdown": {},
}

# Profiles whose texts are markup: read as the text they show before any other step.
MARKUP_PROFILES = frozenset({"markdown"})


@lru_cache(maxsize=16)
def _markdown_text(text: str) -> str:
    # Imported on first use: most runs never read Markdown. Cached: a pair's texts are read again for
    # the line and layout metrics (keeping_layout), and a baseline's references often repeat.
    from .markdown_text import markdown_text

    return markdown_text(text)


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
    whitespace: str = "collapse"
    casefold: bool = False
    remove_punctuation: bool = False
    unit: str = "codepoint"
    profile: str = "default"
    equivalences: tuple[tuple[str, str], ...] = field(default=())
    # The keyword before 0.2 (whitespace= now): accepted with a DeprecationWarning until 0.3.
    collapse_whitespace: InitVar[bool | None] = None

    def __post_init__(self, collapse_whitespace: bool | None = None) -> None:
        if collapse_whitespace is not None:
            _deprecated_collapse_whitespace("Normalization", 4)  # the dataclass's __init__, then its caller
            whitespace = respelled({"collapse_whitespace": collapse_whitespace})["whitespace"]
            if self.whitespace not in ("collapse", whitespace):
                raise ValueError("give whitespace or collapse_whitespace (its older spelling), not both")
            object.__setattr__(self, "whitespace", whitespace)
        if self.unicode not in UNICODE_FORMS:
            raise ValueError(f"unicode must be one of {', '.join(UNICODE_FORMS)}, not {self.unicode!r}")
        for switch in ("casefold", "remove_punctuation"):
            if not isinstance(getattr(self, switch), bool):
                raise ValueError(f"{switch} must be true or false, not {getattr(self, switch)!r}")
        if self.whitespace not in WHITESPACE:
            raise ValueError(f"whitespace must be one of {', '.join(WHITESPACE)}, not {self.whitespace!r}")
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
        options = respelled(options or {})
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

    def keeping_layout(self) -> Normalization:
        """The same normalisation keeping layout (line breaks, indentation), for line and layout metrics."""
        return Normalization(**{**{f.name: getattr(self, f.name) for f in fields(self)}, "whitespace": "keep"})

    def for_lines(self) -> Normalization:
        """The normalisation of each line of a text that ``keeping_layout()`` has read: the same, less
        the markup step (a line of Markdown's plain text is not Markdown to read again)."""
        if self.profile not in MARKUP_PROFILES:
            return self
        return Normalization(**{**{f.name: getattr(self, f.name) for f in fields(self)}, "profile": "default"})

    def steps(self) -> list[str]:
        """The steps this normalisation applies, in order, as recorded in reports."""
        steps = []
        if self.profile in MARKUP_PROFILES:
            steps.append(f"profile:{self.profile}")
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
        done = WHITESPACE[self.whitespace]
        if done is not None:
            steps.append(done[0])
        return steps

    @classmethod
    def from_steps(cls, steps: Iterable[str] | None) -> Normalization | None:
        """The normalisation that ``steps()`` gave, as a report records it. Every option
        that changes the text is a step of its own, so the steps are enough; the unit is
        not among them, but it changes only how the text is counted, not the text. None
        when there are no steps, or a step this version does not know (a report from a
        newer pytest-ocr)."""
        if steps is None:
            return None
        options: dict[str, object] = {"unicode": "none", "whitespace": "keep"}
        for step in steps:
            name, _, value = step.partition(":")
            if step in UNICODE_FORMS:
                options["unicode"] = step
            elif name == "equivalences" and value:
                try:
                    table = json.loads(value)
                except ValueError:
                    return None
                if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
                    return None
                options["equivalences"] = table
            elif name == "profile" and value in PROFILES:
                options["profile"] = value
            elif step in ("casefold", "remove_punctuation"):
                options[step] = True
            elif step in _WHITESPACE_OF_STEP:
                options["whitespace"] = _WHITESPACE_OF_STEP[step]
            else:
                return None
        try:
            return cls.from_dict(options)
        except ValueError:
            return None

    def __call__(self, text: str) -> str:
        form = cast(UnicodeForm, self.unicode)  # checked against UNICODE_FORMS in __post_init__
        if self.profile == "markdown":
            text = _markdown_text(text)
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
        done = WHITESPACE[self.whitespace]
        if done is not None:
            text = done[1](text)
        return text

    def units(self, text: str) -> str | list[str]:
        """The sequence characters are counted in: the string itself (code points) or
        its extended grapheme clusters (UAX #29, Unicode 17.0.0)."""
        return text if self.unit == "codepoint" else graphemes.clusters(text)


def respelled(options: dict) -> dict:
    """Normalisation options with the older ``collapse_whitespace: true | false`` read as
    ``whitespace: collapse | keep``, so that it merges with ``whitespace`` key by key."""
    if "collapse_whitespace" not in options:
        return dict(options)
    options = dict(options)
    if "whitespace" in options:
        raise ValueError("give whitespace or collapse_whitespace (its older spelling), not both")
    collapse = options.pop("collapse_whitespace")
    if not isinstance(collapse, bool):
        raise ValueError(f"collapse_whitespace must be true or false, not {collapse!r}")
    options["whitespace"] = "collapse" if collapse else "keep"
    return options


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


def trim_lines(text: str) -> str:
    """Each line's ends stripped, as dinglehopper reads a text file (``line.strip()`` of
    each of ``readlines()``, joined by line breaks): a final line break ends the last line."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return "\n".join(line.strip() for line in lines)


@cache
def _isri_blanks() -> dict[int, str]:
    # What ocreval counts as a blank (src/text.c, is_blank): tab, vertical tab, form feed,
    # carriage return, no-break space and the separators (Zs, Zl, Zp); a line feed is a line
    # break. Built on first use, as the punctuation table.
    special = (0x09, 0x0B, 0x0C, 0x0D, 0xA0)
    separators = ("Zs", "Zl", "Zp")
    return {cp: " " for cp in range(sys.maxunicode + 1) if cp in special or unicodedata.category(chr(cp)) in separators}


def isri_spacing(text: str) -> str:
    """ocreval's compress_spacing (src/text.c): blanks to spaces, a run of them to one space,
    none at the start or end of a line, empty lines dropped; a line break ends every line
    that has text (the last one only if the text ends with one)."""
    lines = [" ".join(word for word in line.split(" ") if word) for line in text.translate(_isri_blanks()).split("\n")]
    return "".join(line + "\n" for line in lines[:-1] if line) + lines[-1]


# The whitespace options: the step a report records and what it does (None: nothing).
# collapse: runs (line breaks included) to one space, ends stripped; trim: the text's ends
# stripped (jiwer's CER); trim_lines: each line's ends stripped (dinglehopper reading a file);
# isri: runs within a line to one space, line ends stripped, empty lines dropped, line
# breaks kept (ocreval's accuracy program, ISRI's tools)
WHITESPACE: dict[str, tuple[str, Callable[[str], str]] | None] = {
    "collapse": ("collapse_whitespace", collapse_whitespace),
    "trim": ("trim", str.strip),
    "trim_lines": ("trim_lines", trim_lines),
    "isri": ("isri", isri_spacing),
    "keep": None,
}
_WHITESPACE_OF_STEP = {done[0]: mode for mode, done in WHITESPACE.items() if done is not None}  # from_steps

DEFAULT = Normalization()
RAW = Normalization.from_dict("none")


def _deprecated_collapse_whitespace(caller: str, stacklevel: int) -> None:
    """The warning points at the caller's line (``stacklevel`` frames up from here)."""
    warnings.warn(
        f"{caller}(collapse_whitespace=...) is now {caller}(whitespace='collapse' | 'keep' | 'trim' | 'trim_lines')",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


def profile(name: str, **overrides: object) -> Normalization:
    """A named profile, optionally with some options overridden."""
    if "collapse_whitespace" in overrides:
        _deprecated_collapse_whitespace("profile", 3)
    return Normalization.from_dict({"profile": name, **overrides})
