"""Text normalisation applied to both reference and hypothesis before scoring.

Steps run in a fixed order: Unicode normalisation, case folding, punctuation
removal, whitespace collapsing. The order matters: NFKC may produce characters
that case folding changes, and removing punctuation can leave double spaces.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from dataclasses import dataclass
from functools import cache

UNICODE_FORMS = ("NFC", "NFD", "NFKC", "NFKD", "none")

_WHITESPACE = re.compile(r"\s+")


@cache
def _punctuation_table() -> dict[int, None]:
    # Every code point in a Unicode punctuation category (P*). Built on first use:
    # scanning all of Unicode takes ~0.5 s, too much to pay on every import.
    return {cp: None for cp in range(sys.maxunicode + 1) if unicodedata.category(chr(cp)).startswith("P")}


@dataclass(frozen=True)
class Normalization:
    unicode: str = "NFC"
    collapse_whitespace: bool = True
    casefold: bool = False
    remove_punctuation: bool = False

    def __post_init__(self) -> None:
        if self.unicode not in UNICODE_FORMS:
            raise ValueError(f"unicode must be one of {', '.join(UNICODE_FORMS)}, not {self.unicode!r}")

    @classmethod
    def from_dict(cls, options: dict | None) -> Normalization:
        return cls(**(options or {}))

    def steps(self) -> list[str]:
        """The steps this normalisation applies, in order, as recorded in reports."""
        steps = []
        if self.unicode != "none":
            steps.append(self.unicode)
        if self.casefold:
            steps.append("casefold")
        if self.remove_punctuation:
            steps.append("remove_punctuation")
        if self.collapse_whitespace:
            steps.append("collapse_whitespace")
        return steps

    def __call__(self, text: str) -> str:
        if self.unicode != "none":
            text = unicodedata.normalize(self.unicode, text)
        if self.casefold:
            text = text.casefold()
            if self.unicode != "none":  # folding can undo composition ("ǰ" -> "j" + U+030C)
                text = unicodedata.normalize(self.unicode, text)
        if self.remove_punctuation:
            text = text.translate(_punctuation_table())
        if self.collapse_whitespace:
            text = _WHITESPACE.sub(" ", text).strip()
        return text


DEFAULT = Normalization()
RAW = Normalization(unicode="none", collapse_whitespace=False)
