"""Pages for OmniDocBench's scoring made in code (shared with benchmarks/bench_omnidocbench.py):
an ordinary page of up to 200 blocks with an output that splits, merges, reorders and misspells
them, and a hostile output of thousands of paragraphs and tables. Seeded: the same every run."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "data" / "omnidocbench"

_WORDS = (
    "the of and to in is that for it as was with be by on not he this are or his from at which but have an they "
    "you were her she there been one all we their has would when if more no out so said what up its about than "
    "into them can only other time new some could these two may first then do any like my now over such our man "
    "me even most made after also did many before must through back years where much your way well down should"
).split()


def fixture_pages() -> list[dict[str, Any]]:
    """The oracle fixture's ground-truth pages (tests/data/omnidocbench/pages.json)."""
    pages: list[dict[str, Any]] = json.loads((DATA / "pages.json").read_text(encoding="utf-8"))
    return pages


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words)).capitalize() + "."


def _misspelt(rng: random.Random, text: str, rate: float) -> str:
    chars = list(text)
    for i in range(len(chars)):
        if chars[i].isalpha() and rng.random() < rate:
            chars[i] = rng.choice("abcdefghijklmnopqrstuvwxyz")
    return "".join(chars)


def ordinary_page(blocks: int = 200, seed: int = 0) -> tuple[dict[str, Any], str]:
    """A ground-truth page of ``blocks`` blocks (paragraphs, titles, a header and a footer) and
    an output that reads them with 3% of letters wrong, every 10th paragraph split in two,
    every 15th merged with the next, and every 20th pair swapped."""
    rng = random.Random(seed)
    dets: list[dict[str, Any]] = []
    for i in range(blocks):
        category = "header" if i == 0 else "footer" if i == blocks - 1 else "title" if i % 12 == 1 else "text_block"
        text = _sentence(rng, 4) if category != "text_block" else " ".join(_sentence(rng, 12) for _ in range(3))
        dets.append({"category_type": category, "order": i + 1, "anno_id": i, "text": text, "attribute": {}})
    page = {
        "layout_dets": dets,
        "page_info": {"image_path": f"ordinary_{blocks}.png", "page_attribute": {}},
        "extra": {"relation": []},
    }
    paragraphs = [_misspelt(rng, d["text"], 0.03) for d in dets]
    out: list[str] = []
    i = 0
    while i < len(paragraphs):
        if i % 20 == 7 and i + 1 < len(paragraphs):
            out += [paragraphs[i + 1], paragraphs[i]]
            i += 2
        elif i % 15 == 3 and i + 1 < len(paragraphs):
            out.append(paragraphs[i] + " " + paragraphs[i + 1])
            i += 2
        elif i % 10 == 5:
            half = len(paragraphs[i]) // 2
            out += [paragraphs[i][:half], paragraphs[i][half:]]
            i += 1
        else:
            out.append(paragraphs[i])
            i += 1
    return page, "\n\n".join(out)


def hostile_markdown(paragraphs: int = 10_000, tables: int = 1_000, seed: int = 0) -> str:
    """An output no page has: ``paragraphs`` paragraphs of random words and ``tables`` HTML
    tables (3 x 3 cells) between them."""
    rng = random.Random(seed)
    every = max(paragraphs // max(tables, 1), 1)
    parts: list[str] = []
    made = 0
    for i in range(paragraphs):
        parts.append(_sentence(rng, rng.randint(5, 40)))
        if made < tables and i % every == every - 1:
            rows = "".join(
                "<tr>" + "".join(f"<td>{_sentence(rng, 2)}</td>" for _ in range(3)) + "</tr>" for _ in range(3)
            )
            parts.append(f"<table>{rows}</table>")
            made += 1
    return "\n\n".join(parts)
