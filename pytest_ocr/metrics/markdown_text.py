"""Markdown, as vision-language OCR engines write it (olmOCR, DeepSeek-OCR, Mistral OCR, ...), to the
plain text it shows: CER against a plain-text ground truth then measures the text, not the markup.

``markdown_text(source)`` is a pure function. The Markdown is parsed by markdown-it-py (CommonMark, with
GFM tables and ``~~strikethrough~~``) and its token stream is walked; no regular expression reads Markdown.
The rules, and why:

- **Blocks** (paragraphs, headings, list items, table rows, code blocks, display math, HTML block elements)
  each start a new line; blank lines are not kept (engines differ in the blank lines between paragraphs).
  A line break inside a paragraph (soft or hard) stays a line break. Spaces at a line's start or end
  go, except in code.
- **Markup goes, its text stays**: ``*emphasis*``, ``**strong**``, ``~~strikethrough~~`` (struck text is
  still printed on the page), ``#`` and setext heading markers, ``>`` blockquote markers, bullets
  (``-``, ``*``, ``+``: a bullet is a glyph that ground truths write as ``•``, ``-`` or nothing), code
  fences and backticks (the code text is kept verbatim, info strings dropped), thematic breaks
  (``---``, ``***``), backslash escapes (``\\*`` is ``*``), link syntax (``[text](url)`` is ``text``:
  the URL is not on the page; an autolink ``<https://x.org>`` is its URL, which is what it shows), link
  reference definitions.
- **Ordered list numbers are kept as written** (``150. text``, ``3) text``): on a page the number is
  printed text (exercise numbers, numbered references), a plain ground truth has it, and an engine that
  reads "7." as "1." made an error. Markdown renumbering is not applied: the number the engine wrote is
  kept.
- **Images are dropped, alt text included**: ``![alt](src)`` marks a picture region; its alt text is a
  description the engine wrote (olmOCR writes ``![](...)``, others write "Figure showing ..."), not text
  printed on the page, and a plain ground truth has no such descriptions.
- **Tables** (GFM and HTML): cells in reading order, row by row and left to right, cells separated by a
  tab, rows by line breaks (one space per cell boundary after whitespace collapsing). A GFM row with more
  cells than the header keeps the extra cells (GFM would drop them: engines put multi-column data under a
  merged header, and dropping it would count the engine's correct text as deleted). Spans are ignored: a
  spanned cell's text appears once, where it is written.
- **HTML** (blocks and inline): tags removed, text kept, character references decoded (``&amp;`` is ``&``;
  in Markdown text too), ``<br>`` a line break, block elements (``<p>``, ``<div>``, ``<li>``, ...) start a
  line, ``<td>``/``<th>`` are cells as above, runs of HTML whitespace are one space (as a browser shows
  them; ``<pre>`` keeps its own), ``<img>`` dropped as images are, the contents of ``<script>`` and
  ``<style>`` dropped (not shown; until their end tag or the end of the HTML block or paragraph),
  comments and declarations dropped; a ``<td>`` or ``<tr>`` outside a table is ignored, as browsers
  ignore it. Raw HTML is not Markdown: ``**`` inside an HTML block stays, as CommonMark says. HTML
  ordered lists get no numbers (none is written). Tags are found by CommonMark's grammar of an HTML tag
  (markdown-it's), each then read by html.parser.
- **LaTeX** is kept verbatim, its delimiters dropped: ``$...$``, ``$$...$$``, ``\\(...\\)`` and
  ``\\[...\\]`` give their content byte for byte, less the spaces just inside the delimiters (no
  escape, emphasis or entity processing inside: ``$a_1 * b_2 *$`` keeps every character). Delimiters
  are markup: engines choose different ones for the same formula (olmOCR writes ``\\(``, others ``$``),
  and a plain ground truth has none. Inline ``$`` follows Pandoc's rule, so that prices are no math:
  the first unescaped ``$`` after the opening one closes it, and it is math only if a non-space follows
  the opening ``$``, a non-space precedes the closing one and no digit follows it (``$5 and $6`` and
  ``$5-$10`` stay text). ``$$`` or ``\\[`` starting a line opens display math that ends on the first
  line ending with ``$$`` or ``\\]``, with no blank line before it (LaTeX allows none); elsewhere they
  are inline math. Math is not rendered: ``\\frac{a}{b}`` stays ``\\frac{a}{b}``.
- **Bounds**: nesting deeper than ``MAX_NESTING`` containers (blockquotes, list items) keeps the rest of
  the deepest container as literal text instead of parsing it (markdown-it would drop it), so no text
  is lost and recursion stays bounded; every rule added here is linear in the input.

A plain text is its own plain text except where it reads as Markdown, on both sides alike:

- ``3 * 4 * 5``, ``a_b_c``, ``snake_case``, ``C:\\Users``, ``a < b``, ``50 % off``, ``$5 and $6``,
  ``1.5``, ``#1`` stay as they are (a ``*`` between spaces is no emphasis; ``_`` inside a word is none);
- ``2*3*4`` loses its asterisks (``*3*`` is emphasis), ``*word*`` and ``_word_`` lose theirs, as does
  ``~~x~~``;
- a line starting with ``# `` loses the ``#`` (a heading), one starting with ``- ``, ``* `` or ``+ ``
  loses the bullet, one starting with ``>`` loses it; ``1.`` or ``2)`` at a line start stay (numbers are
  kept); a line of only ``---``, ``***`` or ``___`` goes, and so does a ``---`` or ``===`` line right
  under text (a setext heading underline);
- a backslash before ASCII punctuation goes (``\\*`` is ``*``), a backslash at a line end goes (a hard
  break); character references are decoded (``&amp;`` is ``&``);
- ``<word ...>`` shaped like an HTML tag goes (``a<b>c`` is ``ac``), ``[text](x)`` is ``text``, a line
  ``[1]: http://x`` (a link reference definition) goes, a line indented by four spaces is kept verbatim;
- U+0000 becomes U+FFFD, as CommonMark requires.
"""

