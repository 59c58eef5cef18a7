"""TEDS and TEDS-Struct (pytest_ocr/metrics/teds.py, the metrics ``teds`` and ``teds_struct``).

The oracle is table-recognition-metric 0.0.6 (RapidAI's packaging of PubTabNet's
``src/metric.py``: its HTML-to-tree code, its ``CustomConfig`` costs and its APTED call,
run here as it ships). Its own score divides by the trees' sizes, where PubTabNet's code
divides by the elements under ``<table>`` (``len(table.xpath(".//*"))``); ``pubtabnet``
below takes the oracle's distance and PubTabNet's count, which is how PubTabNet's
published values (its demo notebook and batch example) come out. Tables given to the
oracle use ``<td>`` only: PubTabNet's code reads ``<th>`` as a structural node, ours as a
cell (``test_th_is_read_as_td`` pins that on its own). Other expected values are hand
counts, given in the comments.
"""

from __future__ import annotations

import html
import json
import math
import time
from pathlib import Path

import pytest
from apted import APTED
from conftest import PROPERTY, load_report, run
from hypothesis import given
from hypothesis import strategies as st
from lxml import html as lxml_html
from markdown_it import MarkdownIt
from table_recognition_metric import TEDS
from table_recognition_metric.utils import CustomConfig

from pytest_ocr.metrics import DEFAULT_METRICS, METRICS, RAW, pooled, profile, score
from pytest_ocr.metrics import teds as teds_module
from pytest_ocr.metrics.teds import MAX_TABLE_NODES, find_tables, page_teds, teds


def pubtabnet(reference: str, hypothesis: str, structure_only: bool = False) -> float:
    """PubTabNet's TEDS of two HTML documents, computed by the oracle's own parts: its
    tree of each ``body/table``, APTED with its ``CustomConfig``, over PubTabNet's count."""
    oracle = TEDS(structure_only=structure_only)
    parser = lxml_html.HTMLParser(remove_comments=True, encoding="utf-8")
    true = lxml_html.fromstring(reference, parser=parser).xpath("body/table")[0]
    pred = lxml_html.fromstring(hypothesis, parser=parser).xpath("body/table")[0]
    tree_true, tree_pred = oracle.load_html_tree(true), oracle.load_html_tree(pred)
    distance = APTED(tree_pred, tree_true, CustomConfig()).compute_edit_distance()
    # The oracle's own score is the same distance over its trees' sizes.
    assert oracle(hypothesis, reference) == pytest.approx(1 - distance / max(tree_pred.size(), tree_true.size()))
    nodes = max(len(true.xpath(".//*")), len(pred.xpath(".//*")))
    if nodes == 0:  # two bare <table></table>: PubTabNet's code divides by zero; nothing differs
        assert distance == 0
        return 1.0
    return 1.0 - distance / nodes


def document(table: str) -> str:
    return f"<html><body>{table}</body></html>"


# -- generated tables ------------------------------------------------------------------------------

# Cell text from a small alphabet (so that tables share cells), with markup inside some cells.
cell_text = st.text(alphabet="ab12 é中.", max_size=4)
cells = st.tuples(
    cell_text,
    st.sampled_from(["", "b", "sup"]),  # markup around the text, if any
    st.sampled_from([None, 1, 2, 3]),  # colspan
    st.sampled_from([None, 1, 2]),  # rowspan
)
rows = st.lists(st.lists(cells, min_size=0, max_size=4), min_size=0, max_size=5)


def render_cell(cell: tuple) -> str:
    text, markup, colspan, rowspan = cell
    attributes = "".join(f' {name}="{value}"' for name, value in (("colspan", colspan), ("rowspan", rowspan)) if value)
    content = html.escape(text)
    if markup:
        content = f"<{markup}>{content}</{markup}>"
    return f"<td{attributes}>{content}</td>"


def render_table(table: tuple) -> str:
    head, body, sections = table
    rendered = ["".join(f"<tr>{''.join(map(render_cell, row))}</tr>" for row in part) for part in (head, body)]
    if sections:
        return f"<table><thead>{rendered[0]}</thead><tbody>{rendered[1]}</tbody></table>"
    return f"<table>{rendered[0]}{rendered[1]}</table>"


