"""A plain YAML document is read by libyaml's composer in C (``document._plain_yaml``);
every other one, and every one with anything wrong, by the bounded composer
(``document._bounded_yaml``), which owns the messages. The fast path must give exactly
the data and lines of the bounded one, or leave the document to it: checked on a table of
valid and invalid documents, the files the project ships and random documents, many of
them broken."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from conftest import REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_ocr import limits
from pytest_ocr.media import document

PATH = Path("suite.ocr.yaml")

PLAIN = {
    "empty": "",
    "a comment": "# nothing here\n",
    "a scalar": "hello\n",
    "a list": "- a\n- b\n-\n  - c\n",
    "a mapping": "a: 1\nb: two\n",
    "keys above their values": "a:\n  b:\n\n    - 1\n    -\n      c: d\nlast:\n  x\n",
    "flow": "{a: [1, 2.5, true, null, ~, 0x1F, 0o17, 1_000, -.5e3], 'b c': {d: ''}}\n",
    "not finite": "a: [.inf, -.Inf, .nan]\n",  # refused after reading, by either path
    "core tags": "s: !!str 123\ni: !!int '7'\nf: !!float '1'\nn: !!null ''\nb: !!bool 'yes'\n",
    "yaml 1.1 scalars": "a: yes\nb: off\nc: 1:20\nd: 0b101\ne: 010\nf: '010'\n",
    "timestamps": "d: 2023-01-02\nt: 2001-12-14t21:59:43.10-05:00\n",
    "binary": "b: !!binary aGVsbG8=\n",
    "block scalars": "a: |\n  line 1\n  line 2\nb: >-\n  folded\n  text\nc: end\n",
    "quoted keys": "'a': 1\n\"b\\tc\": 2\n? d\n: 3\n",
    "markers": "%YAML 1.1\n---\na: 1\n...\n",
    "unicode": "wörter: ['ſtraße', \"\\u00e9\", 漢字]\n",
    "a case file": (REPO / "example_suite" / "receipts.ocr.yaml").read_text(encoding="utf-8"),
    "stars": "a: '(?m)^\\W*(\\w.*?)'\nb: x*y\n",
    "nested at the limit": "a: " + "[" * 99 + "]" * 99 + "\n",
}

NOT_PLAIN = {
    "an alias": "a: &x [1]\nb: *x\n",
    "an anchor": "a: &x 1\n",
    "an alias without its anchor": "a: *x\n",
    "a merge key": "<<: {a: 1}\nb: 2\n",
    "a duplicate key": "a: 1\nb: 2\na: 3\n",
    "a number key": "1: a\n",
    "a null key": "null: a\n",
    "a list key": "? [a]\n: b\n",
    "a mapping key": "? {a: 1}\n: b\n",
    "malformed flow": "a: [1, 2\n",
    "malformed block": "a: b: c\n",
    "a tab": "a:\n\t- b\n",
    "unterminated": "a: 'text\n",
    "two documents": "a: 1\n---\nb: 2\n",
    "an unknown tag": "a: !foo bar\n",
    "a python tag": "!!python/object/apply:os.system ['true']\n",
    "a set": "a: !!set {x, y}\n",
    "an omap": "a: !!omap [{b: 1}]\n",
    "a tagged mapping": "a: !!str {b: 1}\n",
    "a mapping tagged seq": "a: !!seq {b: 1}\n",
    "a list tagged map": "a: !!map [1]\n",
    "a date that is not": "d: 2023-02-30\n",
    "a huge integer": "n: " + "9" * 5000 + "\n",
    "bad base64": "b: !!binary 'a'\n",
    "too deep (flow)": "a: " + "[" * 101 + "]" * 101 + "\n",
    "too deep (block)": "".join("  " * i + f"k{i}:\n" for i in range(101)) + "  " * 101 + "v\n",
}


def slow(text: str) -> tuple[object, dict] | str:
    """What the bounded path gives: data and lines, or the message."""
    try:
        return document._bounded_yaml(text, PATH)
    except document.DocumentError as exc:
        return exc.render()


def assert_same(text: str) -> bool:
    """The fast path gives the bounded path's data (same types, same order) and lines, or
    leaves the document to it; True when it read the document."""
    fast = document._plain_yaml(text)
    if fast is None:
        return False
    expected = slow(text)
    assert not isinstance(expected, str), f"the fast path read a document the bounded one refuses: {expected}"
    assert repr(fast[0]) == repr(expected[0])
    assert fast[1] == expected[1]
    return True


@pytest.mark.parametrize("text", PLAIN.values(), ids=PLAIN.keys())
def test_a_plain_document_reads_the_same_both_ways(text: str) -> None:
    assert assert_same(text)


@pytest.mark.parametrize("text", NOT_PLAIN.values(), ids=NOT_PLAIN.keys())
def test_any_other_document_is_left_to_the_bounded_path(text: str) -> None:
    assert document._plain_yaml(text) is None


def test_the_shipped_yaml_files_read_the_same_both_ways() -> None:
    files = sorted([*REPO.glob("example_suite/**/*.y*ml"), *REPO.glob("tests/data/**/*.y*ml")])
    assert len(files) >= 6
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert assert_same(text) or "&" in text, path


@pytest.mark.slow
def test_the_nesting_limit_is_the_options_on_both_paths() -> None:
    previous = limits.active()
    deep = "a: " + "[" * 900 + "]" * 900 + "\n"
    beyond_libyaml = "a: " + "[" * 1100 + "]" * 1100 + "\n"
    try:
        limits.use(replace(previous, max_nesting=3))
        assert assert_same("a: {b: [1]}\n")
        assert document._plain_yaml("a: {b: {c: [1]}}\n") is None
        assert "nested more than 3 levels deep" in str(slow("a: {b: {c: [1]}}\n"))
        limits.use(replace(previous, max_nesting=2000))
        assert assert_same(deep)  # libyaml's composer recurses in C, within libyaml's own limit
        assert document._plain_yaml(beyond_libyaml) is None
        assert "the most libyaml reads" in str(slow(beyond_libyaml))
    finally:
        limits.use(previous)


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.sampled_from(["yes", "No", "~", "1e3", "0x1F", "2023-01-02", "12:30", "- a", "a: b", "#", "'", "*a", "&a"]),
)
KEYS = st.one_of(st.text(max_size=5), st.sampled_from(["<<", "1", "null", "true", "a"]), st.integers(0, 3))
DATA = st.recursive(
    SCALARS,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(KEYS, children, max_size=4)),
    max_leaves=25,
)
EDITS = st.lists(
    st.tuples(
        st.integers(0, 10_000), st.sampled_from(["", ":", "-", "[", "]", "{", "}", "'", '"', "\n", " ", "\t", "!!"])
    ),
    max_size=3,
)


def edited(text: str, edits: list[tuple[int, str]]) -> str:
    """``text`` with a character replaced by each edit (an empty one deletes it)."""
    for position, replacement in edits:
        if text:
            i = position % len(text)
            text = text[:i] + replacement + text[i + 1 :]
    return text


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DATA, st.sampled_from([None, True, False]), EDITS, st.integers(1, 6))
def test_random_documents_read_the_same_both_ways(data, flow_style, edits, max_nesting) -> None:
    text = edited(yaml.safe_dump(data, default_flow_style=flow_style, allow_unicode=True), edits)
    previous = limits.active()
    try:
        limits.use(replace(previous, max_nesting=max_nesting))
        assert_same(text)
    finally:
        limits.use(previous)
