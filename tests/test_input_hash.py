"""An item's input hash (cases/inputs.py): it moves with what the item's verdict depends on
besides the engine (the image's bytes, a PDF's page and dpi, the case as scored) and with
nothing else (where the case is written, its tags and group). The example suite's cases as
the loader reads them; ``history flaky`` and ``history item`` over real runs are in
tests/test_history_inputs.py."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import REPO

from pytest_ocr.cases import loader
from pytest_ocr.cases.inputs import input_hash, read_inputs
from pytest_ocr.cases.model import Case, Defaults, Scope
from pytest_ocr.cases.rules import Threshold
from pytest_ocr.engines.cache import file_sha256

PROJECT = Scope(Defaults(), {})


def _case(file: str, case_id: str) -> Case:
    cases, _ = loader.load_cases(REPO / "example_suite" / file, PROJECT)
    return next(c for c in cases if c.id == case_id)


@pytest.fixture(scope="module")
def receipt() -> Case:
    return _case("receipts.ocr.yaml", "sroie-359")


def test_the_same_inputs_give_the_same_hash_each_time(receipt: Case) -> None:
    again = _case("receipts.ocr.yaml", "sroie-359")
    image = file_sha256(receipt.image)
    first = input_hash(receipt, read_inputs(receipt), image)
    assert first == input_hash(again, read_inputs(again), file_sha256(again.image))
    assert len(first) == 16 and int(first, 16) >= 0


def test_where_a_case_is_written_and_how_it_is_tagged_do_not_move_it(receipt: Case) -> None:
    inputs, image = read_inputs(receipt), file_sha256(receipt.image)
    moved = dataclasses.replace(
        receipt, file=REPO / "elsewhere.ocr.yaml", line=receipt.line + 7, tags=("new",), group="g", source="x:1"
    )
    assert input_hash(moved, inputs, image) == input_hash(receipt, inputs, image)


def test_what_the_verdict_depends_on_moves_it(receipt: Case) -> None:
    inputs, image = read_inputs(receipt), file_sha256(receipt.image)
    base = input_hash(receipt, inputs, image)
    assert inputs.reference
    changed = {
        "the image's bytes": input_hash(
            receipt, inputs, file_sha256(REPO / "example_suite/data/receipts/sroie_395.jpg")
        ),
        "the ground truth": input_hash(receipt, dataclasses.replace(inputs, reference=inputs.reference[:-1]), image),
        "the expected fields": input_hash(receipt, dataclasses.replace(inputs, fields={"total": "0"}), image),
        "a threshold": input_hash(
            dataclasses.replace(receipt, thresholds=(*receipt.thresholds[:-1], Threshold("cer", "<", 0.5))),
            inputs,
            image,
        ),
        "the normalisation": input_hash(
            dataclasses.replace(
                receipt,
                normalization=dataclasses.replace(receipt.normalization, casefold=not receipt.normalization.casefold),
            ),
            inputs,
            image,
        ),
        "the metrics": input_hash(dataclasses.replace(receipt, metrics=(*receipt.metrics, "wer")), inputs, image),
        "a stored engine's (no image)": input_hash(receipt, inputs, None),
    }
    assert all(value != base for value in changed.values()), changed
    assert len(set(changed.values())) == len(changed)


def test_a_pdf_cases_page_and_dpi_move_it() -> None:
    case = _case("documents.ocr.yaml", "multi-column-article")
    assert case.pdf_page is not None
    inputs, image = read_inputs(case), file_sha256(case.image)
    hashes = {
        input_hash(case, inputs, image),
        input_hash(dataclasses.replace(case, page=2), inputs, image),
        input_hash(dataclasses.replace(case, dpi=(case.dpi or 300) + 50), inputs, image),
    }
    assert len(hashes) == 3