tables = st.tuples(rows, rows, st.booleans())


@st.composite
def table_pairs(draw):
    """A reference table and a hypothesis: another table, or the reference edited (rows or
    cells dropped, text, markup or spans changed), so that distances are small and large."""
    reference = draw(tables)
    if draw(st.booleans()):
        return reference, draw(tables)
    head, body, sections = reference
    edited = []
    for part in (head, body):
        new_rows = []
        for row in part:
            if draw(st.integers(0, 5)) == 0:
                continue  # row dropped
            new_row = []
            for cell in row:
                edit = draw(st.integers(0, 7))
                if edit == 0:
                    continue  # cell dropped
                if edit == 1:
                    cell = (draw(cell_text), *cell[1:])
                elif edit == 2:
                    cell = (cell[0], draw(st.sampled_from(["", "b", "sup"])), *cell[2:])
                elif edit == 3:
                    cell = (*cell[:2], draw(st.sampled_from([None, 1, 2, 3])), cell[3])
                new_row.append(cell)
            new_rows.append(new_row)
        edited.append(new_rows)
    return reference, (edited[0], edited[1], draw(st.booleans()) if draw(st.booleans()) else sections)


# -- 1. against the oracle ------------------------------------------------------------------------


def test_the_oracle_gives_pubtabnets_value_of_a_hand_counted_pair():
    # Reference: thead(tr(td "Name")) tbody(tr(td "12", td)) -> 7 elements under <table>;
    # the hypothesis reads "13" (1 edit of 2 characters: 0.5) and lost the empty cell (1).
    reference = document(
        "<table><thead><tr><td>Name</td></tr></thead><tbody><tr><td>12</td><td></td></tr></tbody></table>"
    )
    hypothesis = document("<table><thead><tr><td>Name</td></tr></thead><tbody><tr><td>13</td></tr></tbody></table>")
    expected = 1 - 1.5 / 7
    assert pubtabnet(reference, hypothesis) == pytest.approx(expected, abs=1e-12)
    assert page_teds(reference, hypothesis).value == pytest.approx(expected, abs=1e-12)
    assert pubtabnet(reference, hypothesis, structure_only=True) == pytest.approx(1 - 1 / 7, abs=1e-12)
    assert page_teds(reference, hypothesis, structure_only=True).value == pytest.approx(1 - 1 / 7, abs=1e-12)


def test_markup_inside_cells_is_counted_and_tokenized_as_pubtabnet_does():
    # <b> inside a cell: one more element under <table> (the count), and the cell's
    # content is ["<b>", "x", "</b>", "y"] against ["x", "y"]: 2 edits of 4 -> 0.5.
    reference = document("<table><tr><td><b>x</b>y</td></tr></table>")
    hypothesis = document("<table><tr><td>xy</td></tr></table>")
    assert pubtabnet(reference, hypothesis) == pytest.approx(1 - 0.5 / 3, abs=1e-12)
    assert page_teds(reference, hypothesis).value == pytest.approx(1 - 0.5 / 3, abs=1e-12)


def wrapped(table: str, depth: int) -> str:
    """``table`` as the one cell of a table, that one the cell of another, ``depth`` times."""
    for _ in range(depth):
        table = f"<table><tr><td>{table}</td></tr></table>"
    return table


