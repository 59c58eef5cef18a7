"""The ``markdown`` normalisation profile and ``markdown_text``, against an independent oracle: GitHub's
CommonMark + GFM implementation in C (cmark-gfm, through cmarkgfm) renders the same Markdown to HTML and
the standard library's html.parser reads that HTML's text (cells in reading order, tabs between cells,
line breaks between rows and blocks).

Where the two legitimately differ, both sides are put through the same documented step first:

- math: cmark-gfm knows no LaTeX (it would read ``\\(`` as an escaped parenthesis and ``*`` inside
  ``$...$`` as emphasis). ``protect_math`` below, the test's own scanner with the rule the module
  documents (Pandoc's for ``$``), puts an inert placeholder where each formula is before cmark-gfm
  renders, and the formula (less the spaces just inside its delimiters, as the module documents) back
  where the placeholder lands in its text;
- GFM rows with more cells than the header: GFM drops the extra cells, ``markdown_text`` keeps them.
  ``widen_tables`` gives such a table's header and delimiter row the missing (empty) columns, in the
  source both sides read; ``markdown_text`` reads the original and the widened table alike;
- ordered list numbers: ``markdown_text`` keeps the number as written. HTML has no such number, so the
  oracle reads it from the source, where cmark-gfm's ``data-sourcepos`` says the item starts.

Texts are compared after whitespace collapsing, since the two place line breaks a little differently
(cmark-gfm writes a newline after each tag).
"""

from __future__ import annotations

import glob
import json
import textwrap
import unicodedata
from html.parser import HTMLParser
from pathlib import Path

import cmarkgfm
import jiwer
import pytest
from cmarkgfm.cmark import Options
from conftest import REPO, run_bounded
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from pytest_ocr import metrics
from pytest_ocr.metrics.lines import text_lines
from pytest_ocr.metrics.markdown_text import BLOCK_TAGS, MAX_NESTING, markdown_text
from pytest_ocr.metrics.normalize import PROFILES, Normalization, profile

OLMOCR = sorted(glob.glob(str(REPO / "tests/data/olmocr-bench-sample/olmocr_pipeline/**/*.md"), recursive=True))


# -- the oracle ---------------------------------------------------------------------------------------


def cmark_html(markdown: str) -> str:
    return cmarkgfm.markdown_to_html_with_extensions(
        markdown,
        # raw HTML passed through (as markdown-it's CommonMark preset does), ~~two~~ tildes only, where
        # each item starts (for its number)
        options=Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_STRIKETHROUGH_DOUBLE_TILDE | Options.CMARK_OPT_SOURCEPOS,
        extensions=["table", "strikethrough"],
    )


class OracleText(HTMLParser):
    """The text of cmark-gfm's HTML: tags removed, entities decoded, a line break at each block element and
    <br>, tabs between the cells of a row, images (and their alt attributes) gone, <script> and <style>
    hidden; an ordered item starts with its number as the source writes it."""

    def __init__(self, source_lines: list[str]) -> None:
        super().__init__(convert_charrefs=True)
        self.source_lines = source_lines
        self.out: list[str] = []
        self.hidden = 0
        self.lists: list[bool] = []  # whether each open list is ordered
        self.cells: list[int] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self.hidden += 1
        elif tag in ("ol", "ul"):
            self.lists.append(tag == "ol")
        if tag == "li":
            self.out.append("\n")
            position = dict(attrs).get("data-sourcepos")
            if self.lists and self.lists[-1] and position:
                self.out.append(self.marker(position) + " ")
        elif tag == "table":
            self.cells.append(0)
            self.out.append("\n")
        elif tag == "tr":
            self.out.append("\n")
            if self.cells:
                self.cells[-1] = 0
        elif tag in ("td", "th"):
            if self.cells and self.cells[-1]:
                self.out.append("\t")
            if self.cells:
                self.cells[-1] += 1
        elif tag == "br" or tag in BLOCK_TAGS:
            self.out.append("\n")

    def marker(self, sourcepos: str) -> str:
        """The list marker ("150." or "3)") where the item starts: line and byte column, from 1."""
        line, column = (int(n) for n in sourcepos.split("-")[0].split(":"))
        rest = self.source_lines[line - 1].encode("utf-8")[column - 1 :].decode("utf-8")
        digits = len(rest) - len(rest.lstrip("0123456789"))
        return rest[: digits + 1]

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.hidden = max(0, self.hidden - 1)
        elif tag in ("ol", "ul") and self.lists:
            self.lists.pop()
        elif tag == "table" and self.cells:
            self.cells.pop()
        if tag in BLOCK_TAGS:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.out.append(data)