from __future__ import annotations

import html
from functools import cache
from html.parser import HTMLParser

from markdown_it import MarkdownIt
from markdown_it.common.utils import mdTrim
from markdown_it.parser_block import ParserBlock
from markdown_it.rules_block import StateBlock
from markdown_it.rules_block.table import escapedSplit, getLine, table
from markdown_it.token import Token

from .markdown_math import BlockRule, bracket_math, display_math, dollar_math

# How deep blocks (a blockquote is one level, a list and its item two) and inline links nest before
# the rest is kept as literal text: markdown-it's CommonMark value. markdown-it would drop deeper
# blocks; inline, its link-label scan costs this many steps per "[" (1 MB of "[" takes about 8 s).
MAX_NESTING = 20

# HTML elements that start and end a line (CommonMark's block-level HTML names, less the table cells).
BLOCK_TAGS = frozenset(
    "address article aside blockquote body caption center dd details dialog dir div dl dt fieldset figcaption "
    "figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html iframe legend li main menu "
    "menuitem nav noframes ol optgroup option p pre section summary table tbody tfoot thead title tr ul".split()
)
_HIDDEN_TAGS = ("script", "style")  # their content is not shown
_HTML_WHITESPACE = str.maketrans("\t\n\f\r", "    ")  # ASCII whitespace; U+00A0 is a character


def markdown_text(source: str) -> str:
    """The plain text of a Markdown document: its text in reading order, the markup removed (see the
    module's documentation for every rule). Lines are separated by ``\\n``; table cells by ``\\t``."""
    env: dict = {}
    tokens = parser().parse(source, env)
    text = _Text()
    for token in tokens:
        text.block(token)
    return text.result()


# -- the text, as the token stream is walked ----------------------------------------------------------