@pytest.mark.parametrize("depth", [1, 20, 100, 200])
def test_a_table_nested_in_a_cell_is_that_cells_content_on_both_sides_of_the_ratio(depth):
    # PubTabNet's tree reads a cell as a leaf: a table inside it is part of its content
    # (tokens), not nodes. Its code still counted the nested elements (xpath .//*): a 1-cell
    # table of garbage wrapped in 100 tables scored 0.98 against a 2 x 2 table. The oracle
    # (dividing by its trees' sizes) scores the garbage wrapped as unwrapped: 1 - 5/7
    # (trees of 7 and 3 nodes: 4 deleted, the cell renamed at cost 1); PubTabNet's count of
    # the reference is 6 elements: 1 - 5/6, and 1 - 4/6 for the structure alone.
    reference = document("<table><tr><td>1</td><td>2</td></tr><tr><td>3</td><td>4</td></tr></table>")
    plain = document("<table><tr><td>garbage</td></tr></table>")
    nested = document(wrapped("<table><tr><td>garbage</td></tr></table>", depth))
    oracle = TEDS()
    assert oracle(plain, reference) == oracle(nested, reference) == pytest.approx(1 - 5 / 7, abs=1e-12)
    assert pubtabnet(reference, plain) == pytest.approx(1 - 5 / 6, abs=1e-12)
    for ours in (page_teds(reference, plain), page_teds(reference, nested)):
        assert (ours.distance, ours.nodes) == (5.0, 6)
        assert ours.value == pytest.approx(1 - 5 / 6, abs=1e-12)
    assert page_teds(reference, nested, structure_only=True).value == pytest.approx(1 - 4 / 6, abs=1e-12)
    # The same nested tables on both sides are equal; a character read otherwise 20 tables
    # deep (libxml2 reads no text beyond 255 levels) costs what the oracle's tokens say (its
    # distance: its value's shortfall over its trees' 3 nodes), over the outer table's 2 elements.
    assert page_teds(nested, nested).value == 1.0
    deep = document(wrapped("<table><tr><td>garbage</td></tr></table>", 20))
    changed = deep.replace("garbage", "garbagf")
    distance = (1 - oracle(changed, deep)) * 3
    assert 0 < distance < 1
    assert page_teds(deep, changed).nodes == 2
    assert page_teds(deep, changed).distance == pytest.approx(distance, abs=1e-12)


@pytest.mark.slow
@PROPERTY
@given(table_pairs())
def test_generated_html_tables_agree_with_the_oracle(pair):
    reference, hypothesis = (document(render_table(t)) for t in pair)
    for structure_only in (False, True):
        ours = page_teds(reference, hypothesis, structure_only=structure_only)
        assert ours.reference_tables == ours.hypothesis_tables == 1
        assert ours.value == pytest.approx(pubtabnet(reference, hypothesis, structure_only), abs=1e-9)