def escaped(source: str, i: int) -> bool:
    backslashes = 0
    while i - backslashes - 1 >= 0 and source[i - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


def find_unescaped(source: str, sub: str, start: int) -> int:
    while True:
        j = source.find(sub, start)
        if j < 0 or not escaped(source, j):
            return j
        start = j + 1


def has_blank_line(text: str) -> bool:
    return any(not line.strip() for line in text.split("\n")[1:-1])


def protect_math(source: str) -> tuple[str, dict[str, str]]:
    """The source with each formula replaced by a placeholder, and each placeholder's formula. A formula is
    ``\\(...\\)``, ``\\[...\\]``, ``$$...$$`` (non-blank, unescaped closer) or ``$...$`` whose opening
    ``$`` has a non-space after it and whose first unescaped ``$`` after it has a non-space before it and
    no digit after it; none spans a blank line; none starts inside a code span."""
    out: list[str] = []
    maths: dict[str, str] = {}
    i, n = 0, len(source)

    def keep(content: str, end: int) -> int:
        key = f"%%MATH{len(maths)}%%"  # punctuation at both ends, as the delimiters it replaces
        maths[key] = content.strip()  # the formula, less the spaces just inside its delimiters
        out.append(key)
        return end

    while i < n:
        c = source[i]
        if c == "`":  # a code span: to the next run of exactly as many backticks
            run = len(source[i:]) - len(source[i:].lstrip("`"))
            j, close = i + run, -1
            while (j := source.find("`" * run, j)) >= 0:
                end = j + run
                while end < n and source[end] == "`":
                    end += 1
                if end - j == run:
                    close = j
                    break
                j = end
            end = close + run if close >= 0 else i + run
            out.append(source[i:end])
            i = end
            continue
        if c == "\\" and i + 1 < n:
            if source[i + 1] in "([":
                j = source.find("\\)" if source[i + 1] == "(" else "\\]", i + 2)
                if j > i + 2 and not has_blank_line(source[i + 2 : j]):
                    i = keep(source[i + 2 : j], j + 2)
                    continue
            out.append(source[i : i + 2])
            i += 2
            continue
        if c == "$":
            if source.startswith("$$", i):
                j = find_unescaped(source, "$$", i + 2)
                if j >= 0 and source[i + 2 : j].strip() and not has_blank_line(source[i + 2 : j]):
                    i = keep(source[i + 2 : j], j + 2)
                    continue
            else:
                j = find_unescaped(source, "$", i + 1)
                if (
                    j > i + 1
                    and not source[i + 1].isspace()
                    and not source[j - 1].isspace()
                    and not source[j + 1 : j + 2].isdigit()
                    and not has_blank_line(source[i + 1 : j])
                ):
                    i = keep(source[i + 1 : j], j + 1)
                    continue
        out.append(c)
        i += 1
    return "".join(out), maths


def split_row(line: str) -> list[str]:
    cells, current, i = [], "", 0
    while i < len(line):
        if line[i] == "\\" and i + 1 < len(line):
            current += line[i : i + 2]
            i += 2
            continue
        if line[i] == "|":
            cells.append(current)
            current = ""
        else:
            current += line[i]
        i += 1
    cells.append(current)
    if cells and not cells[0].strip():
        cells.pop(0)
    if cells and not cells[-1].strip():
        cells.pop()
    return cells


def widen_tables(markdown: str) -> str:
    """Each GFM table's header and delimiter row given as many columns as its widest row."""
    lines = markdown.split("\n")
    for i, line in enumerate(lines):
        rule = line.strip()
        if i and "-" in rule and "|" in rule and set(rule) <= set("|-: ") and "|" in lines[i - 1]:
            j, width = i + 1, 0
            while j < len(lines) and lines[j].strip() and "|" in lines[j]:
                width = max(width, len(split_row(lines[j])))
                j += 1
            extra = width - len(split_row(lines[i - 1]))
            if extra > 0:
                head, rule = lines[i - 1].rstrip(), line.rstrip()
                lines[i - 1] = (head if head.endswith("|") else head + " |") + " |" * extra
                lines[i] = (rule if rule.endswith("|") else rule + "|") + "---|" * extra
    return "\n".join(lines)


def oracle_text(markdown: str) -> str:
    protected, maths = protect_math(markdown)
    reader = OracleText(protected.split("\n"))
    reader.feed(cmark_html(protected))
    reader.close()
    text = "".join(reader.out)
    for key in sorted(maths, key=len, reverse=True):
        text = text.replace(key, maths[key])
    return text


def collapsed(text: str) -> str:
    return " ".join(text.split())


def assert_agrees(markdown: str) -> None:
    widened = widen_tables(markdown)
    ours = collapsed(markdown_text(widened))
    assert ours == collapsed(oracle_text(widened))
    assert collapsed(markdown_text(markdown)) == ours  # extra cells kept as a widened header keeps them


# -- agreement with the oracle ---------------------------------------------------------------------------


def test_the_olmocr_sample_is_all_there():
    assert len(OLMOCR) == 23
    assert sum(1 for path in OLMOCR if Path(path).read_text(encoding="utf-8").strip()) == 21


@pytest.mark.slow
@pytest.mark.parametrize("path", OLMOCR, ids=lambda path: Path(path).stem)
def test_real_olmocr_pages_agree_with_cmark_gfm(path):
    assert_agrees(Path(path).read_text(encoding="utf-8"))


def test_the_olmocr_pages_exercise_what_the_oracle_normalises():
    pages = {Path(path).stem: Path(path).read_text(encoding="utf-8") for path in OLMOCR}
    # math in \( \) and a price table with $ that is no math
    assert protect_math(pages["openstax_caculus_pg_273_pg1_repeat1"])[1]
    assert not protect_math(pages["earnings_pg1_repeat1"])[1] and "| $138 |" in pages["earnings_pg1_repeat1"]
    # a 6-column header over 12-cell rows: GFM would drop half of every row
    table = pages["discoverworld_crazy_table4_pg1_repeat1"]
    assert widen_tables(table) != table
    assert "0.20 0.20 0.80 0.00 0.00 0.90 0.40 1.00" in collapsed(markdown_text(table))
    # "1)" items: numbers as the engine wrote them
    assert "1) Order by Repo" in markdown_text(pages["mattsnotes_pg2_repeat1"])


HAND_WRITTEN = {
    "emphasis": "Some *emph*, **strong**, ***both***, _under_, __dunder__, ~~struck~~ and ~single~ text.",
    "headings": "# Title #\n\nSub\n===\n\nSub two\n---\n\n###### six\n\n####### seven is text",
    "lists": "- a\n- b\n  - c\n    * d\n\n+ plus\n\n3. x\n4. y\n\n1) p\n2) q\n7) r\n\n- loose\n\n- list\n",
    "blockquotes": "> quote *one*\n> > deeper\n> - item\n>\n> 2. two\n\nafter",
    "code": "```python\nx = *1*  # _no_ emphasis\n```\n\n    indented *code*\n\nInline `a*b*c` and ``x ` y``.",
    "links and images": (
        '[text](http://x "t") [ref][r] <http://auto.link> <me@x.org> ![alt text](img.png) '
        "[![inner](i.png)](u) [**bold** `code`](x)\n\n[r]: http://ref\n\n![](page_1_image_0.png)\n\nCaption"
    ),
    "escapes and entities": "\\*not emph\\* \\_ \\# \\\\ &amp; &copy; &#65; &#x42; &nbsp;x &bogus; a\\b",
    "line breaks": "line one  \nline two\\\nline three\nsoft\nbreak",
    "thematic breaks": "a\n\n***\n\nb\n\n- - -\n\n___\n\nc",
    "html block": "<div>\nHello <b>world</b> &amp; co<br>next\n<p>para</p>\n</div>\n\nafter",
    "inline html": 'Text with <sup>2</sup>, <span class="x">span</span>, a <!-- comment --> and <br/> end.',
    "html table": "<table>\n<tr><th>A</th><th>B</th></tr>\n<tr><td>1</td><td>2 &lt; 3</td></tr>\n</table>\n\nafter",
    "script and style": "<div>\n<script>var x = '<td>';</script>\nvisible\n<style>p {}</style>\n</div>",
    "markdown inside html is raw": "<div>\n**not bold** _nor this_\n</div>\n",
    "gfm table": "| A | B | C |\n|:--|:-:|--:|\n| *1* | `2` | 3 \\| 4 |\n| x |\n| y | z | w | extra | more |\n",
    "table in a blockquote": "> | a | b |\n> |---|---|\n> | 1 | 2 |\n\ntext",
    "br in cells": "| a<br>b | c |\n|---|---|\n| d | e<br/>f |",
    "math": (
        "Inline $x_1 * y_2 *$ and \\(a_b *c*\\) and $$E = mc^2$$ and \\[ \\frac{1}{2} \\].\n\n"
        "$$\n\\sum_{i=1}^n i \\\\ *x*\n$$\n\n\\[\nx *y* z\n\\]\n\ntext"
    ),
    "display math interrupting a paragraph": "We have\n\\[\n- a_1 + b_1\n\\]\nand\n$$\n# c_2\n$$\nend",
    "prices": "It costs $5 and $6, or $5-$10; US$ 3 and 4$ each; escaped \\$x\\$.",
    "math in code": "`$x_1$` and\n\n```\n$$ *y* $$\n```",
    "plain text": "3 * 4 * 5 = 60 and a_b_c, snake_case_name, C:\\Users\\me, 50 % off, a < b > c, #1 fan, 1.5 m",
    "empty items": "1.\n2. b\n\n-\n- c",
    "nested ordered": "1. 1. a\n   2. b\n2. c",
}


@pytest.mark.parametrize("markdown", HAND_WRITTEN.values(), ids=HAND_WRITTEN.keys())
def test_hand_written_markdown_agrees_with_cmark_gfm(markdown):
    assert_agrees(markdown)


# Pieces of Markdown and HTML for random documents. Left out: math (markdown-it's own renderer knows
# none), "<http://x>" inside an HTML block (CommonMark's tag grammar reads it as text, html.parser as a
# tag) and <script> (hidden here until the end of its block or paragraph, by html.parser to the end of
# the document).
PIECES = [
    *("*", "_", "`", "# ", "- ", "1. ", "2) ", "> ", "[", "]", "(", ")", "![", "|", "---", "=", "+ ", "~~"),
    *("\n", "\n\n", " ", "\t", "    ", "a", "b", "12", "&amp;", "&#65;", "&nbsp;", "\\*", "```", "[r]: /u\n"),
    *("[r]", "<b>", "</b>", "<br>", "<td>", "</td>", "<tr>", "<table>", "</table>"),
    *("<div>", "</div>", "\n<div>\n", "<!-- x -->", "<pre>", "</pre>", "| a | b |\n|---|---|\n", "| c | d | e |\n"),
]


class RenderedText(OracleText):
    """OracleText for markdown-it's own HTML, whose items carry their marker in a data-marker attribute."""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "li":
            super().handle_starttag(tag, attrs)
            return
        self.out.append("\n")
        marker = dict(attrs).get("data-marker")
        if marker:
            self.out.append(marker + " ")


def rendered_text(markdown: str) -> str:
    """The text of markdown-it's own HTML rendering (CommonMark, GFM tables, strikethrough)."""
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    tokens = md.parse(markdown)
    for token in tokens:
        if token.type == "list_item_open" and token.info:
            token.attrSet("data-marker", token.info + token.markup)
    reader = RenderedText([])
    reader.feed(md.renderer.render(tokens, md.options, {}))
    reader.close()
    return "".join(reader.out)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(pieces=st.lists(st.sampled_from(PIECES), max_size=30))
def test_the_token_walk_reads_as_markdown_its_own_html_renders(pieces):
    # the same parse, two readings: markdown_text's walk of the tokens, and html.parser's of the HTML
    # that markdown-it renders from them
    markdown = widen_tables("".join(pieces))
    assert collapsed(markdown_text(markdown)) == collapsed(rendered_text(markdown))


@pytest.mark.slow
@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(text=st.text(alphabet=st.sampled_from("ab XY12,.;:'\"?()\n\u00e9\u00df\u0f40"), max_size=80))
def test_text_without_markdown_syntax_is_unchanged(text):
    assert collapsed(markdown_text(text)) == collapsed(text)


# -- the rules, exactly --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "markdown, text",
    [
        ("# Title\n\nSome **bold** and *em* ~~del~~.", "Title\nSome bold and em del."),
        ("| a | b |\n|---|---|\n| 1 | 2 | 3 |", "a\tb\n1\t2\t3"),  # tabs, rows, the extra cell kept
        ("| a | b |\n|---|---|\n| 1 |", "a\tb\n1\t"),  # a missing cell is an empty one
        ("> | a | b |\n> |---|---|\n> | 1 | 2 | 3 \\| 4 |", "a\tb\n1\t2\t3 | 4"),
        ("<table><tr><td>a</td>\n<td>b</td></tr><tr><td>c</td></tr></table>", "a\tb\nc"),
        ("<table>\n  <tr>\n    <td> a </td>\n    <td>\n b c </td>\n  </tr>\n</table>", "a\tb c"),
        ("x <td>y</td> <td>z</td><tr>", "x y z"),  # cells outside a table are no cells (browsers ignore them)
        ("150. \\( s(t) = 2t^3 \\)\n151. next", "150. s(t) = 2t^3\n151. next"),  # numbers as written
        ("3) x\n3) y", "3) x\n3) y"),  # not renumbered
        ("- a\n  - b\n* c", "a\nb\nc"),
        ("> a\n> > b", "a\nb"),
        ("$a_1 * b_2 *$ and $$\\{x\\}$$", "a_1 * b_2 * and \\{x\\}"),  # verbatim, backslashes too
        ("$x$ is 5, \\( y \\)z and $$ w $$ (1)", "x is 5, yz and w (1)"),
        ("$$\nx_1 *\n\\\\ y\n$$", "x_1 *\n\\\\ y"),
        ("![a chart of sales](fig.png) Sales rose.", "Sales rose."),  # images go, alt text too
        ("[the text](https://example.org)", "the text"),
        ("a<br>b<br/>c</br>d", "a\nb\nc\nd"),
        ("A &amp; B &lt;tag&gt; &#x41;", "A & B <tag> A"),
        ("<p>x  \n  y</p>", "x y"),  # HTML whitespace as a browser shows it
        ("<pre>a\n  b</pre>", "a\n  b"),
        ("<p>a&nbsp;&nbsp;b</p>", "a\u00a0\u00a0b"),  # a no-break space is a character
        ("<script>x</script>\n\nafter", "after"),
        ("text <script>hidden", "text"),
        ("text <script>hidden\n\nshown", "text\nshown"),  # a paragraph ends what it opened
        ("```\ncode *x*\n```", "code *x*"),
        ("para\n\n\n\nnext", "para\nnext"),  # blank lines are not kept
        ("1.\n2. b", "1.\n2. b"),  # an empty item keeps its number
        ("", ""),
    ],
)
def test_rules(markdown, text):
    assert markdown_text(markdown) == text