class _Text:
    """The plain text being written: line starts, table cells and what HTML hides."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.line_start = True
        self.pending = ""  # ordered-list numbers waiting for their item's first text
        self.space = False  # HTML whitespace waiting for the next text on the line
        self.cells: list[int] = []  # cells written so far in the current row, one count per open table
        self.hidden = 0  # open <script> or <style> elements
        self.pre = 0  # open <pre> elements
        self.verbatim = False  # whether the last text written is code, to be kept as it is

    def result(self) -> str:
        if self.pending:
            self.parts.append(self.pending.rstrip())
            self.line_start = self.verbatim = False
        self.newline()
        return "".join(self.parts).strip("\n")

    def write(self, text: str, verbatim: bool = False) -> None:
        """Text, on the current line; unless ``verbatim`` (code), without spaces at the line's start."""
        if self.hidden:
            return
        if self.line_start and not verbatim:
            text = text.lstrip(" ")
        if not text:
            return
        if self.pending:
            self.parts.append(self.pending)
            self.pending = ""
        elif self.space:
            self.parts.append(" ")
        self.space = False
        self.parts.append(text)
        self.line_start = text.endswith("\n")
        self.verbatim = verbatim

    def newline(self) -> None:
        """Ends the line, if it has text; without spaces at its end, unless they are code."""
        self.space = False
        if not self.line_start:
            if not self.verbatim:
                self.parts[-1] = self.parts[-1].rstrip(" ")
            self.parts.append("\n")
            self.line_start = True

    def cell(self) -> None:
        if not self.cells:  # a cell outside any table: browsers ignore the tag
            return
        if self.cells[-1]:
            self.space = False
            if not self.line_start and not self.verbatim:
                self.parts[-1] = self.parts[-1].rstrip(" ")
            self.parts.append("\t")
            self.line_start = self.verbatim = False
        self.cells[-1] += 1

    def row(self) -> None:
        self.newline()
        if self.cells:
            self.cells[-1] = 0

    def table(self, opening: bool) -> None:
        self.newline()
        if opening:
            self.cells.append(0)
        elif self.cells:
            self.cells.pop()

    # -- Markdown tokens

    def block(self, token: Token) -> None:
        kind = token.type
        if kind == "inline":
            for child in token.children or ():
                self.inline(child)
            self.end_of_html()
        elif kind == "list_item_open":
            self.newline()
            if token.info:  # an ordered item: its number as written, then "." or ")"
                self.pending += f"{token.info}{token.markup} "
        elif kind == "list_item_close":
            if self.pending:  # an empty item still shows its number
                self.parts.append(self.pending.rstrip())
                self.pending = ""
                self.line_start = self.verbatim = False
            self.newline()
        elif kind in ("code_block", "fence"):
            self.newline()
            self.write(token.content.rstrip("\n"), verbatim=True)
            self.newline()
        elif kind == "math_block":
            self.newline()
            self.write(token.content.strip())
            self.newline()
        elif kind == "html_block":
            self.newline()
            self.html(token.content)
            self.newline()
            self.end_of_html()
        elif kind in ("table_open", "table_close"):
            self.table(kind == "table_open")
        elif kind == "tr_open":
            self.row()
        elif kind in ("th_open", "td_open"):
            self.cell()
        elif kind not in ("th_close", "td_close"):  # any other block opens or closes a line
            self.newline()

    def inline(self, token: Token) -> None:
        kind = token.type
        if kind in ("text", "code_inline", "math_inline"):
            self.write(token.content)
        elif kind in ("softbreak", "hardbreak"):
            self.newline()
        elif kind == "html_inline":
            self.tag(token.content)
        # emphasis, strong, strikethrough and link openers and closers have no text; an image's
        # children are its alt text, which is dropped

    # -- HTML

    def html(self, source: str) -> None:
        """An HTML block's text. markdown-it's own HTML tag grammar splits it into tags and text (the
        standard library's HTMLParser is quadratic on unterminated tags before Python 3.13.4: 8,000
        ``<a `` took 8.5 s); html.parser then reads each tag alone."""
        for piece in html_parser().parseInline(source)[0].children or ():
            if piece.type == "html_inline":
                self.tag(piece.content)
            else:
                self.html_data(html.unescape(piece.content))

    def html_data(self, data: str) -> None:
        if self.pre:
            self.write(data, verbatim=True)
            return
        words = [word for word in data.translate(_HTML_WHITESPACE).split(" ") if word]
        if not words:
            self.html_space()
            return
        if data[0] in " \t\n\f\r":
            self.html_space()
        self.write(" ".join(words))
        if data[-1] in " \t\n\f\r":
            self.html_space()

    def html_space(self) -> None:
        if not self.line_start and self.parts[-1] != "\t":  # none at a line's or a cell's start
            self.space = True

    def tag(self, markup: str) -> None:
        """One HTML tag, comment, declaration or processing instruction, as markdown-it matched it."""
        reader = _Tag(self)
        reader.feed(markup)
        reader.close()

    def start_tag(self, name: str) -> None:
        if self.hidden and name not in _HIDDEN_TAGS:  # markup inside a script is not shown either
            return
        if name in ("td", "th"):
            self.cell()
        elif name == "tr" and self.cells:  # outside a table, browsers ignore it
            self.row()
        elif name == "table":
            self.table(True)
        elif name == "br":
            self.newline()
        elif name in _HIDDEN_TAGS:
            self.hidden += 1
        elif name == "pre":
            self.newline()
            self.pre += 1
        elif name in BLOCK_TAGS:
            self.newline()

    def end_tag(self, name: str) -> None:
        if self.hidden and name not in _HIDDEN_TAGS:
            return
        if name == "table":
            self.table(False)
        elif name == "br" or (name == "tr" and self.cells):  # browsers read </br> as <br>
            self.newline()
        elif name in _HIDDEN_TAGS:
            self.hidden = max(0, self.hidden - 1)
        elif name == "pre":
            self.newline()
            self.pre = max(0, self.pre - 1)
        elif name in BLOCK_TAGS:
            self.newline()

    def end_of_html(self) -> None:
        """An HTML block or a paragraph ends: an unclosed <script>, <style> or <pre> ends with it."""
        self.hidden = self.pre = 0