def markdown(rows_: list[list[str]]) -> str:
    header, *body = rows_
    width = len(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    return "\n".join(lines)


markdown_cell = st.text(alphabet="ab12é中*", min_size=1, max_size=4)
markdown_rows = st.integers(1, 4).flatmap(
    lambda width: st.lists(st.lists(markdown_cell, min_size=width, max_size=width), min_size=1, max_size=5)
)


@pytest.mark.slow
@PROPERTY
@given(markdown_rows, markdown_rows)
def test_markdown_tables_agree_with_the_oracle_on_their_html(reference_rows, hypothesis_rows):
    # markdown-it-py renders each table; the oracle gets that HTML with <th> written <td>.
    reference, hypothesis = markdown(reference_rows), markdown(hypothesis_rows)
    renderer = MarkdownIt("commonmark").enable("table")
    as_html = [
        document(renderer.render(t).replace("<th>", "<td>").replace("</th>", "</td>")) for t in (reference, hypothesis)
    ]
    for structure_only in (False, True):
        expected = pubtabnet(*as_html, structure_only=structure_only)
        assert page_teds(reference, hypothesis, structure_only=structure_only).value == pytest.approx(
            expected, abs=1e-9
        )


def test_th_is_read_as_td():
    with_th = (
        "<table><thead><tr><th>Item</th><th>Qty</th></tr></thead><tbody><tr><td>A</td><td>1</td></tr></tbody></table>"
    )
    with_td = with_th.replace("<th>", "<td>").replace("</th>", "</td>")
    assert page_teds(with_th, with_td).value == 1.0
    # The header's text counts: "Item" -> "Iten" is 1 edit of 4; thead, tr, 2 th, tbody, tr, 2 td: 8 nodes.
    assert page_teds(with_th, with_td.replace("Item", "Iten")).value == pytest.approx(1 - 0.25 / 8)
    assert page_teds(with_th, with_td.replace("Item", "Iten"), structure_only=True).value == 1.0


# -- 2. Markdown and HTML --------------------------------------------------------------------------

MARKDOWN_PAGE = """Invoice 2024-17

| Item | Qty | Price |
|------|----:|------:|
| Apple | 12 | 3.50 |
| Pear | 7 | 12.80 |

Thank you.
"""

# The same table in HTML, as a person would write it: indented, on several lines.
HTML_PAGE = """Invoice 2024-17

<table>
  <thead>
    <tr><th>Item</th><th>Qty</th><th>Price</th></tr>
  </thead>
  <tbody>
    <tr><td>Apple</td><td>12</td><td>3.50</td></tr>
    <tr><td>Pear</td><td>7</td><td>12.80</td></tr>
  </tbody>
</table>

Thank you.
"""

# thead, tr, 3 th, tbody, 2 tr, 6 td
NODES = 14


def values(reference: str, hypothesis: str, **options) -> tuple[float, float]:
    results = score(reference, hypothesis, ["teds", "teds_struct"], **options)
    return results["teds"].value, results["teds_struct"].value


def test_a_markdown_table_and_the_same_html_table_score_one():
    assert values(MARKDOWN_PAGE, HTML_PAGE) == (1.0, 1.0)
    assert values(HTML_PAGE, MARKDOWN_PAGE) == (1.0, 1.0)
    assert teds(MARKDOWN_PAGE, HTML_PAGE) == 1.0


def test_a_swapped_digit_lowers_teds_but_not_teds_struct():
    # "12.80" -> "12.08": 2 edits of 5 characters in one cell.
    swapped = HTML_PAGE.replace("12.80", "12.08")
    assert values(MARKDOWN_PAGE, swapped) == (pytest.approx(1 - 0.4 / NODES), 1.0)


def test_a_dropped_column_lowers_both():
    # The Price column gone: 3 cells deleted, the others unchanged.
    dropped = (
        MARKDOWN_PAGE.replace(" Price |", "").replace("------:|", "").replace(" 3.50 |", "").replace(" 12.80 |", "")
    )
    assert dropped.count("|") == MARKDOWN_PAGE.count("|") - 4 * 1
    full, struct = values(HTML_PAGE, dropped)
    assert full == struct == pytest.approx(1 - 3 / NODES)


def test_pretty_printed_html_cells_equal_the_same_cells_on_one_line():
    # The case's normalisation (by default whitespace collapsed) applies to cell text;
    # without it ("none") the line breaks and indentation inside the cell count.
    one_line = "<table><tr><td>Total due</td></tr></table>"
    pretty = "<table>\n  <tr>\n    <td>\n      Total   due\n    </td>\n  </tr>\n</table>"
    assert values(one_line, pretty) == (1.0, 1.0)
    raw, struct = values(one_line, pretty, normalize=RAW)
    assert raw < 1.0 and struct == 1.0
    assert page_teds(one_line, pretty).value == raw  # the library function: text as written


def test_the_case_normalisation_applies_to_cell_text():
    reference = "| Name |\n|---|\n| Straße |"
    assert values(reference, reference.replace("Straße", "STRASSE"))[0] < 1.0
    assert values(reference, reference.replace("Straße", "STRASSE"), normalize=profile("default", casefold=True)) == (
        1.0,
        1.0,
    )


# -- pages with several tables, or none --------------------------------------------------------------

TABLE_A = "| a | b |\n|---|---|\n| 1 | 2 |"  # thead, tr, 2 th, tbody, tr, 2 td: 8 nodes
TABLE_B = "<table><tr><td>x</td></tr></table>"  # tr, td: 2 nodes


def test_tables_pair_in_order_and_an_unpaired_table_costs_its_nodes():
    page = f"Text\n\n{TABLE_A}\n\nMore text\n\n{TABLE_B}\n"
    assert [(t.markup, t.line) for t in find_tables(page)] == [("markdown", 3), ("html", 9)]
    assert values(page, page) == (1.0, 1.0)
    # The hypothesis has table B alone: it pairs with the reference's first table, A (the
    # oracle's distance, over A's 8 nodes), and the reference's B is left over: 2 nodes, 2 lost.
    only_b = page_teds(page, TABLE_B)
    a_html = find_tables(page)[0].html.replace("<th>", "<td>").replace("</th>", "</td>")
    a_against_b = (1 - pubtabnet(document(a_html), document(TABLE_B))) * 8
    assert only_b.value == pytest.approx(1 - (a_against_b + 2) / (8 + 2), abs=1e-12)
    assert [(p.reference, p.hypothesis, p.nodes) for p in only_b.pairs] == [(0, 0, 8), (1, None, 2)]
    # The same tables in the other order: each pair differs.
    assert page_teds(page, f"{TABLE_B}\n\n{TABLE_A}\n").value < 1.0


def test_a_page_without_tables_on_either_side_scores_one_with_zero_counts():
    for reference, hypothesis in [("", ""), ("", "x"), ("plain text", "other text"), ("a | b", "c")]:
        r = score(reference, hypothesis, ["teds"])["teds"]
        assert r.value == 1.0 and r.counts == {"distance": 0.0, "nodes": 0}
        assert r.details["empty_reference"] is True and r.details["tables"] == []


def test_tables_on_one_side_only_score_zero():
    for reference, hypothesis in [(TABLE_A, "plain text"), ("plain text", TABLE_A), (TABLE_B, "")]:
        assert values(reference, hypothesis) == (0.0, 0.0)
    r = score("", TABLE_A, ["teds"])["teds"]
    assert r.details["empty_reference"] is True and r.counts == {"distance": 8.0, "nodes": 8}


def test_a_perfect_table_beats_a_garbled_one():
    garbled = MARKDOWN_PAGE.replace("Apple", "Appel").replace("| 7 |", "| 1 |")
    for name in ("teds", "teds_struct"):
        perfect = score(MARKDOWN_PAGE, MARKDOWN_PAGE, [name])[name].value
        worse = score(MARKDOWN_PAGE, garbled.replace("| Pear | 1 | 12.80 |\n", ""), [name])[name].value
        assert perfect == 1.0 and METRICS[name].improved(worse, perfect)


def test_where_tables_are_found():
    # Fenced as markdown, md or unlabelled: found (vision LLMs fence their answers); in a
    # fence of another language: code, not a table. HTML tables in comments are not tables.
    for fence in ("```markdown", "```md", "```"):
        assert [t.markup for t in find_tables(f"{fence}\n{TABLE_A}\n```\n")] == ["markdown"]
    assert find_tables(f"```python\n{TABLE_A}\n```\n") == []
    assert find_tables(f"<!-- {TABLE_B} -->") == []
    assert find_tables(f"<script>var t = '{TABLE_B}';</script>") == []
    # Inside a quote or a list item; and an HTML table inside another is part of it.
    assert len(find_tables("> " + TABLE_A.replace("\n", "\n> "))) == 1
    assert len(find_tables("- item\n\n  " + TABLE_A.replace("\n", "\n  "))) == 1
    nested = "<table><tr><td><table><tr><td>x</td></tr></table></td></tr></table>"
    assert [t.source for t in find_tables(f"a {nested} b")] == [nested]
    # A table left open runs to the end of the text, as in a browser.
    assert find_tables("<table><tr><td>x")[0].source == "<table><tr><td>x"


def test_hostile_text_is_scored_without_error():
    for text in ["<table><tr><td>a\ud800b\x00c</td></tr></table>", "<table/>", "<table", "| a |\n|---|\n| \x00 |"]:
        r = score(text, text + " ", ["teds", "teds_struct"])
        for result in r.values():
            assert math.isfinite(result.value)


# -- 3. through the registry --------------------------------------------------------------------------


def test_the_registry_records_counts_whose_formula_is_the_value():
    swapped = HTML_PAGE.replace("12.80", "12.08")
    r = score(MARKDOWN_PAGE, swapped, ["teds"])["teds"]
    assert r.counts == {"distance": pytest.approx(0.4), "nodes": NODES}
    assert r.value == METRICS["teds"].from_counts(r.counts) == pytest.approx(1 - 0.4 / NODES)
    assert r.details["unit"] == "node" and r.details["reference_tables"] == r.details["hypothesis_tables"] == 1
    assert r.details["tables"] == [
        {
            "reference_line": 3,
            "hypothesis_line": 3,
            "distance": pytest.approx(0.4),
            "nodes": NODES,
            "teds": r.value,
            "compared": True,
        }
    ]
    assert "teds" not in DEFAULT_METRICS  # computed when asked for, by name or threshold


def test_the_micro_average_of_two_cases_is_one_minus_summed_distance_over_summed_nodes():
    one = score(MARKDOWN_PAGE, HTML_PAGE.replace("12.80", "12.08"), ["teds"])["teds"]  # 0.4 of 14
    dropped = "| Item | Qty |\n|---|---|\n| Apple | 12 |\n| Pear | 7 |"  # 3 cells fewer
    two = score(MARKDOWN_PAGE, dropped, ["teds"])["teds"]
    assert two.counts == {"distance": 3.0, "nodes": NODES}
    summed = {key: one.counts[key] + two.counts[key] for key in one.counts}
    assert pooled("teds", summed) == pytest.approx(1 - (0.4 + 3) / (NODES + NODES))
    # A page without tables adds nothing to the micro average.
    none = score("no table", "none here", ["teds"])["teds"]
    assert pooled("teds", {key: summed[key] + none.counts[key] for key in summed}) == pooled("teds", summed)


# -- 4. the bound -------------------------------------------------------------------------------------


def huge_markdown_table(rows: int) -> str:
    return "| n | square |\n|---|---|\n" + "\n".join(f"| {i} | {i * i} |" for i in range(rows))


@pytest.mark.slow
def test_a_huge_table_is_not_compared_quickly_and_counts_as_all_wrong():
    # 1,000 rows of 2 cells: a tree of 3,006 nodes, beyond the default 2,000 (APTED would
    # take minutes). The pair costs all its nodes, counted from the Markdown tokens (thead,
    # tr, 2 th, tbody, 1,000 tr, 2,000 td: 3,005), and the item is told why.
    table = huge_markdown_table(1_000)
    start = time.process_time()
    r = score(table, table.replace("7", "1"), ["teds", "teds_struct"])
    assert time.process_time() - start < 10
    why = (
        "TEDS: the reference's table at line 1 has more than 2,000 nodes (max_table_nodes); "
        "that pair is not compared and counts as all wrong"
    )
    for result in r.values():
        assert result.value == 0.0 and result.counts == {"distance": 3_005.0, "nodes": 3_005}
        assert result.details["warnings"] == result.details["not_compared"]
        assert result.details["not_compared"] == [why, why.replace("reference", "hypothesis")]
        assert result.details["tables"][0]["compared"] is False
    # A small table on the same page is still compared; unpaired tables are never compared,
    # so a huge one costs its nodes without a warning.
    page = f"{TABLE_A}\n\ntext\n\n{table}"
    assert page_teds(page, f"{TABLE_A}\n\ntext\n\n{table}").value == pytest.approx(8 / (8 + 3_005))
    html_table = "<table>" + "<tr><td>1</td></tr>" * 50_000 + "</table>"  # 100,000 nodes
    start = time.process_time()
    unpaired = page_teds(TABLE_B, f"{TABLE_B}\n{html_table}")
    assert (unpaired.value, unpaired.not_compared) == (1 - 100_000 / (2 + 100_000), ())
    assert time.process_time() - start < 10


@pytest.mark.slow
def test_a_table_of_megabytes_is_read_no_further_than_the_bound():
    # 200,000 rows (4 MB): markdown-it-py would take 8 s and 600 MB to read it whole.
    table = huge_markdown_table(200_000)
    start = time.process_time()
    found = find_tables(table)
    assert time.process_time() - start < 5
    # Read up to 2,002 rows: thead, tr, 2 th, tbody, 2,002 tr, 4,004 td.
    assert len(found) == 1 and found[0].cut and found[0].size == 6_009
    assert page_teds(table, table).not_compared == (
        "TEDS: the reference's table at line 1 has more than 2,000 nodes (max_table_nodes); "
        "that pair is not compared and counts as all wrong",
        "TEDS: the hypothesis's table at line 1 has more than 2,000 nodes (max_table_nodes); "
        "that pair is not compared and counts as all wrong",
    )


def test_the_node_bound_is_on_the_tree_and_inclusive():
    # TABLE_A's tree: table, thead, tr, 2 th, tbody, tr, 2 td = 9 nodes.
    assert page_teds(TABLE_A, TABLE_A, max_nodes=9).value == 1.0
    beyond = page_teds(TABLE_A, TABLE_A, max_nodes=8)
    assert beyond.value == 0.0 and beyond.not_compared[0].startswith(
        "TEDS: the reference's table at line 1 has more than 8 nodes (max_table_nodes)"
    )
    html_a = "<table><thead><tr><td>a</td><td>b</td></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table>"
    assert page_teds(html_a, html_a, max_nodes=9).value == 1.0
    assert page_teds(html_a, html_a, max_nodes=8).value == 0.0
    assert MAX_TABLE_NODES == teds_module.max_table_nodes(None) == 2_000


def test_the_cell_text_bound():
    table = "| a |\n|---|\n| " + "x" * 100 + " |"  # 101 units of cell text
    assert page_teds(table, table, max_cell_text=101).value == 1.0
    beyond = page_teds(table, table, max_cell_text=100)
    assert beyond.value == 0.0
    assert beyond.not_compared[0] == (
        "TEDS: the reference's table at line 1 has 101 units of cell text, more than 100 (max_align_chars); "
        "that pair is not compared and counts as all wrong"
    )
    # Structure alone has no cell text to compare.
    assert page_teds(table, table, structure_only=True, max_cell_text=100).value == 1.0


# -- through the plugin ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_cases_threshold_teds_and_the_run_pools_its_counts(suite):
    # The engine reads each image's side-car text: the HTML table with "12.80" read as
    # "12.08" (0.4 of 14 nodes) and the Markdown table without its Price column (3 of 14).
    suite.image("swapped.tif", HTML_PAGE.replace("12.80", "12.08"))
    dropped = (
        MARKDOWN_PAGE.replace(" Price |", "").replace("------:|", "").replace(" 3.50 |", "").replace(" 12.80 |", "")
    )
    suite.image("dropped.tif", dropped)
    expected = json.dumps(MARKDOWN_PAGE)  # YAML reads a JSON string
    suite.write(
        "tables.ocr.yaml",
        f"""
cases:
  - id: swapped
    image: swapped.tif
    expected: {{text: {expected}}}
    thresholds: {{teds: ">= 0.9"}}
    metrics: [teds_struct]
  - id: dropped
    image: dropped.tif
    expected: {{text: {expected}}}
    thresholds: {{teds: ">= 0.9"}}
""",
    )
    result = run(suite, "--ocr-report", "report.json")
    result.assert_outcomes(passed=1, failed=1)
    assert f"teds = {1 - 3 / NODES:.4f}, expected >= 0.9: FAILED" in result.stdout.str()
    report = load_report(suite)
    records = {r["id"].split("::")[1].split("[")[0]: r for r in report["results"]}
    assert records["swapped"]["metrics"]["teds"] == pytest.approx(1 - 0.4 / NODES)
    assert records["swapped"]["metrics"]["teds_struct"] == 1.0
    assert records["dropped"]["details"]["teds"]["counts"] == {"distance": 3.0, "nodes": NODES}
    summary = report["summary"]["fake"]["metrics"]["teds"]
    assert summary["micro"] == pytest.approx(1 - (0.4 + 3) / (2 * NODES))
    assert summary["macro"] == pytest.approx((1 - 0.4 / NODES + 1 - 3 / NODES) / 2)


# -- PubTabNet's published values -------------------------------------------------------------

PUBTABNET = Path(__file__).parent / "data" / "pubtabnet"


@pytest.mark.slow
def test_the_values_pubtabnet_published():
    """The TEDS values PubTabNet's reference implementation printed in its demo notebook
    (src/demo.ipynb: one pair, and the batch of src/sample_pred.json against
    src/sample_gt.json), copied with the samples into tests/data/pubtabnet (SOURCES.md)."""
    published = json.loads((PUBTABNET / "published_values.json").read_text(encoding="utf-8"))
    demo = published["demo"]
    assert teds(demo["true"], demo["pred"]) == pytest.approx(demo["teds"], abs=1e-12)
    truth = json.loads((PUBTABNET / "sample_gt.json").read_text(encoding="utf-8"))
    predictions = json.loads((PUBTABNET / "sample_pred.json").read_text(encoding="utf-8"))
    assert len(published["batch"]) == 20
    ours = {name: teds(truth[name]["html"], predictions[name]) for name in published["batch"]}
    assert ours == pytest.approx(published["batch"], abs=1e-12)