PLAIN_FIXED_POINTS = [
    "3 * 4 * 5",
    "a_b_c and snake_case_name",
    "C:\\Users\\me",
    "a < b and c > d",
    "50 % off, 1.5 m, #1 fan",
    "It costs $5 and $6, or $5-$10.",
    "1. Introduction\n2. Methods",
    "7) seventh",
    "Line one\nLine two",
    "Straße, ſind, ﬁnden, ཀ་ཁ་ག།",
    "x^2 + y^2 = z^2",
    "[1] Smith, J. (2020). Title.",
    "e-mail: me@x.org, tel. +1 (555) 0100",
]


@pytest.mark.parametrize("text", PLAIN_FIXED_POINTS)
def test_plain_text_is_its_own_plain_text(text):
    assert markdown_text(text) == text


@pytest.mark.parametrize(
    "text, becomes",
    [
        ("2*3*4", "234"),  # *3* is emphasis
        ("*word* and _word_", "word and word"),
        ("# 5 items", "5 items"),
        ("- dash item\n* star item\n+ plus item", "dash item\nstar item\nplus item"),
        ("> quoted", "quoted"),
        ("Heading\n-------", "Heading"),
        ("Heading\n=======", "Heading"),
        ("above\n\n---\n\nbelow", "above\nbelow"),
        ("\\* and \\_", "* and _"),
        ("end\\\nnext", "end\nnext"),
        ("&amp;", "&"),
        ("a<b>c", "ac"),
        ("see [here](x)", "see here"),
        ("[1]: http://x.org", ""),
        ("$x$ is math", "x is math"),
        ("a\x00b", "a\ufffdb"),
    ],
)
def test_plain_text_that_reads_as_markdown(text, becomes):
    assert markdown_text(text) == becomes


