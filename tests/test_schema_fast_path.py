"""Case files are told valid by jsonschema-rs and explained by jsonschema (cases/schema.py).
The fast path may only ever say "valid" where jsonschema finds nothing: checked on every
case file the project ships and on random mutations of them, many of them invalid."""

from __future__ import annotations

import copy

import pytest
import yaml
from conftest import REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_ocr.cases import schema

pytestmark = pytest.mark.slow

SHIPPED = sorted((REPO / "example_suite").glob("*.ocr.yaml"))
DOCUMENTS = [yaml.safe_load(path.read_text(encoding="utf-8")) for path in SHIPPED]

# values a mutation puts anywhere: every JSON type, strings jsonschema's and Rust's regex
# dialects might read differently (a final line break before $, Unicode spaces for \s)
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", "a", "abc\n", "a b", "< 0.05", "<\u00a00.05", "<\u20030.05\n", ">= 1e3", "x:y", "_a.b-c"]),
    st.text(max_size=6),
    st.lists(st.sampled_from(["a", "", "receipts", "tesseract", 1]), max_size=3),
    st.dictionaries(
        st.sampled_from(["text", "cer", "type", "path", "engine", "x"]), st.sampled_from(["a", 1]), max_size=2
    ),
)


def paths(value: object, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found += paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += paths(child, (*prefix, index))
    return found


@st.composite
def mutated(draw) -> object:
    document = copy.deepcopy(draw(st.sampled_from(DOCUMENTS)))
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(paths(document)))
        if not where:
            continue
        parent = document
        for step in where[:-1]:
            parent = parent[step]
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if action == "replace":
            parent[where[-1]] = draw(VALUES)
        elif action == "delete" and isinstance(parent, dict):
            del parent[where[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.sampled_from(["extra", "thresholds", "tags", "normalize", "id"]))] = draw(VALUES)
    return document


def jsonschema_finds_nothing(document: object) -> bool:
    return not any(True for _ in schema._validator(None).iter_errors(document))


def test_the_shipped_case_files_are_valid_both_ways():
    assert len(DOCUMENTS) >= 6
    for document in DOCUMENTS:
        assert schema._fast(None).is_valid(document) and jsonschema_finds_nothing(document)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_the_fast_path_never_calls_valid_what_jsonschema_rejects(document):
    if schema._fast(None).is_valid(document):
        assert jsonschema_finds_nothing(document)
