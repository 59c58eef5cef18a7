"""The README, the documentation pages and their fenced code blocks."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import REPO

DOCS = REPO / "docs"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)


def readme() -> str:
    return (REPO / "README.md").read_text(encoding="utf-8")


def documents() -> list[Path]:
    """The README, then every page of the documentation site."""
    return [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]


def fenced_blocks() -> list[tuple[Path, int, str, str]]:
    """(file, line, language, text) of every fenced block of the README and the pages."""
    found = []
    for path in documents():
        text = path.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            found.append((path, text.count("\n", 0, match.start()) + 1, match.group(1), match.group(2)))
    return found