# -- the profile ------------------------------------------------------------------------------------------

PLAIN = """Table 4: Results

The model scores 3 * 4 * 5 = 60 points; see a_b_c.
1. First finding
2. Second finding
Name\tScore
alpha\t0.87
beta\t0.42
Energy E = mc^2 holds."""

MARKDOWN = """## Table 4: Results

The **model** scores 3 \\* 4 \\* 5 = 60 points; see *a_b_c*.

1. First finding
2. Second finding

| Name | Score |
|------|------:|
| alpha | 0.87 |
| beta | 0.42 |

![](page_4_figure.png)

Energy $E = mc^2$ holds.
"""


def test_markup_costs_nothing_with_markdown_and_something_without():
    markdown, default = profile("markdown"), profile("default")
    assert markdown(PLAIN) == markdown(MARKDOWN)
    assert metrics.cer(PLAIN, MARKDOWN, normalize=markdown) == 0.0
    assert metrics.cer(PLAIN, MARKDOWN, normalize=default) > 0.1
    for normalization in (markdown, default):
        reference, hypothesis = normalization(PLAIN), normalization(MARKDOWN)
        assert metrics.cer(PLAIN, MARKDOWN, normalize=normalization) == pytest.approx(jiwer.cer(reference, hypothesis))


def test_a_real_error_still_counts_through_the_markup():
    hypothesis = MARKDOWN.replace("alpha", "aipha").replace("**model**", "**modal**")
    value = metrics.cer(PLAIN, hypothesis, normalize=profile("markdown"))
    normalization = profile("markdown")
    assert value == pytest.approx(jiwer.cer(normalization(PLAIN), normalization(hypothesis)))
    assert value == pytest.approx(2 / len(normalization(PLAIN)))


