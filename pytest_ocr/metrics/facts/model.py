"""A fact as olmOCR-Bench writes it, validated when made, and the verdict of its check."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from .text import Span, normalize_text

FACT_TYPES = ("present", "absent", "order", "table", "baseline", "math")

# A math fact's check: (the fact, the output) -> (passed, reason). It gets the whole fact, not only its
# formula: ignore_dollar_delimited is a setting of each fact, which a callable bound once could not know.
MathChecker = Callable[["Fact", str], "tuple[bool, str]"]


class FactError(ValueError):
    """A fact that is not well formed; the message names the key (``"order: max_diffs 7 is more than ..."``)."""


@dataclass(frozen=True)
class Fact:
    """One olmOCR-Bench fact. The fields are olmOCR-Bench's, with its defaults; a field that does not apply to
    the fact's type keeps its default. Texts are kept as written: they are normalised when checked. A Fact is
    validated when made (FactError), as olmOCR-Bench validates its tests, and stricter about types."""

    id: str
    type: str
    # present / absent
    text: str | None = None
    case_sensitive: bool = True
    first_n: int | None = None  # only the first n characters of the normalised output (0: all)
    last_n: int | None = None  # only the last n characters (with first_n: both ends, concatenated)
    # order
    before: str | None = None
    after: str | None = None
    # table
    cell: str | None = None
    up: str = ""
    down: str = ""
    left: str = ""
    right: str = ""
    top_heading: str = ""
    left_heading: str = ""
    ignore_markdown_tables: bool = False
    # baseline
    max_length: int | None = None  # a blank page: at most this many alphanumeric characters (no other check)
    max_length_skips_image_alt_tags: bool = False
    max_repeats: int = 30
    check_disallowed_characters: bool = True
    # math
    math: str | None = None
    ignore_dollar_delimited: bool = False
    # all types (unused by baseline and math, as in olmOCR-Bench)
    max_diffs: int = 0
    # bookkeeping a report may group facts by (an olmOCR-Bench JSONL file's name: "table_tests", ...); unused here
    category: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.type, str) or self.type not in FACT_TYPES:
            raise FactError(f"type: unknown fact type {self.type!r}; expected one of {', '.join(FACT_TYPES)}")
        kind = self.type
        if not isinstance(self.id, str) or not self.id:
            raise FactError(f"{kind}: 'id' must be a non-empty string, not {self.id!r}")
        if self.category is not None and not isinstance(self.category, str):
            raise FactError(f"{kind}: 'category' must be a string, not {type(self.category).__name__}")
        for f in fields(self):
            name = f.name
            if name in ("id", "type", "category"):
                continue
            value = getattr(self, name)
            if name not in _KEYS[kind]:
                if value != f.default:
                    raise FactError(f"{kind}: '{name}' does not apply to a {kind} fact")
                continue
            if name in _REQUIRED[kind] and value is None:
                raise FactError(f"{kind}: missing '{name}'")
            _check_value(kind, name, value)
        if kind in ("present", "absent"):
            assert self.text is not None
            if not normalize_text(self.text).strip():
                raise FactError(f"{kind}: 'text' is empty")
        elif kind == "order":
            for name in ("before", "after"):
                normalized = normalize_text(getattr(self, name))
                if not normalized.strip():
                    raise FactError(f"order: '{name}' is empty")
                if self.max_diffs > len(normalized) // 2:
                    raise FactError(
                        f"order: max_diffs {self.max_diffs} is more than half of '{name}' "
                        f"({len(normalized)} characters)"
                    )
        elif kind == "math":
            assert self.math is not None
            if not self.math.strip():
                raise FactError("math: 'math' is empty")

    def to_dict(self) -> dict[str, Any]:
        """The fact as an olmOCR-Bench JSON object: id, type and the fields that differ from their defaults."""
        data: dict[str, Any] = {"id": self.id, "type": self.type}
        for f in fields(self):
            if (f.name in _KEYS[self.type] or f.name == "category") and getattr(self, f.name) != f.default:
                data[f.name] = getattr(self, f.name)
        return data


_PRESENCE_KEYS = ("text", "case_sensitive", "first_n", "last_n", "max_diffs")
_KEYS: dict[str, frozenset[str]] = {
    "present": frozenset(_PRESENCE_KEYS),
    "absent": frozenset(_PRESENCE_KEYS),
    "order": frozenset(("before", "after", "max_diffs")),
    "table": frozenset(
        ("cell", "up", "down", "left", "right", "top_heading", "left_heading", "ignore_markdown_tables", "max_diffs")
    ),
    "baseline": frozenset(
        ("max_length", "max_length_skips_image_alt_tags", "max_repeats", "check_disallowed_characters", "max_diffs")
    ),
    "math": frozenset(("math", "ignore_dollar_delimited", "max_diffs")),
}
_REQUIRED: dict[str, tuple[str, ...]] = {
    "present": ("text",),
    "absent": ("text",),
    "order": ("before", "after"),
    "table": ("cell",),
    "baseline": (),
    "math": ("math",),
}
_STRINGS = frozenset(
    ("text", "before", "after", "cell", "up", "down", "left", "right", "top_heading", "left_heading", "math")
)
_BOOLEANS = frozenset(
    (
        "case_sensitive",
        "ignore_markdown_tables",
        "max_length_skips_image_alt_tags",
        "check_disallowed_characters",
        "ignore_dollar_delimited",
    )
)
_COUNTS = frozenset(("first_n", "last_n", "max_length", "max_repeats", "max_diffs"))  # whole numbers >= 0
# Keys a null may stand for: the field's default (olmOCR-Bench treats a null heading as no heading).
_NULLABLE = frozenset(("first_n", "last_n", "max_length", "up", "down", "left", "right", "top_heading", "left_heading"))
# olmOCR-Bench's bookkeeping: where the fact comes from and whether a person checked it. Not used here (a
# category is kept on the Fact for reports).
_BOOKKEEPING = frozenset(("pdf", "page", "checked", "url"))


def _check_value(kind: str, name: str, value: Any) -> None:
    if name in _STRINGS:
        if not isinstance(value, str):
            raise FactError(f"{kind}: '{name}' must be a string, not {type(value).__name__}")
    elif name in _BOOLEANS:
        if not isinstance(value, bool):
            raise FactError(f"{kind}: '{name}' must be true or false, not {value!r}")
    elif name in _COUNTS:
        optional = name in ("first_n", "last_n", "max_length")
        if value is None and optional:
            return
        # A bool is an int to Python (and to olmOCR's max_diffs check); not a count here.
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise FactError(f"{kind}: '{name}' must be a whole number >= 0, not {value!r}")


def parse_fact(data: Mapping[str, Any], *, default_id: str | None = None) -> Fact:
    """A fact from one olmOCR-Bench JSONL object or one ``checks:`` entry of a case file.

    Accepts and ignores olmOCR-Bench's bookkeeping keys (pdf, page, checked, url; a category is kept on the fact
    for reports). ``default_id`` names a fact without an ``id`` (a case file's "check 3"). A null stands for the
    default of an optional field (first_n, last_n, max_length, the table's neighbours and headings). Raises
    FactError naming the key for an unknown key, a key of another type, a missing or ill-typed value, an empty
    text or a ``max_diffs`` olmOCR-Bench refuses."""
    if not isinstance(data, Mapping):
        raise FactError(f"a fact must be a mapping of keys to values, not {type(data).__name__}")
    if "type" not in data:
        raise FactError(f"type: missing; expected one of {', '.join(FACT_TYPES)}")
    kind = data["type"]
    if not isinstance(kind, str) or kind not in FACT_TYPES:
        raise FactError(f"type: unknown fact type {kind!r}; expected one of {', '.join(FACT_TYPES)}")
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key in _BOOKKEEPING or key in ("id", "type", "category"):
            continue
        if key not in _KEYS[kind]:
            if any(key in keys for keys in _KEYS.values()):
                raise FactError(f"{kind}: '{key}' does not apply to a {kind} fact")
            raise FactError(f"{kind}: unknown key {key!r}")
        if value is None and key in _NULLABLE:
            continue
        values[key] = value
    fact_id = data.get("id", default_id)
    if fact_id is None:
        raise FactError(f"{kind}: missing 'id'")
    return Fact(id=fact_id, type=kind, category=data.get("category"), **values)


@dataclass(frozen=True)
class FactVerdict:
    id: str
    type: str
    passed: bool
    reason: str  # "" when passed; otherwise one line
    # Where a failed check looked in the output: its nearest match, the matches out of order, the cell it
    # examined (empty when there is no one place, or the output is beyond LOCATE_MAX_CHARS).
    spans: tuple[Span, ...] = ()
