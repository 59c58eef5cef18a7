"""Dataclasses as JSON data and back, read from their fields' types: the one codec of the
run record's parts (results, summaries, gates, shards, comparisons), so that a report
written and a report read back cannot drift apart field by field.

A dataclass that inherits ``Coded`` gets ``to_dict`` and ``from_dict``::

    @dataclass(frozen=True)
    class Move(Coded):
        metric: str
        old: float
        # written as people write a tolerance ("0.005", "10%"), not as its fields
        tolerance: Tolerance = field(default=EXACT, metadata=text(Tolerance.parse))
        spans: tuple[tuple[int, int], ...] = ()
        noise: Noise | None = None

    Move("cer", 0.1, spans=((0, 3),)).to_dict()
    # {"metric": "cer", "old": 0.1, "tolerance": "0", "spans": [[0, 3]], "noise": None}
    Move.from_dict({"metric": "cer", "old": 0.1, "tolerance": "0", "spans": [[0, 3]]})
    # Move("cer", 0.1, EXACT, ((0, 3),), None)

To JSON, each field (in the order declared) by its type: a dataclass by its own
``to_dict`` when it has one, else by its fields; tuples and lists as lists; a dict's
values each by its type; ``X | None`` as None or as X; an enum by its value; anything else
(str, int, float, bool, a Literal, Any) as it is. Values are not copied: the dict shares
the object's lists and dicts (the result travels and is written, never changed).

From JSON, the reverse (a dataclass by its own ``from_dict`` when it has one); a key that
is no field is ignored (values derived for readers, such as a verdict), and a field the
data does not have takes its default (reports written before it existed). A class whose
JSON adds values derived from its fields writes ``to_dict`` as ``{**encode(self), ...}``;
one whose JSON is not its fields keeps a hand-written pair. The fields' types are read with
``typing.get_type_hints``: the names they use must be imported at run time, not only under
``TYPE_CHECKING``.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

T = TypeVar("T")
Form = Callable[[Any], Any]
_FORM = "pytest_ocr.codec"  # the field metadata key of a field's own form


def form(to_json: Form, from_json: Form) -> Mapping[str, Any]:
    """Field metadata: the field is written by ``to_json`` and read by ``from_json`` (None stays None)."""
    return {_FORM: (to_json, from_json)}


def text(parse: Form) -> Mapping[str, Any]:
    """Field metadata: the field is written as its text (``str``) and read by ``parse``."""
    return form(str, parse)


class Coded:
    """``to_dict`` and ``from_dict`` by the dataclass's fields (see the module's docstring)."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        return encode(self)

    @classmethod
    def from_dict(cls: type[T], data: Mapping[str, Any]) -> T:
        return decode(cls, data)


# Per class and side (0: to JSON, 1: from JSON): its fields' names, in order, and the coder
# of each field whose value is not taken as it is; worked out once, at its first use.
_Plan = tuple[tuple[str, ...], tuple[tuple[str, Form], ...]]
_plans: tuple[dict[type, _Plan], dict[type, _Plan]] = ({}, {})
_TO, _FROM = 0, 1


def encode(obj: Any) -> dict[str, Any]:
    """A dataclass instance as JSON data, by its fields' types."""
    names, coded = _plans[_TO].get(type(obj)) or _plan(type(obj), _TO)
    data = {name: getattr(obj, name) for name in names}
    for name, code in coded:
        data[name] = code(data[name])
    return data


def decode(cls: type[T], data: Mapping[str, Any]) -> T:
    """A ``cls`` from JSON data (``encode``'s, or a report's), by its fields' types."""
    names, coded = _plans[_FROM].get(cls) or _plan(cls, _FROM)
    values = {name: data[name] for name in names if name in data}
    for name, code in coded:
        if name in values:
            values[name] = code(values[name])
    return cls(**values)


def _plan(cls: type, side: int) -> _Plan:
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls.__name__} is not a dataclass")
    try:
        hints = typing.get_type_hints(cls)
    except NameError as exc:  # a type imported only under TYPE_CHECKING
        raise TypeError(f"{cls.__name__}: its fields' types must be importable when it is coded: {exc}") from None
    names, coded = [], []
    for f in dataclasses.fields(cls):
        if not f.init and side == _FROM:
            continue
        names.append(f.name)
        own = f.metadata.get(_FORM)
        code = _optional(own[side]) if own is not None else _coder(hints[f.name], side)
        if code is not None:
            coded.append((f.name, code))
    _plans[side][cls] = (tuple(names), tuple(coded))
    return _plans[side][cls]


def _coder(tp: Any, side: int) -> Form | None:
    """How a value of type ``tp`` is written (_TO) or read (_FROM); None: as it is."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return _one_of(tp, [_coder(a, side) for a in args if a is not type(None)])
    if origin is tuple or tp is tuple:
        made = list if side == _TO else tuple
        items = _items(args, side)
        return (lambda v: made(items(i, x) for i, x in enumerate(v))) if items else made
    if origin is list or origin is dict:
        inner = _coder(args[-1], side) if args else None
        if inner is None:
            return None
        return (lambda v: [inner(x) for x in v]) if origin is list else (lambda v: {k: inner(x) for k, x in v.items()})
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if side == _TO:
            return getattr(tp, "to_dict", encode)
        return getattr(tp, "from_dict", None) or (lambda v: decode(tp, v))
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return (lambda v: v.value) if side == _TO else tp
    return None


def _optional(code: Form) -> Form:
    return lambda v: None if v is None else code(v)


def _one_of(tp: Any, codes: list[Form | None]) -> Form | None:
    """``X | None``: None as it is, else as X. Other unions are plain JSON values only."""
    if all(code is None for code in codes):
        return None
    if len(codes) > 1:
        raise TypeError(f"{tp}: a union of types that are not plain JSON values has no one form")
    return _optional(codes[0])  # type: ignore[arg-type]


def _items(args: tuple[Any, ...], side: int) -> Callable[[int, Any], Any] | None:
    """A tuple's items' coder by position (``tuple[int, str]``) or one for all (``tuple[int, ...]``);
    None when every item is as it is."""
    if len(args) == 2 and args[1] is Ellipsis:
        one = _coder(args[0], side)
        return None if one is None else lambda i, x: one(x)
    codes = [_coder(a, side) for a in args]
    if all(code is None for code in codes):
        return None
    return lambda i, x: x if codes[i] is None else codes[i](x)  # type: ignore[misc]