class _Tag(HTMLParser):
    """Reads one tag for _Text: its name, lowercased, and whether it opens, closes or both."""

    def __init__(self, text: _Text) -> None:
        super().__init__(convert_charrefs=True)
        self.text = text

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.text.start_tag(tag)

    def handle_endtag(self, tag: str) -> None:
        self.text.end_tag(tag)


# -- the parser -----------------------------------------------------------------------------------


@cache
def parser() -> MarkdownIt:
    """The Markdown parser this module reads with (CommonMark, GFM tables, strikethrough, math; bounded)."""
    md = MarkdownIt("commonmark", {"maxNesting": MAX_NESTING}).enable(["table", "strikethrough"])
    block = _BoundedBlock()
    block.ruler = md.block.ruler
    md.block = block
    md.block.ruler.at("table", _keeping_every_cell(table), {"alt": ["paragraph", "reference"]})
    for name, opener, closer in (("math_block_dollar", "$$", "$$"), ("math_block_bracket", "\\[", "\\]")):
        md.block.ruler.before(
            "fence", name, display_math(opener, closer), {"alt": ["paragraph", "reference", "blockquote", "list"]}
        )
    md.inline.ruler.before("escape", "math_bracket", bracket_math)
    md.inline.ruler.before("escape", "math_dollar", dollar_math)
    return md


@cache
def html_parser() -> MarkdownIt:
    """Splits raw HTML into tags (CommonMark's grammar of an HTML tag) and text, and nothing else."""
    return MarkdownIt("zero", {"html": True}).enable("html_inline")


class _BoundedBlock(ParserBlock):
    """markdown-it's block parser, keeping as text what lies deeper than its nesting limit."""

    def tokenize(self, state: StateBlock, startLine: int, endLine: int) -> None:
        if state.level < state.md.options.maxNesting:
            super().tokenize(state, startLine, endLine)
            return
        # markdown-it would skip the rest of this container; keep its lines as one paragraph, ending
        # where the container would (a less indented line after the blank ones, as in tokenize).
        lines = []
        line = startLine
        while True:
            line = state.skipEmptyLines(line)
            if line >= endLine or state.sCount[line] < state.blkIndent:
                break
            lines.append(state.src[state.bMarks[line] + state.tShift[line] : state.eMarks[line]])
            line += 1
        state.line = line
        if lines:
            state.push("paragraph_open", "p", 1).map = [startLine, line]
            inline = state.push("inline", "", 0)
            inline.content = "\n".join(lines)
            inline.map = [startLine, line]
            inline.children = []
            state.push("paragraph_close", "p", -1)


def _keeping_every_cell(table: BlockRule) -> BlockRule:
    """markdown-it's GFM table rule, keeping the cells a row has beyond the header's count, split as the
    rule splits a row (its own escapedSplit)."""

    def table_keeping_every_cell(state: StateBlock, startLine: int, endLine: int, silent: bool) -> bool:
        first = len(state.tokens)
        if not table(state, startLine, endLine, silent):
            return False
        if silent:
            return True
        tokens = state.tokens[first:]
        columns = sum(1 for token in tokens if token.type == "th_open")
        kept: list[Token] = []
        row: Token | None = None
        for token in tokens:
            if token.type == "tr_open":
                row = token
            elif token.type == "tr_close" and row is not None and row.map and row.map[0] > startLine:
                for extra in _row_cells(state, row.map[0])[columns:]:
                    kept += _cell(extra, row)
            kept.append(token)
        state.tokens[first:] = kept
        return True

    return table_keeping_every_cell


def _row_cells(state: StateBlock, line: int) -> list[str]:
    cells = escapedSplit(mdTrim(getLine(state, line)))
    if cells and cells[0] == "":
        cells.pop(0)
    if cells and cells[-1] == "":
        cells.pop()
    return cells


def _cell(content: str, row: Token) -> list[Token]:
    opening = Token("td_open", "td", 1, level=row.level + 1, block=True)
    inline = Token("inline", "", 0, level=row.level + 2, map=row.map, content=mdTrim(content), children=[])
    closing = Token("td_close", "td", -1, level=row.level + 1, block=True)
    return [opening, inline, closing]
