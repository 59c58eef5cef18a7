"""Key fields: flattening nested fields to key paths, per-field matchers, field F1
and completeness.

Fields compare as strings. Nested mappings and lists become dotted key paths
(``seller.name``, ``items.0.total``), so an invoice's line items are scored field by
field. A key that itself contains a dot cannot be told apart from nesting.

Empty cases follow the token metrics: with nothing extracted, precision is 1.0 when
nothing was expected and 0.0 otherwise; with nothing expected, recall is 1.0 when
nothing was extracted and 0.0 otherwise; F1 is 0.0 when precision and recall are
both 0. Completeness with nothing required is 1.0.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import ClassVar

from rapidfuzz.distance import Levenshtein

from ..errors import did_you_mean

# -- key paths ---------------------------------------------------------------------------


def scalar_text(value: object) -> str:
    """A field value as text, without inventing digits: YAML ``150.0`` stays "150.0"
    (Python's shortest round-trip float form), booleans are "true"/"false" as written
    in YAML and JSON, a null is "", dates (YAML parses ``2024-03-15`` as one) are ISO."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return str(value)


def _walk(fields: Mapping | list | tuple) -> Iterator[tuple[str, object, bool]]:
    """(key path, value, is a container) for every node below the top, depth first in
    document order. Iterative: an engine's output may nest as deep as JSON allows."""
    stack = [("", _items(fields))]
    while stack:
        prefix, items = stack[-1]
        entry = next(items, None)
        if entry is None:
            stack.pop()
            continue
        key, value = entry
        path = f"{prefix}{key}"
        if isinstance(value, (Mapping, list, tuple)):
            yield path, value, True
            stack.append((path + ".", _items(value)))
        else:
            yield path, value, False


def _items(node: Mapping | list | tuple) -> Iterator[tuple[object, object]]:
    return iter(node.items() if isinstance(node, Mapping) else enumerate(node))


def _check_container(fields: object, what: str) -> None:
    if not isinstance(fields, (Mapping, list, tuple)):
        raise TypeError(f"{what} must be a mapping or a list, not {type(fields).__name__}")


def flatten(fields: Mapping | list | tuple) -> dict[str, str]:
    """Leaf key paths -> values as text. Empty mappings and lists have no leaves."""
    _check_container(fields, "fields")
    return {path: scalar_text(value) for path, value, container in _walk(fields) if not container}


def key_paths(fields: Mapping | list | tuple) -> set[str]:
    """Every key path present, containers included (``seller`` and ``seller.name``)."""
    _check_container(fields, "fields")
    return {path for path, _, _ in _walk(fields)}


# -- matchers ----------------------------------------------------------------------------


def caseless(text: str) -> str:
    """Unicode canonical caseless form: NFC-normalised case folding, so a decomposed
    "é" matches a precomposed one as it does in the text metrics' default profile."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", text).casefold())


class Matcher:
    """Decides whether an extracted value counts as the expected one."""

    name: ClassVar[str]
    options: ClassVar[tuple[str, ...]] = ()

    def __call__(self, expected: str, extracted: str) -> bool:
        raise NotImplementedError

    def unreadable(self, value: str) -> str | None:
        """Why the matcher cannot read ``value`` (a number, a date), or None."""
        return None

    def describe(self) -> str | dict:
        """The matcher as a case file would spell it, defaults included."""
        if not self.options:
            return self.name
        return {"type": self.name, **{o: _plain(getattr(self, o)) for o in self.options}}


def _plain(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value


@dataclass(frozen=True)
class Exact(Matcher):
    name: ClassVar[str] = "exact"

    def __call__(self, expected: str, extracted: str) -> bool:
        return expected.strip() == extracted.strip()


@dataclass(frozen=True)
class Casefold(Matcher):
    name: ClassVar[str] = "casefold"

    def __call__(self, expected: str, extracted: str) -> bool:
        return caseless(expected.strip()) == caseless(extracted.strip())


_SIGNS = {"+": "", "-": "-", "\u2212": "-"}  # U+2212 is the typographic minus
_APOSTROPHES = "'\u2019"  # Swiss thousands separators: 1'500.00
# A currency in letters at either end of an amount: RM (ringgit), EUR, Rs., zł, Kč
_CURRENCY_LETTERS = re.compile(r"^\s*[^\W\d_]{1,4}\.?|[^\W\d_]{1,4}\.?\s*$")


@dataclass(frozen=True)
class Numeric(Matcher):
    """Equal as decimal numbers. Whitespace, currency symbols (Unicode category Sc), a
    currency written in letters before or after the amount ("RM8.35", "12,50 EUR", "Rs.
    100") and thousands separators are ignored; thousands separators must group by three,
    so "1,5" is no number with ``decimal: "."`` rather than a silent 15."""

    name: ClassVar[str] = "numeric"
    options: ClassVar[tuple[str, ...]] = ("decimal",)
    decimal: str = "."

    def __post_init__(self) -> None:
        if self.decimal not in (".", ","):
            raise ValueError(f'decimal must be "." or ",", not {self.decimal!r}')

    def number(self, text: str) -> Decimal | None:
        """The value as a Decimal, or None when it is not a number."""
        thousands = "," if self.decimal == "." else "."
        kept = "".join(
            c for c in _CURRENCY_LETTERS.sub("", text) if not c.isspace() and unicodedata.category(c) != "Sc"
        )
        for apostrophe in _APOSTROPHES:
            kept = kept.replace(apostrophe, thousands)
        sign = ""
        if kept[:1] in _SIGNS:
            sign, kept = _SIGNS[kept[0]], kept[1:]
        t, d = re.escape(thousands), re.escape(self.decimal)
        if not re.fullmatch(rf"(?:\d{{1,3}}(?:{t}\d{{3}})+|\d+)(?:{d}\d+)?|{d}\d+", kept, re.ASCII):
            return None
        try:
            return Decimal(sign + kept.replace(thousands, "").replace(self.decimal, "."))
        except InvalidOperation:  # pragma: no cover - the pattern admits only decimal literals
            return None

    def unreadable(self, value: str) -> str | None:
        return None if self.number(value) is not None else f"not a number with decimal {self.decimal!r}"

    def __call__(self, expected: str, extracted: str) -> bool:
        if expected.strip() == extracted.strip():  # the same string is the same value, read or not
            return True
        a, b = self.number(expected), self.number(extracted)
        return a is not None and b is not None and a == b


ISO_DATE = "%Y-%m-%d"


@dataclass(frozen=True)
class Date(Matcher):
    """Equal as dates (or date-times): each value is parsed with the first of
    ``formats`` that fits, ISO ``%Y-%m-%d`` always tried last."""

    name: ClassVar[str] = "date"
    options: ClassVar[tuple[str, ...]] = ("formats",)
    formats: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        formats = self.formats
        if isinstance(formats, str) or not isinstance(formats, (list, tuple)):
            raise ValueError(f"formats must be a list of strptime formats, not {formats!r}")
        for f in formats:
            if not isinstance(f, str) or "%" not in f:
                raise ValueError(f'formats: {f!r} is not a strptime format (e.g. "%d/%m/%Y")')
        object.__setattr__(self, "formats", tuple(formats))

    def parse(self, text: str) -> dt.datetime | None:
        text = text.strip()
        for f in (*self.formats, ISO_DATE):
            try:
                return dt.datetime.strptime(text, f)
            except ValueError:
                continue
        return None

    def unreadable(self, value: str) -> str | None:
        if self.parse(value) is not None:
            return None
        return f"not a date in the formats {', '.join((*self.formats, ISO_DATE))}"

    def __call__(self, expected: str, extracted: str) -> bool:
        if expected.strip() == extracted.strip():  # the same string is the same date, read or not
            return True
        a, b = self.parse(expected), self.parse(extracted)
        return a is not None and b is not None and a == b


@dataclass(frozen=True)
class Fuzzy(Matcher):
    """Close enough: the character error rate of the extracted value against the
    expected one, both case-folded with whitespace collapsed, is at most ``max_cer``
    (compared exactly, so 1 error in 10 characters matches at max_cer 0.1)."""

    name: ClassVar[str] = "fuzzy"
    options: ClassVar[tuple[str, ...]] = ("max_cer",)
    max_cer: float = 0.1

    def __post_init__(self) -> None:
        if isinstance(self.max_cer, bool) or not isinstance(self.max_cer, (int, float)) or not 0 <= self.max_cer <= 1:
            raise ValueError(f"max_cer must be a number from 0 to 1, not {self.max_cer!r}")

    def cer(self, expected: str, extracted: str) -> Fraction:
        a, b = (caseless(" ".join(s.split())) for s in (expected, extracted))
        distance = Levenshtein.distance(a, b)
        if not a:  # the empty-reference policy of the text metrics
            return Fraction(0 if distance == 0 else 1)
        return Fraction(distance, len(a))

    def __call__(self, expected: str, extracted: str) -> bool:
        # Fraction(str(x)) is the decimal the user wrote, not its binary approximation.
        limit = Fraction(str(self.max_cer))
        a, b = (caseless(" ".join(s.split())) for s in (expected, extracted))
        if not a:
            return self.cer(expected, extracted) <= limit
        # distance / len(a) <= limit  <=>  distance <= floor(limit * len(a)); with that
        # cutoff rapidfuzz stops early (a huge extracted value costs its length, not
        # its length times the expected one's).
        cutoff = math.floor(limit * len(a))
        return Levenshtein.distance(a, b, score_cutoff=cutoff) <= cutoff


MATCHERS: dict[str, type[Matcher]] = {m.name: m for m in (Exact, Casefold, Numeric, Date, Fuzzy)}
DEFAULT_MATCHER = Casefold()


def parse_matcher(spec: object) -> Matcher:
    """A matcher from its case-file spelling: a name (``numeric``) or a mapping with
    ``type`` and the type's options (``{type: fuzzy, max_cer: 0.2}``)."""
    if isinstance(spec, Matcher):
        return spec
    if isinstance(spec, str):
        name, options = spec, {}
    elif isinstance(spec, Mapping):
        if "type" not in spec:
            raise ValueError(f"a matcher mapping needs a 'type' (one of {', '.join(MATCHERS)}), got {dict(spec)!r}")
        name, options = spec["type"], {k: v for k, v in spec.items() if k != "type"}
    else:
        raise ValueError(f"a matcher is a name or a mapping with 'type', not {type(spec).__name__} {spec!r}")
    if not isinstance(name, str) or name not in MATCHERS:
        raise ValueError(f"unknown matcher {name!r}{did_you_mean(name, MATCHERS)}; known: {', '.join(MATCHERS)}")
    cls = MATCHERS[name]
    unknown = sorted(set(options) - set(cls.options), key=str)
    if unknown:
        known = ", ".join(cls.options) or "none"
        raise ValueError(f"unknown option(s) {', '.join(map(str, unknown))} for matcher {name!r}; known: {known}")
    try:
        return cls(**options)
    except ValueError as e:
        raise ValueError(f"matcher {name!r}: {e}") from None


def parse_field_match(field_match: Mapping | None) -> dict[str, Matcher]:
    """Key path -> matcher for a case's ``field_match``; errors name the key."""
    if field_match is None:
        return {}
    if not isinstance(field_match, Mapping):
        raise ValueError(f"field_match must be a mapping of key path -> matcher, not {type(field_match).__name__}")
    matchers = {}
    for key, spec in field_match.items():
        try:
            matchers[str(key)] = parse_matcher(spec)
        except ValueError as e:
            raise ValueError(f"{key}: {e}") from None
    return matchers


# -- scores --------------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldScores:
    """One extraction compared field by field. Key path lists are in expected-field
    order; extras are sorted."""

    correct: list[str]
    missing: list[str]
    incorrect: list[str]
    extra: list[str]
    mismatches: dict[str, dict] = field(default_factory=dict)  # incorrect key -> expected, extracted, match
    extracted_count: int = 0
    warnings: list[str] = field(default_factory=list)  # values a field's matcher could not read

    @property
    def counts(self) -> dict[str, int]:
        return {
            "correct": len(self.correct),
            "extracted": self.extracted_count,
            "expected": len(self.correct) + len(self.missing) + len(self.incorrect),
        }

    @property
    def precision(self) -> float:
        return precision(self.counts)

    @property
    def recall(self) -> float:
        return recall(self.counts)

    @property
    def f1(self) -> float:
        return f1(self.counts)

    def details(self) -> dict:
        return {
            "correct_fields": self.correct,
            "missing_fields": self.missing,
            "incorrect_fields": self.incorrect,
            "extra_fields": self.extra,
            "mismatches": self.mismatches,
            "warnings": self.warnings,
        }


def field_scores(expected: Mapping | list, extracted: object, field_match: Mapping | None = None) -> FieldScores:
    """Compare extracted fields with the expected ones, key path by key path.

    ``extracted`` is untrusted engine output: None, or anything that is not a mapping
    or a list, means nothing could be extracted. ``field_match`` maps key paths to
    matchers (or their specs); keys it names that are not expected are ignored, so
    one ``field_match`` can serve a case's fields and its extraction task.
    """
    want = flatten(expected)
    got = flatten(extracted) if isinstance(extracted, (Mapping, list, tuple)) else {}
    matchers = parse_field_match(field_match)
    correct, missing, incorrect, mismatches, warnings = [], [], [], {}, []
    for key, value in want.items():
        matcher = matchers.get(key, DEFAULT_MATCHER)
        if (why := matcher.unreadable(value)) is not None:  # a case-file mistake, said whatever was extracted
            warnings.append(f"field {key!r}: expected value {value!r} is {why}")
        if key not in got:
            missing.append(key)
            continue
        if matcher(value, got[key]):
            correct.append(key)
        else:
            incorrect.append(key)
            mismatches[key] = {"expected": value, "extracted": got[key], "match": matcher.describe()}
            if (why := matcher.unreadable(got[key])) is not None:
                warnings.append(f"field {key!r}: extracted value {got[key]!r} is {why}")
    extra = sorted(set(got) - set(want))
    return FieldScores(correct, missing, incorrect, extra, mismatches, extracted_count=len(got), warnings=warnings)


def precision(counts: Mapping) -> float:
    if counts["extracted"]:
        return counts["correct"] / counts["extracted"]
    return 1.0 if counts["expected"] == 0 else 0.0


def recall(counts: Mapping) -> float:
    if counts["expected"]:
        return counts["correct"] / counts["expected"]
    return 1.0 if counts["extracted"] == 0 else 0.0


def f1(counts: Mapping) -> float:
    p, r = precision(counts), recall(counts)
    return 2 * p * r / (p + r) if p + r else 0.0


# -- completeness --------------------------------------------------------------------------


def _allows_object(schema: Mapping) -> bool:
    kind = schema.get("type", "object")
    return kind == "object" or (isinstance(kind, list) and "object" in kind)


def schema_required_paths(schema: object, prefix: str = "") -> list[str]:
    """Key paths a JSON Schema requires: its top-level ``required``, and recursively the
    ``required`` of each required property that is an object schema with its own.
    ``$ref``, ``allOf`` and array items are not followed."""
    if not isinstance(schema, Mapping):
        return []
    paths = []
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        properties = {}
    for name in schema.get("required") or ():
        path = f"{prefix}{name}"
        paths.append(path)
        sub = properties.get(name)
        if isinstance(sub, Mapping) and sub.get("required") and _allows_object(sub):
            paths.extend(schema_required_paths(sub, path + "."))
    return paths


@dataclass(frozen=True)
class Completeness:
    present: list[str]
    absent: list[str]
    source: str  # "schema" or "fields": where the required key paths came from

    @property
    def counts(self) -> dict[str, int]:
        return {"present": len(self.present), "required": len(self.present) + len(self.absent)}

    def details(self) -> dict:
        return {"required_from": self.source, "present_fields": self.present, "absent_fields": self.absent}


def completeness(extracted: object, schema: object = None, expected: Mapping | list | None = None) -> Completeness:
    """Required key paths present among the extracted ones (a present key with a null
    value counts, as for JSON Schema's ``required``). Required paths come from the
    schema when there is one, else from the expected fields' leaf key paths."""
    if schema is not None:
        required, source = schema_required_paths(schema), "schema"
    elif expected is not None:
        required, source = list(flatten(expected)), "fields"
    else:
        raise ValueError("field completeness needs a schema or expected fields")
    have = key_paths(extracted) if isinstance(extracted, (Mapping, list, tuple)) else set()
    return Completeness(
        present=[p for p in required if p in have], absent=[p for p in required if p not in have], source=source
    )


def completeness_value(counts: Mapping) -> float:
    return counts["present"] / counts["required"] if counts["required"] else 1.0
