"""TEDS, Tree-Edit-Distance-based Similarity of tables (Zhong et al., "Image-based table
recognition: data, model, and evaluation", ECCV 2020), as PubTabNet's reference code
computes it (ibm-aur-nlp/PubTabNet, ``src/metric.py``, the one OmniDocBench uses).

One table pair
--------------
Each table is a tree: ``<table>`` at the root, the elements under it (``thead``, ``tbody``,
``tr``, ``td`` ...) as nodes; a cell is a leaf whose label is its tag, ``colspan``,
``rowspan`` and its content as a list of tokens: the characters of its text and, for
markup inside it, ``<b>`` and ``</b>`` tokens (PubTabNet's ``tokenize``). Inserting or
deleting a node costs 1; renaming one costs 1 when tag or spans differ, else for two
cells the normalised Levenshtein distance of their contents (0 for other nodes). APTED
(the ``apted`` package) finds the cheapest edit, and

    TEDS = 1 - distance / max(nodes of the reference, nodes of the hypothesis)

where a table's nodes are counted as PubTabNet counts them: the elements under
``<table>`` (``table.xpath(".//*")``), markup inside cells included (a cell loaded with
markup, a hundred ``<b>`` in it, so weighs more than it can cost: PubTabNet's
definition, which its published values need). ``structure_only`` (``teds_struct``)
compares cells by tag and spans alone. TEDS can fall below 0, as PubTabNet's formula can.

Three readings differ from PubTabNet's code, which never saw them in its own data:
``<th>`` is read as ``<td>`` (as OmniDocBench does before computing TEDS), so a header
cell's content counts and ``<th>`` against ``<td>`` costs nothing; cell text is
normalised as the caller says (``normalize``, applied to every piece of text in a cell:
the registry passes the case's normalisation, which by default collapses whitespace, so
a pretty-printed HTML cell equals the same cell on one line); and a table nested in a
cell is that cell's content on both sides of the ratio. PubTabNet's tree reads a cell as
a leaf, a table inside it as part of its content (tags and text, tokens compared with the
other cell's), and so do we; its code counts the nested table's elements all the same,
which made a 1-cell table of garbage wrapped in 100 tables score 0.98 against any table.
Here they are not counted: the garbage scores wrapped as unwrapped, as it does in
table-recognition-metric (PubTabNet's code dividing by its trees' sizes). With
``normalize=None`` and tables without ``<th>`` or nested tables the value is PubTabNet's.

A page
------
A page's tables are found in order of appearance: HTML tables as written, the outermost
``<table>`` elements wherever an HTML parser sees them (code fences included; not in
comments, nor in script, style, textarea or title text); and Markdown pipe tables (GFM),
which markdown-it-py parses and renders to HTML, including those in a quote, a list item
or a code fence labelled ``markdown``, ``md`` or not at all (vision LLMs fence their
answers; in a fence of another language they are code). The
i-th table of the reference is paired with the i-th table of the hypothesis, and

    page TEDS = 1 - sum(distances) / sum(nodes)

over the pairs, an unpaired table (one side has more tables) costing its own node count
(at least 1): that is, node-weighted, so a large table counts for more than a small one.
With one table a side it is the pair's TEDS. The counts add up across pages, so the micro
average of a run is the same formula over every page's tables.

No table on either side: nothing to compare, the value is 1.0 with zero counts (the
registry's rule for an empty reference and an empty hypothesis), so such a page adds
nothing to the micro average. Tables on one side only score 0.0.

The cost is bounded. APTED in pure Python takes about n^2.4 for two n-node tables (13 s
of CPU at 1,100 nodes, 50 s and 256 MB at 2,000), and the cells' Levenshtein distances
take the product of the two tables' text lengths. A pair with a table of more than
``max_table_nodes`` nodes in its tree (the root, sections, rows, cells and other elements
outside cells), or with more than ``max_cell_text`` units of cell text in a table, is not
compared: it costs all its nodes (the larger table's), as an unpaired table does, so the
value errs low, and ``PageTEDS.not_compared`` says why (the registry makes it the item's
warning). Such a table is counted, not read: a Markdown table from its tokens (sections,
rows and cells; markdown-it-py reads no more than ``max_table_nodes`` rows of it), an HTML
table from its elements.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

from apted import APTED, Config  # type: ignore[import-untyped]
from lxml import etree, html  # type: ignore[import-untyped]
from markdown_it import MarkdownIt
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from .. import limits
from .align import max_align_chars

MAX_TABLE_NODES = limits.DEFAULT.max_table_nodes  # nodes of a table's tree beyond which its pair is not compared
MARKDOWN_FENCES = ("", "markdown", "md")  # code fences whose Markdown tables count
FENCE_DEPTH = 2  # fences inside fences looked into, at most


def max_table_nodes(limit: int | None) -> int:
    """``limit``, or this process's bound on a table's nodes (``--ocr-max-table-nodes``) when it is None."""
    return limits.active().max_table_nodes if limit is None else limit


# -- finding a page's tables --------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """A table of a page: as written (HTML, or the Markdown table's lines), where it
    starts (0-based offset, 1-based line), what it is written in (``html`` or
    ``markdown``) and, for Markdown, the nodes of its tree (known before it is rendered) and
    whether it was cut: only its first rows were read, more than ``max_nodes`` of them."""

    source: str
    offset: int
    line: int
    markup: str
    size: int | None = None
    cut: bool = False

    @cached_property
    def html(self) -> str:
        """The table's HTML (a Markdown table rendered by markdown-it-py when first asked)."""
        return self.source if self.markup == "html" else _renderer().render(self.source)


def find_tables(text: str, max_nodes: int | None = None) -> list[Table]:
    """The tables of a page, in order of appearance (see the module's docstring). A
    Markdown table is read up to ``max_nodes`` rows (None: ``MAX_TABLE_NODES``): more makes
    it a table beyond the bound, whatever follows."""
    spans = _html_table_spans(text) if "<table" in text.lower() else []
    starts = _line_starts(text)
    tables = [Table(text[start:end], start, bisect_right(starts, start), "html") for start, end in spans]
    # Line breaks as markdown-it reads them, each character where it was: offsets and lines stay.
    masked = _masked(text, spans).replace("\r\n", " \n").replace("\r", "\n")
    if _may_have_pipe_table(masked):
        starts = _line_starts(masked)
        for line, source, size, cut in _markdown_tables(masked, 0, FENCE_DEPTH, max_table_nodes(max_nodes)):
            tables.append(Table(source, starts[line], line + 1, "markdown", size, cut))
    tables.sort(key=lambda t: t.offset)
    return tables


def _line_starts(text: str) -> list[int]:
    starts = [0]
    position = text.find("\n")
    while position != -1:
        starts.append(position + 1)
        position = text.find("\n", position + 1)
    return starts


# What an HTML tokenizer (and libxml2) makes of a text, as far as tables go: a comment and
# the raw text of script, style, textarea and title elements hide what looks like markup;
# a table's start tag, or its end tag. Each runs to the end of the text when left open.
_HTML_TABLE_TAGS = re.compile(
    r"<!--.*?(?:-->|\Z)"
    r"|<(script|style|textarea|title)(?=[\s/>]|\Z).*?(?:</\1\s*>|\Z)"
    r"|<(/?)table(?=[\s/>]|\Z)[^>]*>?",
    re.IGNORECASE | re.DOTALL,
)


def _html_table_spans(text: str) -> list[tuple[int, int]]:
    """Where the outermost ``<table>`` elements of a text start and end. A table left open
    runs to the end of the text, as in a browser; a stray ``</table>`` is ignored. HTML
    tags are found with a regular expression (HTML, not Markdown): a C-speed scan."""
    spans: list[tuple[int, int]] = []
    depth = start = 0
    for match in _HTML_TABLE_TAGS.finditer(text):
        closing = match.group(2)
        if closing is None:  # a comment or raw text
            continue
        if not closing:  # <table ...>, and <table/>, which opens a table in HTML
            if depth == 0:
                start = match.start()
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0:
                spans.append((start, match.end()))
    if depth:
        spans.append((start, len(text)))
    return spans


def _masked(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """The text with the HTML tables blanked out (line breaks kept, so offsets and lines
    stay), for the Markdown parser."""
    if not spans:
        return text
    parts, position = [], 0
    for start, end in spans:
        blank = "\n".join(" " * len(line) for line in text[start:end].split("\n"))
        parts += [text[position:start], blank]
        position = end
    parts.append(text[position:])
    return "".join(parts)


_DELIMITER_ROW = frozenset("|-: \t")


def _delimiter_like(line: str) -> bool:
    """Whether a line could be a table's delimiter row (``|---|:--:|``, in a quote or a list
    item too): a pipe table needs one."""
    return "|" in line and "-" in line and set(line.strip(" \t>")) <= _DELIMITER_ROW


def _may_have_pipe_table(text: str) -> bool:
    """Whether any line could be a delimiter row: markdown-it-py takes seconds on megabytes
    of pipes."""
    return "|" in text and "-" in text and any(map(_delimiter_like, text.split("\n")))


@cache
def _block_parser() -> MarkdownIt:
    """CommonMark with GFM tables, raw HTML allowed; block structure only (inline content
    is parsed only for the tables, when they are rendered)."""
    return MarkdownIt("commonmark", {"html": True}).enable("table").disable("inline")


@cache
def _outline_parser() -> MarkdownIt:
    """The block structure without tables: a table is then part of a paragraph (or of a
    setext heading), whatever its length, in a few tokens."""
    return MarkdownIt("commonmark", {"html": True}).disable("inline")


@cache
def _renderer() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": True}).enable("table")


_STRUCTURE_TOKENS = frozenset(("thead_open", "tbody_open", "tr_open", "th_open", "td_open"))


def _markdown_tables(text: str, first_line: int, depth: int, max_rows: int) -> Iterator[tuple[int, str, int, bool]]:
    """(0-based line, source, nodes of its tree, cut) of each Markdown table, those in
    Markdown fences included. The source is the table's own lines, which render alone
    (inside a quote or a list item too).

    Tables are parsed where they can be: a table runs to the end of the paragraph (or
    setext heading) it would be without the table rule, since the two end alike. Such a
    block with more than ``max_rows`` lines after its delimiter row is read no further:
    the table has more nodes than that (a row has a tr and a cell), and markdown-it-py
    takes 2 s and 150 MB a megabyte of table."""
    lines = text.split("\n")
    for token in _outline_parser().parse(text):
        if token.type in ("paragraph_open", "heading_open") and token.map is not None:
            start, end = token.map
            delimiter = next((n for n in range(start + 1, end) if _delimiter_like(lines[n])), None)
            if delimiter is not None:
                read = min(end, delimiter + max_rows + 2)
                for line, source, size in _tables_in(lines[start:read]):
                    cut = read < end and line + source.count("\n") + 1 == read - start
                    yield first_line + start + line, source, size, cut
        elif token.type == "fence" and token.map is not None and depth > 0:
            info = token.info.strip()
            language = info.split(maxsplit=1)[0].lower() if info else ""
            if language in MARKDOWN_FENCES and _may_have_pipe_table(token.content):
                yield from _markdown_tables(token.content, first_line + token.map[0] + 1, depth - 1, max_rows)


def _tables_in(lines: list[str]) -> Iterator[tuple[int, str, int]]:
    """(0-based line, source, nodes of its tree) of the tables of a few lines."""
    size = start = end = 0
    for token in _block_parser().parse("\n".join(lines)):
        if token.type == "table_open" and token.map is not None:
            start, end = token.map
            size = 1
        elif token.type in _STRUCTURE_TOKENS:
            size += 1
        elif token.type == "table_close":
            yield start, "\n".join(lines[start:end]), size


# -- a table as a tree ------------------------------------------------------------------------


class _Node:
    """A node of a table's tree; a cell's content is None for other nodes."""

    __slots__ = ("tag", "colspan", "rowspan", "content", "cell", "children")

    def __init__(self, tag: str, colspan: int | None = None, rowspan: int | None = None) -> None:
        self.tag = tag
        self.colspan = colspan
        self.rowspan = rowspan
        self.content: list[str] | None = None
        self.cell = -1  # index among the table's cells
        self.children: list[_Node] = []


@dataclass(frozen=True)
class TableTree:
    """A table as APTED compares it. ``nodes``: PubTabNet's count (``count_nodes``);
    ``size``: nodes of the tree; ``text``: units of cell text."""

    root: _Node
    cells: list[_Node]
    nodes: int
    size: int
    text: int


_PARSER = html.HTMLParser(remove_comments=True, encoding="utf-8")


def parse_table(source: str) -> Any:
    """The first table of an HTML text as lxml reads it (None: none), the way PubTabNet
    reads a table: ``body/table`` of the document."""
    if not source.strip():
        return None
    # Lone surrogates stop libxml2 mid-text; a replacement character stands in for each.
    source = source.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    document = html.document_fromstring(f"<html><body>{source}</body></html>", parser=_PARSER)
    found = document.xpath("body/table") or document.xpath("//table")
    return found[0] if found else None


def _tag(element: Any) -> str | None:
    """An element's tag, ``th`` read as ``td``; None for what is not an element (a
    processing instruction)."""
    tag = element.tag
    if not isinstance(tag, str):
        return None
    return "td" if tag == "th" else tag


def _span(element: Any, name: str) -> int:
    """colspan or rowspan: what int() makes of it, as PubTabNet reads it, else its leading
    digits, else 1 (where PubTabNet's code would fail)."""
    value = element.attrib.get(name, "1")
    try:
        return int(value)
    except ValueError:
        digits = value.strip()
        digits = digits[: len(digits) - len(digits.lstrip("0123456789"))] if digits[:1].isdigit() else ""
        return int(digits) if digits else 1


def _cell_tokens(cell: Any, normalize: Callable[[str], str] | None) -> list[str]:
    """PubTabNet's ``tokenize`` of a cell without its own tags: the characters of its
    text, ``<tag>`` and ``</tag>`` around markup inside it, the text after each (after a
    nested cell's, none)."""
    tokens: list[str] = []

    def text(piece: str | None) -> None:
        if piece:
            tokens.extend(normalize(piece) if normalize else piece)

    text(cell.text)
    for event, element in etree.iterwalk(cell, events=("start", "end")):
        if element is cell:
            continue
        tag = _tag(element)
        if event == "start":
            if tag is not None:
                tokens.append(f"<{tag}>")
                text(element.text)
        else:
            if tag is not None and tag != "unk":
                tokens.append(f"</{tag}>")
            if tag != "td":
                text(element.tail)
    return tokens


def count_nodes(table: Any) -> int:
    """PubTabNet's count of a table's nodes, the elements under ``<table>``, markup inside
    cells included, less the elements of a table nested in a cell, which are part of that
    cell's content (see the module's docstring)."""
    count = 0
    stack = [(child, False) for child in table]
    while stack:
        element, in_cell = stack.pop()
        tag = _tag(element)
        if tag is None or (in_cell and tag == "table"):
            continue
        count += 1
        stack.extend((child, in_cell or tag == "td") for child in element)
    return count


def table_tree(table: Any, structure_only: bool = False, normalize: Callable[[str], str] | None = None) -> TableTree:
    """The tree of a table element (see the module's docstring)."""
    root = _Node("table")
    cells: list[_Node] = []
    size, text = 1, 0
    nodes = count_nodes(table)
    stack = [(child, root) for child in reversed(table)]
    while stack:
        element, parent = stack.pop()
        tag = _tag(element)
        if tag is None:
            continue
        size += 1
        if tag == "td":
            node = _Node(tag, _span(element, "colspan"), _span(element, "rowspan"))
            node.content = [] if structure_only else _cell_tokens(element, normalize)
            node.cell = len(cells)
            cells.append(node)
            text += len(node.content)
        else:
            node = _Node(tag)
            stack.extend((child, node) for child in reversed(element))
        parent.children.append(node)
    return TableTree(root, cells, nodes, size, text)


class _Costs(Config):
    """PubTabNet's ``CustomConfig``, with the cells' Levenshtein distances computed at once."""

    def __init__(self, reference: TableTree, hypothesis: TableTree) -> None:
        self.distances = None
        if reference.text or hypothesis.text:
            self.distances = process.cdist(
                [c.content for c in reference.cells],
                [c.content for c in hypothesis.cells],
                scorer=Levenshtein.distance,
                workers=1,
            )

    def children(self, node: _Node) -> list[_Node]:
        return node.children

    def rename(self, a: _Node, b: _Node) -> float:
        if a.tag != b.tag or a.colspan != b.colspan or a.rowspan != b.rowspan:
            return 1.0
        if a.content or b.content:  # two cells, not both empty
            assert a.content is not None and b.content is not None and self.distances is not None
            return int(self.distances.item(a.cell, b.cell)) / max(len(a.content), len(b.content))
        return 0.0


def tree_distance(reference: TableTree, hypothesis: TableTree) -> float:
    """The tree edit distance of two tables (APTED)."""
    return float(APTED(reference.root, hypothesis.root, _Costs(reference, hypothesis)).compute_edit_distance())


# -- a page -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TablePair:
    """A reference table and the hypothesis table paired with it, by their indexes in the
    tables given (None: the other side has no table left); ``distance`` over ``nodes`` is
    what it costs. ``compared``: False for a pair beyond the bounds, which costs all its
    nodes."""

    reference: int | None
    hypothesis: int | None
    distance: float
    nodes: int
    compared: bool = True

    @property
    def teds(self) -> float:
        return 1.0 - self.distance / self.nodes if self.nodes else 1.0


@dataclass(frozen=True)
class PageTEDS:
    """The TEDS of a page's tables: ``distance`` and ``nodes`` summed over the pairs (the
    counts), the tables of each side, each pair, and why a pair was not compared."""

    distance: float
    nodes: int
    reference_tables: int
    hypothesis_tables: int
    pairs: tuple[TablePair, ...]
    not_compared: tuple[str, ...] = ()

    @property
    def value(self) -> float:
        return 1.0 - self.distance / self.nodes if self.nodes else 1.0


@dataclass
class _Read:
    """A table of a page as far as it was read: its element, or None when it is beyond the
    node bound (then it is neither rendered nor read further), and its node count."""

    index: int  # among the tables given
    table: Table
    element: Any
    nodes: int


def _read(index: int, table: Table, node_limit: int) -> _Read | None:
    """None for HTML that parses as no table."""
    if table.cut or (table.size is not None and table.size > node_limit):
        # A Markdown table, counted from its tokens (sections, rows and cells), not rendered.
        assert table.size is not None
        return _Read(index, table, None, table.size - 1)
    element = parse_table(table.html)
    if element is None:
        return None
    nodes = count_nodes(element)
    return _Read(index, table, element if _tree_size(element, node_limit) <= node_limit else None, nodes)


def score_tables(
    reference: Sequence[Table],
    hypothesis: Sequence[Table],
    structure_only: bool = False,
    normalize: Callable[[str], str] | None = None,
    max_nodes: int | None = None,
    max_cell_text: int | None = None,
) -> PageTEDS:
    """TEDS of two pages' tables (see the module's docstring). ``max_nodes``: None for
    ``MAX_TABLE_NODES``; ``max_cell_text``: None for ``limits``' ``max_align_chars``.

    A pair with a table of more than ``max_nodes`` nodes in its tree, or of more than
    ``max_cell_text`` units of cell text, is not compared: it costs all its nodes (the
    larger table's), as an unpaired table does, and ``not_compared`` says why."""
    node_limit, text_limit = max_table_nodes(max_nodes), max_align_chars(max_cell_text)
    sides = [
        [r for i, t in enumerate(tables) if (r := _read(i, t, node_limit)) is not None]
        for tables in (reference, hypothesis)
    ]
    pairs: list[TablePair] = []
    why: list[str] = []
    for ref, hyp in zip(*sides, strict=False):
        nodes = max(ref.nodes, hyp.nodes)
        reasons = [
            f"the {name}'s table at line {read.table.line} has more than {node_limit:,} nodes (max_table_nodes)"
            for name, read in (("reference", ref), ("hypothesis", hyp))
            if read.element is None
        ]
        if not reasons:
            trees = [table_tree(read.element, structure_only, normalize) for read in (ref, hyp)]
            reasons = [
                f"the {name}'s table at line {read.table.line} has {tree.text:,} units of cell text, "
                f"more than {text_limit:,} (max_align_chars)"
                for name, read, tree in zip(("reference", "hypothesis"), (ref, hyp), trees, strict=True)
                if tree.text > text_limit
            ]
        if reasons:
            pairs.append(TablePair(ref.index, hyp.index, max(nodes, 1), max(nodes, 1), compared=False))
            why += reasons
        else:
            pairs.append(TablePair(ref.index, hyp.index, tree_distance(*trees), nodes))
    paired = len(pairs)
    pairs += [TablePair(r.index, None, max(r.nodes, 1), max(r.nodes, 1)) for r in sides[0][paired:]]
    pairs += [TablePair(None, h.index, max(h.nodes, 1), max(h.nodes, 1)) for h in sides[1][paired:]]
    not_compared = tuple(f"TEDS: {reason}; that pair is not compared and counts as all wrong" for reason in why)
    return PageTEDS(
        math.fsum(p.distance for p in pairs),
        sum(p.nodes for p in pairs),
        len(sides[0]),
        len(sides[1]),
        tuple(pairs),
        not_compared,
    )


def _tree_size(table: Any, limit: int) -> int:
    """The nodes of a table's tree (see ``table_tree``), counted up to one past ``limit``."""
    size = 1
    stack = list(table)
    while stack and size <= limit:
        element = stack.pop()
        tag = _tag(element)
        if tag is None:
            continue
        size += 1
        if tag != "td":
            stack.extend(element)
    return size


def page_teds(
    reference: str,
    hypothesis: str,
    structure_only: bool = False,
    normalize: Callable[[str], str] | None = None,
    max_nodes: int | None = None,
    max_cell_text: int | None = None,
) -> PageTEDS:
    """TEDS of the tables of two page texts (Markdown and/or HTML)."""
    return score_tables(
        find_tables(reference, max_nodes),
        find_tables(hypothesis, max_nodes),
        structure_only,
        normalize,
        max_nodes,
        max_cell_text,
    )


def teds(reference: str, hypothesis: str, structure_only: bool = False) -> float:
    """TEDS of two pages' tables, cell text as written.

    >>> teds("| a | b |\\n|---|---|\\n| 1 | 2 |", "<table><thead><tr><th>a</th><th>b</th></tr></thead>"
    ...      "<tbody><tr><td>1</td><td>2</td></tr></tbody></table>")
    1.0
    """
    return page_teds(reference, hypothesis, structure_only).value