def test_the_profile_is_markdown_then_default():
    assert PROFILES["markdown"] == {}
    markdown = Normalization.from_dict("markdown")
    assert markdown.steps() == ["profile:markdown", "NFC", "collapse_whitespace"]
    assert markdown("**Cafe\u0301**  \n\n  *x*") == unicodedata.normalize("NFC", "Café x")
    # options override the profile as for any other; the Markdown step stays first
    folded = Normalization.from_dict({"profile": "markdown", "casefold": True, "whitespace": "keep"})
    assert folded.steps() == ["profile:markdown", "NFC", "casefold"]
    assert folded("# ÉTÉ\n\n| A | B |\n|---|---|") == "été\na\tb"


def test_markup_is_read_before_the_unicode_form():
    # NFKC turns a fullwidth asterisk into "*": it was text as the engine wrote it, and stays text
    assert profile("markdown", unicode="NFKC")("\uff0ax\uff0a") == "*x*"


def test_line_metrics_read_the_markdown_once():
    # each line of the plain text is normalised again, but not read as Markdown again: "\\# x" shows "# x"
    assert text_lines("\\# x\n\\*y\\*\n\n1. z", profile("markdown")) == ["# x", "*y*", "1. z"]
    assert metrics.score("\\# x", "x", ["ser"], normalize=profile("markdown"))["ser"].value == 1.0
    for metric, best in (("ser", 0.0), ("fca", 1.0), ("ssa", 1.0)):
        assert metrics.score(PLAIN, MARKDOWN, [metric], normalize=profile("markdown"))[metric].value == best, metric


