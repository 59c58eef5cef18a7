"""The Markdown output as the HTML report draws it (pytest_ocr/report/markdown_view.py): inert nodes from an
allow-list, with the places failed facts looked marked. The browser side is in test_checks.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pytest_ocr.report import markdown_view
from pytest_ocr.report.markdown_view import MAX_DEPTH, MAX_RENDERED_CHARS, markdown_tree

SCRIPT = (Path(markdown_view.__file__).parent / "html_assets" / "report.js").read_text(encoding="utf-8")
# The tags the page's script makes: every node's tag must be one (it draws any other as a span).
DRAWN = set(re.findall(r'"(\w+)"', re.search(r"const OUTPUT_TAGS = new Set\(\[(.*?)\]\)", SCRIPT, re.S).group(1)))
CLASSES = set(re.findall(r'"(\w+)"', re.search(r"const OUTPUT_CLASSES = \[(.*?)\]", SCRIPT).group(1)))


def nodes(tree):
    """Every node of a tree, depth first, with its depth."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        yield node, depth
        stack += [(child, depth + 1) for child in reversed(node[2:]) if isinstance(child, list)]


def text(node) -> str:
    return "".join(child if isinstance(child, str) else text(child) for child in node[2:])


def find(tree, tag: str) -> list:
    return [node for node, _ in nodes(tree) if node[0] == tag]


def test_markdown_becomes_elements_and_text():
    source = (
        "# Title\n\nSome *em*, **strong**, ~~struck~~ and `code`, \\(x^2\\), [a link](https://example.org) "
        "and ![a figure](fig.png).  \nNext line\n\n3. three\n4. four\n\n| A | B |\n|---|---|\n| 1 | 2 |\n\n"
        "```\nfenced <b>\n```\n\n$$\nE = mc^2\n$$\n\n---\n"
    )
    tree = markdown_tree(source)
    assert tree[0] == "div" and [node[0] for node in tree[2:]] == ["h1", "p", "ol", "table", "pre", "pre", "hr"]
    paragraph = tree[3]
    assert (
        ["em", None, "em"] in paragraph
        and ["strong", None, "strong"] in paragraph
        and ["del", None, "struck"] in paragraph
    )
    assert ["code", None, "code"] in paragraph and ["code", {"class": "math"}, "x^2"] in paragraph
    assert ["span", {"class": "link", "title": "https://example.org"}, "a link"] in paragraph
    assert ["span", {"class": "image"}, "[image: a figure]"] in paragraph
    assert ["br", None] in paragraph
    assert tree[4][1] == {"start": 3} and [text(item) for item in tree[4][2:]] == ["three", "four"]
    assert [[text(cell) for cell in row[2:]] for row in find(tree, "tr")] == [["A", "B"], ["1", "2"]]
    assert tree[6] == ["pre", None, "fenced <b>"] and tree[7] == ["pre", {"class": "math"}, "\nE = mc^2"]


def test_html_keeps_tables_and_text_and_drops_everything_else():
    source = (
        "<table><tr><th onclick=x>A</th><th colspan=2 style='x'>B</th></tr>"
        '<tr><td rowspan="3">1</td><td rowspan=0>2</td><td colspan="5000">3</td><td colspan=2px>4</td></tr></table>\n\n'
        "<p>Some <b>bold</b> <i>it</i> <sup>2</sup> <font color=red>red</font><script>alert(1)</script>"
        "<style>p{}</style><!-- note --> <img src=http://x/y.png alt='a chart'><iframe src=x></iframe>"
        "<a href='javascript:alert(1)'>link</a></p>\n"
    )
    tree = markdown_tree(source)
    cells = [(node[0], node[1], text(node)) for node, _ in nodes(tree) if node[0] in ("td", "th")]
    assert sorted(cells, key=lambda cell: cell[2]) == [
        ("td", {"rowspan": 3}, "1"),
        ("td", None, "2"),  # a span of 0: not a whole number from 1
        ("td", None, "3"),  # beyond MAX_SPAN
        ("td", None, "4"),  # not a number
        ("th", None, "A"),
        ("th", {"colspan": 2}, "B"),
    ]
    (paragraph,) = find(tree, "p")
    assert text(paragraph) == "Some bold it 2 red [image: a chart]link"
    assert {node[0] for node, _ in nodes(paragraph)} == {"p", "strong", "em", "sup", "span"}


