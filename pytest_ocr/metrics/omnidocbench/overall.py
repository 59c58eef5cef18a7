"""OmniDocBench's Overall score, as its ``tools/generate_result_tables.ipynb`` (pichiu/OmniDocBench at commit
7bd6c2ebdb7676e6fd251b0e695e15e09cf3ab5d, Apache-2.0) computes it from a run's ``metric_result.json``.

port of the notebook's "overall result" cell: per engine, the text_block ``Edit_dist`` ``ALL_page_avg``, the
display_formula page split's CDM ``ALL`` × 100 and the table page split's TEDS ``ALL`` × 100 (0 when no page has
one: ``result[...]["page"].get(metric)`` is empty), each rounded to 3 decimals by pandas' ``DataFrame.round(3)``,
and only then ``overall = ((1 - text) * 100 + CDM + TEDS) / 3``. The rounding first is the notebook's: the Overall
of the unrounded values differs in its third decimal.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Overall:
    """The notebook's row: its three inputs as it rounds them, and the Overall computed from them."""

    text_edit: float  # text_block_Edit_dist: the text edit's ALL_page_avg
    cdm: float  # display_formula_CDM: 100 × the page split's CDM ALL
    teds: float  # table_TEDS: 100 × the page split's TEDS ALL
    overall: float


def pandas_round3(value: float) -> float:
    """``DataFrame.round(3)`` of a float: numpy's ``round(x, 3)``, which rounds ``x * 1000`` half to even and
    divides by 1000: 0.0785 gives 0.078, where Python's ``round(0.0785, 3)``, rounding the float's exact value,
    gives 0.079."""
    return round(value * 1000) / 1000


def overall(text_edit: float, cdm: float | None, teds: float | None) -> Overall:
    """The Overall of an engine's macros (odb_text_edit, odb_formula_cdm, odb_table_teds; None: no page has the
    element, 0 as the notebook takes it)."""
    text = pandas_round3(text_edit)
    formulas = pandas_round3((cdm or 0.0) * 100)
    tables = pandas_round3((teds or 0.0) * 100)
    return Overall(text, formulas, tables, ((1 - text) * 100 + formulas + tables) / 3)