@pytest.mark.parametrize("reference, hypothesis", [("", ""), ("", "# x"), ("*", ""), ("  \n ", "---"), ("|", "$")])
def test_every_text_metric_is_finite_with_the_profile(reference, hypothesis):
    names = [name for name, info in metrics.METRICS.items() if info.needs == "text"]
    for result in metrics.score(reference, hypothesis, names, normalize=profile("markdown")).values():
        json.dumps({"value": result.value, "counts": result.counts, "details": result.details}, allow_nan=False)


def test_the_profile_is_rebuilt_from_its_steps_as_reports_record_them():
    normalization = profile("markdown")
    rebuilt = Normalization.from_steps(normalization.steps())
    assert rebuilt is not None
    assert rebuilt(MARKDOWN) == normalization(MARKDOWN)


# -- bounds: 1 MB and 10,000 levels, in a subprocess under a memory cap and a timeout ---------------------

BOUNDS = """
import glob, time
from pathlib import Path

from pytest_ocr.metrics.markdown_text import markdown_text

MB = 1_000_000
PAGES = "\\n\\n".join(Path(p).read_text(encoding="utf-8") for p in sorted(glob.glob({pages!r}, recursive=True)))


def filled(unit, size=MB):
    return unit * (size // len(unit))


def cpu(source):
    start = time.process_time()
    text = markdown_text(source)
    return time.process_time() - start, text


def test_one_megabyte_is_linear():
    # each input at 1/4 MB and at 1 MB: four times the text may take four times as long (some slack for
    # noise), not sixteen; a quadratic step shows at once
    cases = {{
        "olmOCR pages": PAGES + "\\n\\n",
        "unclosed inline HTML": "<a ",
        "unclosed tags in an HTML block": "<div>\\n" + filled("<a ", 4096),
        "link brackets": "[",
        "emphasis": "*a _b ",
        "display math openers": "$$a\\n# h\\n\\\\[b\\n# h\\n",
        "inline math openers": "\\\\(x $y ",
        "table rows with extra cells": "| 1 | 2 | 3 | 4 |\\n",
        "one long paragraph": "word &amp; ",
    }}
    for name, unit in cases.items():
        head = "| a | b |\\n|---|---|\\n" if "table" in name else ""
        small, text = cpu(head + filled(unit, MB // 4))
        large, text = cpu(head + filled(unit))
        print(f"{{name}}: {{small:.2f}} s for 1/4 MB, {{large:.2f}} s for 1 MB")
        assert large < 8 * small + 1.0, name
        assert large < 60, name


def test_ten_thousand_levels_keep_their_text():
    deep = {{
        "blockquotes": ">" * 10_000 + " deepest",
        "bullets": "- " * 10_000 + "deepest",
        "ordered": "1. " * 10_000 + "deepest",
        "indented lists": "\\n".join("  " * i + "- deepest" for i in range(1_000)),
        "quoted lines": "\\n".join(">" * i + " deepest" for i in range(1, 1_000)),
        "links": "[" * 10_000 + "deepest" + "](x)" * 10_000,
        "emphasis": "*" * 10_000 + "deepest" + "*" * 10_000,
        "html": "<div>" * 10_000 + "deepest" + "</div>" * 10_000,
        "inline html": "x " + "<span>" * 10_000 + "deepest",
    }}
    for name, source in deep.items():
        seconds, text = cpu(source)
        print(f"{{name}}: {{seconds:.2f}} s")
        assert "deepest" in text, name
        assert seconds < 30, name
"""


