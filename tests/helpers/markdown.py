"""Markdown rendered as GitHub renders it (cmark-gfm) and parsed, to check that OCR text in it stays inert."""

from __future__ import annotations

from html.parser import HTMLParser

import cmarkgfm
from cmarkgfm.cmark import Options

ALLOWED_TAGS = {"h3", "h4", "h5", "p", "strong", "em", "table", "thead", "tbody", "tr", "th", "td", "ul", "li"}


class Rendered(HTMLParser):
    """The tags, the tables (rows of cell texts) and the visible text of rendered HTML."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.tables: list[list[list[str]]] = []
        self.text: list[str] = []
        self._cell: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)

    def handle_comment(self, data):
        self.tags.add("<!-- comment -->")


def render(markdown: str) -> Rendered:
    # UNSAFE passes raw HTML through (GitHub then sanitises it); any tag that comes out was not escaped.
    return Rendered(cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE))


def assert_inert(rendered: Rendered) -> None:
    assert rendered.tags <= ALLOWED_TAGS, rendered.tags - ALLOWED_TAGS
    for table in rendered.tables:
        assert all(len(row) == len(table[0]) for row in table), table  # no pipe split a cell