def test_failed_facts_are_marked_on_their_blocks_rows_and_cells():
    source = "Intro text\n\n| A | B |\n|---|---|\n| 1 | 2 |\n\n<table>\n<tr><td>x</td><td>y</td></tr>\n</table>\n"
    at = source.index
    tree = markdown_tree(
        source, [[(at("Intro"), at("Intro") + 5)], [(at("2 |"), at("2 |") + 1)], [(at("y<"), at("y<") + 1)]]
    )
    marked = {text(node): node[1]["facts"] for node, _ in nodes(tree) if node[1] and "facts" in node[1]}
    assert marked == {"Intro text": [0], "12": [1], "y": [2]}  # a paragraph, a Markdown row, an HTML cell
    # A span on no block (blank lines) marks nothing; an HTML block inside a list has no known offsets.
    assert all(not (node[1] or {}).get("facts") for node, _ in nodes(markdown_tree(source, [[(11, 12)]])))
    nested = "- item\n\n  <table><tr><td>z</td></tr></table>\n"
    assert text(find(markdown_tree(nested, [[(nested.index("z"), nested.index("z") + 1)]]), "td")[0]) == "z"


def test_deep_and_long_outputs_stay_bounded():
    deep = markdown_tree("<div>" * 5000 + "deep" + "</div>" * 10)
    assert max(depth for _, depth in nodes(deep)) <= MAX_DEPTH + 2 and "deep" in json.dumps(deep)
    emphasis = markdown_tree("*" * 3000 + "a" + "*" * 3000)
    assert max(depth for _, depth in nodes(emphasis)) <= MAX_DEPTH + 2
    json.dumps(emphasis)
    assert markdown_tree("x" * (MAX_RENDERED_CHARS + 1)) is None
    assert markdown_tree("x" * MAX_RENDERED_CHARS) is not None


PIECES = [
    "# h\n",
    "\n\n",
    "text ",
    "*",
    "_",
    "`",
    "$",
    "\\(",
    "\\)",
    "|",
    "---",
    "\n",
    "<table>",
    "<tr>",
    "<td rowspan=2>",
    "</td>",
    "</tr>",
    "</table>",
    "<script>",
    "</script>",
    "<b>",
    "</b>",
    "<img src=x onerror=y>",
    "<a href=x>",
    "<svg onload=x>",
    "<iframe>",
    "![x](y)",
    "[l](javascript:x)",
    "<!--",
    "-->",
    "&amp;",
    "&lt;script&gt;",
    "> ",
    "1. ",
    "- ",
    "    code",
    "$$",
    "\u202e",
    "<th colspan='3'>",
    "<ol start=5>",
    "<li>",
    "<p>",
    "<br/>",
]


@given(st.lists(st.sampled_from(PIECES), max_size=60), st.lists(st.tuples(st.integers(0, 300), st.integers(1, 40))))
def test_every_node_is_one_the_page_draws_with_only_its_attributes(pieces, spans):
    source = "".join(pieces)
    tree = markdown_tree(source, [[(a, a + n)] for a, n in spans])
    for node, _ in nodes(tree):
        tag, attributes = node[0], node[1] or {}
        assert tag in DRAWN and tag != "mark" or (tag == "mark" and set(attributes) == {"facts"}), node
        assert set(attributes) <= {"rowspan", "colspan", "start", "class", "title", "facts"}, attributes
        for key in ("rowspan", "colspan"):
            assert key not in attributes or (type(attributes[key]) is int and 1 <= attributes[key] <= 1000)
        assert "class" not in attributes or attributes["class"] in CLASSES
        assert all(type(i) is int and 0 <= i < len(spans) for i in attributes.get("facts", ()))
        assert all(isinstance(child, str | list) for child in node[2:])
    json.dumps(tree)