@pytest.mark.slow
def test_one_megabyte_and_deep_nesting_are_bounded(tmp_path):
    pages = str(REPO / "tests/data/olmocr-bench-sample/olmocr_pipeline/**/*.md")
    (tmp_path / "test_bounds.py").write_text(BOUNDS.format(pages=pages), encoding="utf-8")
    session = run_bounded(tmp_path, "-p", "no:ocr", "-q", "-s", "test_bounds.py", memory_mb=1536, timeout=600)
    assert session.returncode == 0, session.output[-3000:]
    assert "2 passed" in session.output
    assert session.max_rss_mb < 1024, session.max_rss_mb
    print(session.output, f"peak {session.max_rss_mb:.0f} MB")


def test_nesting_beyond_the_limit_is_kept_as_text():
    # markdown-it alone drops what lies deeper than its limit; the levels within it are parsed
    assert markdown_text("> " * (MAX_NESTING + 5) + "**deepest**") == "> > > > > deepest"
    assert markdown_text("> " * (MAX_NESTING - 1) + "**deep**") == "deep"


# -- through pytest: a case file with the profile, the CER in the JSON report ----------------------------


@pytest.mark.slow
def test_a_case_file_with_the_markdown_profile(suite):
    suite.image("page.tif", MARKDOWN.replace("alpha", "aipha"))
    suite.image("same.tif", MARKDOWN)
    suite.write(
        "vlm.ocr.yaml",
        textwrap.dedent(
            """\
            defaults:
              normalize: markdown
            cases:
              - id: one-error
                image: page.tif
                expected: {text: %s}
                thresholds: {cer: "<= 0.05"}
              - id: markup-only
                image: same.tif
                expected: {text: %s}
                thresholds: {cer: "== 0"}
              - id: without-the-profile
                image: same.tif
                expected: {text: %s}
                normalize: {profile: default}
            """
        )
        % (json.dumps(PLAIN), json.dumps(PLAIN), json.dumps(PLAIN)),
    )
    result = suite.pytester.runpytest("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "--ocr-report", "r.json")
    result.assert_outcomes(passed=3)
    from pytest_ocr.run.stored import load_report

    results = {r["id"]: r for r in load_report(suite.path / "r.json")["results"]}
    assert set(results) == {
        f"vlm.ocr.yaml::{case}[fake]" for case in ("one-error", "markup-only", "without-the-profile")
    }
    results = {key.split("::")[1].split("[")[0]: value for key, value in results.items()}
    normalization = profile("markdown")
    one_error = results["one-error"]
    assert one_error["metrics"]["cer"] == pytest.approx(1 / len(normalization(PLAIN)))
    assert one_error["metrics"]["cer"] == pytest.approx(
        jiwer.cer(normalization(PLAIN), normalization(MARKDOWN.replace("alpha", "aipha")))
    )
    assert one_error["details"]["cer"]["normalization"] == ["profile:markdown", "NFC", "collapse_whitespace"]
    assert results["markup-only"]["metrics"]["cer"] == 0.0
    default = profile("default")
    assert results["without-the-profile"]["metrics"]["cer"] == pytest.approx(
        jiwer.cer(default(PLAIN), default(MARKDOWN))
    )
    assert results["without-the-profile"]["metrics"]["cer"] > 0.1
