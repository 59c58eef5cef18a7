"""A case that sets nothing it would inherit takes what the defaults give, built once per
file (cases/loader.py ``_cases``): it must be exactly what merging the case's own block
with the defaults gives, as for a case that sets something. Checked on the example suite
and on a suite where each case sets one inherited key (and one sets none)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import REPO

from pytest_ocr.cases import loader
from pytest_ocr.cases.model import INHERITED, Defaults, Scope
from pytest_ocr.media import document

PROJECT = Scope(Defaults().merged({"tags": ["project"], "normalize": "historic", "group": "p"}), {})
# the example suites whose cases are all written in them (a dataset's are built elsewhere)
EXAMPLES = sorted(p.name for p in (REPO / "example_suite").glob("*.ocr.yaml") if "dataset:" not in p.read_text("utf-8"))

SET_ONE_EACH = """\
defaults:
  engine: a
  thresholds: {wer: "< 0.5"}
  match: {total: numeric}
  regression: {cer: 0.01}
cases:
  - {id: plain, image: i.png, expected: {text: x, fields: {total: "1"}}}
  - {id: engine, image: i.png, expected: {text: x}, engine: [b, c]}
  - {id: thresholds, image: i.png, expected: {text: x}, thresholds: {cer: null, fca: "> 0.5"}}
  - {id: normalize, image: i.png, expected: {text: x}, normalize: {casefold: true}}
  - {id: tags, image: ../up/i.png, expected: {text_file: t.txt}, tags: [t]}
  - {id: cer_denominator, image: i.png, expected: {text: x}, cer_denominator: max}
  - {id: empty_reference_value, image: i.png, expected: {text: x}, empty_reference_value: errors}
  - {id: metrics, image: i.png, expected: {text: x}, metrics: [bow_error]}
  - {id: group, image: i.png, expected: {text: x}, group: g}
  - {id: match, image: i.png, expected: {text: x, fields: {date: "2020-01-02"}}, match: {date: {type: date}}}
  - {id: extract, image: i.png, expected: {text: x, fields: {a: b}}, extract: {fields: {a: 'a(.)'}}}
  - {id: tokens, image: i.png, expected: {text: x}, tokens: {encoding: cl100k_base}}
  - {id: regression, image: i.png, expected: {text: x}, regression: {wer: "10%"}}
  - {id: min_confidence, image: i.png, expected: {text: x}, min_confidence: 0.5}
  - {id: repeat, image: i.png, expected: {text: x}, repeat: 3}
  - {id: repeat_judge, image: i.png, expected: {text: x}, repeat_judge: worst}
  - {id: dpi, image: i.pdf, expected: {text: x}, dpi: 150}
"""


def merged_one_by_one(path: Path) -> dict[str, object]:
    """Each case of ``path`` built from its own block merged with the defaults."""
    path = path.resolve()
    doc = document.load(path)
    defaults = PROJECT.defaults.merged(doc.data.get("defaults", {}))
    built = {}
    for raw, keypath in loader._entries(doc.data, path):
        settings = loader._settings(defaults.merged(raw))
        built[raw["id"]] = loader._case(raw, keypath, settings, os.path.dirname(path), doc)
    return built


def written(tmp_path: Path) -> Path:
    path = tmp_path / "suite" / "each.ocr.yaml"
    path.parent.mkdir()
    path.write_text(SET_ONE_EACH, encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["each", *EXAMPLES])
def test_cases_that_set_nothing_get_what_merging_gives(tmp_path: Path, name: str) -> None:
    path = written(tmp_path) if name == "each" else REPO / "example_suite" / name
    cases, _ = loader.load_cases(path, PROJECT)
    expected = merged_one_by_one(path)
    assert cases and {case.id: case for case in cases} == expected
    if name == "each":  # a case for each key a case inherits
        assert set(expected) == {"plain", *INHERITED}
