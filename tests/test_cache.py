"""The OCR output cache on a real directory: round trips, keys, damaged entries, real
concurrent processes, unwritable places, and engines whose fingerprints must change
when their code does."""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from pytest_ocr.engines import EngineSpec, Recognition, fingerprint_id
from pytest_ocr.engines.cache import FORMAT, Cached, OutputCache
from pytest_ocr.engines.command import CommandEngine
from pytest_ocr.engines.predictions import PredictionsEngine
from pytest_ocr.engines.python import PythonEngine
from pytest_ocr.engines.registry import declared

DATA = Path(__file__).parent.parent / "example_suite" / "data"
IMAGE = DATA / "pages" / "tess_phototest.tif"
FINGERPRINT = {"type": "my-engine", "version": "1.2", "config": {"model": "small", "params": {"beam": [1, 2]}}}

EVERYTHING = Recognition(
    text='Grüße, ſtraße — 漢字 🙂\n"quoted" \\ back\tslash\n',
    lines=None,
    confidence=None,
    raw={"finish_reason": "stop", "usage": {"prompt_tokens": 12, "total": 3.5}, "list": [1, None, True, "ä"]},
    fields={"invoice": {"total": "12.50", "items": [{"name": "Käse", "qty": 2}]}, "empty": {}},
    warnings=["repetition loop: 'ab' repeated 40 times", "ünïcode warning"],
)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def image(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def entry_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*") if p.is_file())


# --- round trip and layout ------------------------------------------------------------


def test_every_recognition_field_and_the_seconds_come_back(tmp_path):
    cache = OutputCache(tmp_path / "cache")
    key = cache.key(IMAGE, FINGERPRINT)
    assert cache.get(key) is None
    assert cache.put(key, EVERYTHING, 1.25) is True
    assert cache.get(key) == Cached(EVERYTHING, 1.25)

    with_lines = Recognition("a\nb", lines=["a", "b"], confidence=0.875, raw="plain", fields=None, warnings=[])
    other = cache.key(IMAGE, {**FINGERPRINT, "version": "1.3"})
    assert cache.put(other, with_lines, 0.0)
    assert cache.get(other) == Cached(with_lines, 0.0)
    assert cache.get(key) == Cached(EVERYTHING, 1.25)


def test_one_utf8_json_file_per_entry_fanned_out_by_the_keys_first_two_characters(tmp_path):
    cache = OutputCache(tmp_path)
    key = cache.key(IMAGE, FINGERPRINT)
    cache.put(key, EVERYTHING, 2.5)
    (path,) = entry_files(tmp_path)
    assert path == tmp_path / key[:2] / f"{key}.json"
    data = path.read_bytes()
    assert "Grüße, ſtraße — 漢字 🙂".encode() in data  # ensure_ascii=False, UTF-8
    entry = json.loads(data.decode("utf-8"))
    assert entry["format"] == FORMAT == "pytest-ocr-cache/1"
    assert entry["key"] == key and entry["seconds"] == 2.5
    assert entry["recognition"]["fields"] == EVERYTHING.fields


# --- keys -----------------------------------------------------------------------------


def test_key_is_the_images_sha256_and_the_fingerprint_id(tmp_path):
    key = OutputCache(tmp_path).key(IMAGE, FINGERPRINT)
    assert key == f"{sha256(IMAGE.read_bytes())}-{fingerprint_id(FINGERPRINT)}"


def test_key_follows_the_image_bytes_not_its_path(tmp_path):
    cache = OutputCache(tmp_path / "cache")
    path = image(tmp_path, "scan.png", b"first image")
    first = cache.key(path, FINGERPRINT)
    path.write_bytes(b"first imagf")
    assert cache.key(path, FINGERPRINT) != first
    path.write_bytes(b"first image")
    assert cache.key(path, FINGERPRINT) == first
    copy = tmp_path / "elsewhere" / "renamed.tif"
    copy.parent.mkdir()
    shutil.copy(path, copy)
    assert cache.key(copy, FINGERPRINT) == first


def test_a_large_image_is_hashed_whole(tmp_path):
    # Three chunks and a bit: a change in the last byte must still change the key.
    data = bytearray(os.urandom(3 * (1 << 20) + 17))
    path = image(tmp_path, "big.tif", bytes(data))
    cache = OutputCache(tmp_path / "cache")
    key = cache.key(path, FINGERPRINT)
    assert key.startswith(sha256(bytes(data)))
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    assert cache.key(path, FINGERPRINT) != key


@pytest.mark.parametrize(
    "changed",
    [
        {**FINGERPRINT, "type": "other"},
        {**FINGERPRINT, "version": "1.2.1"},
        {**FINGERPRINT, "version": None},
        {**FINGERPRINT, "config": {"model": "small", "params": {"beam": [1, 3]}}},
        {**FINGERPRINT, "config": {"model": "small", "params": {"beam": [1, 2], "extra": None}}},
        {**FINGERPRINT, "config": {"model": "small", "params": {"beam": [2, 1]}}},
    ],
)
def test_key_changes_with_any_value_of_the_fingerprint(tmp_path, changed):
    cache = OutputCache(tmp_path)
    assert cache.key(IMAGE, changed) != cache.key(IMAGE, FINGERPRINT)


def test_key_does_not_depend_on_key_order_and_holds_no_option_value(tmp_path):
    cache = OutputCache(tmp_path)
    reordered = {"config": {"params": {"beam": [1, 2]}, "model": "small"}, "version": "1.2", "type": "my-engine"}
    assert cache.key(IMAGE, reordered) == cache.key(IMAGE, FINGERPRINT)
    fingerprint = {"type": "openai", "version": None, "config": {"prompt": "Transcribe-zebra-7", "model": "qwen-vl"}}
    key = cache.key(IMAGE, fingerprint)
    cache.put(key, Recognition("x"), 1.0)
    stored = b"".join(p.read_bytes() + str(p).encode() for p in entry_files(tmp_path))
    for value in (b"Transcribe-zebra-7", b"qwen-vl", b"openai"):
        assert value not in key.encode() and value not in stored


def test_a_string_that_is_not_a_key_is_refused(tmp_path):
    cache = OutputCache(tmp_path / "cache")
    with pytest.raises(ValueError, match="not an output cache key"):
        cache.get("../../etc/passwd")
    with pytest.raises(ValueError, match="not an output cache key"):
        cache.put("ab", Recognition("x"), 1.0)


# --- damaged and foreign entries --------------------------------------------------------


def _good_entry(directory: Path, key: str) -> str:
    """A sound entry for ``key`` as put writes it, for the cases below to damage."""
    cache = OutputCache(directory)
    cache.put(key, EVERYTHING, 1.5)
    return (directory / key[:2] / f"{key}.json").read_text(encoding="utf-8")


DAMAGE = {
    "empty": lambda good, key: b"",
    "truncated": lambda good, key: good.encode()[: len(good) // 2],
    "cut before the last brace": lambda good, key: good.encode()[:-1],
    "not utf-8": lambda good, key: b'{"format": "pytest-ocr-cache/1", "key": "\xff\xfe"}',
    "binary garbage": lambda good, key: bytes(range(256)),
    "a json list": lambda good, key: b"[1, 2, 3]",
    "a json string": lambda good, key: json.dumps(good).encode(),
    "older format": lambda good, key: good.replace(FORMAT, "pytest-ocr-cache/0").encode(),
    "no format": lambda good, key: good.replace('"format"', '"fmt"').encode(),
    "another key's entry": lambda good, key: good.replace(key, "0" * 64 + "-" + "0" * 16).encode(),
    "NaN seconds": lambda good, key: good.replace('"seconds": 1.5', '"seconds": NaN').encode(),
    "negative seconds": lambda good, key: good.replace('"seconds": 1.5', '"seconds": -1').encode(),
    "seconds as text": lambda good, key: good.replace('"seconds": 1.5', '"seconds": "1.5"').encode(),
    "text not a string": lambda good, key: _edit(good, text=["a"]),
    "lines not strings": lambda good, key: _edit(good, lines=["a", 1]),
    "confidence true": lambda good, key: _edit(good, confidence=True),
    "fields a list": lambda good, key: _edit(good, fields=[]),
    "warnings missing": lambda good, key: _edit(good, warnings=...),
    "an unknown field": lambda good, key: _edit(good, boxes=[]),
    "nested too deep": lambda good, key: b"[" * 100_000 + b"]" * 100_000,
}


def _edit(good: str, **changes) -> bytes:
    entry = json.loads(good)
    for name, value in changes.items():
        if value is ...:
            del entry["recognition"][name]
        else:
            entry["recognition"][name] = value
    return json.dumps(entry).encode()


@pytest.mark.parametrize("damage", DAMAGE, ids=list(DAMAGE))
def test_a_damaged_or_foreign_entry_is_a_miss_and_is_replaced(tmp_path, damage):
    cache = OutputCache(tmp_path / "cache")
    key = cache.key(IMAGE, FINGERPRINT)
    path = tmp_path / "cache" / key[:2] / f"{key}.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(DAMAGE[damage](_good_entry(tmp_path / "scratch", key), key))
    assert cache.get(key) is None
    assert cache.put(key, EVERYTHING, 0.5)
    assert cache.get(key) == Cached(EVERYTHING, 0.5)


def test_the_undamaged_entry_used_above_is_a_hit(tmp_path):
    # The damage cases start from this entry: were it a miss already, they would prove nothing.
    cache = OutputCache(tmp_path / "cache")
    key = cache.key(IMAGE, FINGERPRINT)
    path = tmp_path / "cache" / key[:2] / f"{key}.json"
    path.parent.mkdir(parents=True)
    good = _good_entry(tmp_path / "scratch", key)
    assert '"seconds": 1.5' in good
    path.write_text(good, encoding="utf-8")
    assert cache.get(key) == Cached(EVERYTHING, 1.5)
    path.write_bytes(_edit(good))  # re-serialised with ASCII escapes: still ours
    assert cache.get(key) == Cached(EVERYTHING, 1.5)


def test_a_directory_where_the_entry_should_be_is_a_miss_and_put_says_no(tmp_path):
    cache = OutputCache(tmp_path / "cache")
    key = cache.key(IMAGE, FINGERPRINT)
    (tmp_path / "cache" / key[:2] / f"{key}.json" / "inside").mkdir(parents=True)
    assert cache.get(key) is None
    assert cache.put(key, EVERYTHING, 1.0) is False
    assert "cannot write to the OCR output cache" in cache.write_error
    assert [p.name for p in (tmp_path / "cache" / key[:2]).iterdir()] == [f"{key}.json"]  # no temporary left


# --- what is not stored -------------------------------------------------------------


@pytest.mark.parametrize(
    "recognition",
    [
        Recognition("x", raw=(1, 2)),  # would come back as a list
        Recognition("x", raw={1: "one"}),  # would come back with the key "1"
        Recognition("x", raw=object()),
        Recognition("x", fields={"total": Path("12.50")}),
        Recognition("x", confidence=float("nan")),
        Recognition("x", lines=("x",)),
        Recognition("lone surrogate \ud800"),  # not encodable as UTF-8
    ],
    ids=["tuple", "int key", "object", "path in fields", "nan", "lines tuple", "surrogate"],
)
def test_an_output_json_would_not_give_back_unchanged_is_not_stored(tmp_path, recognition):
    cache = OutputCache(tmp_path / "cache")
    key = cache.key(IMAGE, FINGERPRINT)
    assert cache.put(key, recognition, 1.0) is False
    assert cache.get(key) is None
    assert entry_files(tmp_path) == []
    assert cache.write_error is None  # not a problem of the directory


@pytest.mark.parametrize("seconds", [float("inf"), -0.5])
def test_impossible_seconds_are_not_stored(tmp_path, seconds):
    cache = OutputCache(tmp_path / "cache")
    key = cache.key(IMAGE, FINGERPRINT)
    assert cache.put(key, Recognition("x"), seconds) is False
    assert cache.get(key) is None


# --- unwritable places ----------------------------------------------------------------


def test_an_unwritable_directory_does_not_raise(tmp_path):
    # A file where the directory should be: unwritable for every user, root included.
    (tmp_path / "blocker").write_text("not a directory")
    cache = OutputCache(tmp_path / "blocker" / "cache")
    key = cache.key(IMAGE, FINGERPRINT)
    assert cache.put(key, EVERYTHING, 1.0) is False
    first = cache.write_error
    assert first.startswith(f"cannot write to the OCR output cache {tmp_path / 'blocker' / 'cache'}: ")
    assert cache.get(key) is None
    assert cache.put(cache.key(IMAGE, {**FINGERPRINT, "version": "2"}), EVERYTHING, 1.0) is False
    assert cache.write_error == first  # the first reason is kept, to be shown once


# --- engines that opt out ---------------------------------------------------------------


def test_engines_are_cacheable_unless_they_say_otherwise(tmp_path):
    (tmp_path / "p.csv").write_text("image,text\na.png,x\n", encoding="utf-8")
    predictions = PredictionsEngine(EngineSpec("preds", "predictions", {"path": "p.csv"}, tmp_path))
    assert predictions.cacheable is False

    class Plain:
        pass

    class OptedOut:
        cacheable = False

    # what a factory returns, as the registry hands it on
    assert declared(Plain()).cacheable is True
    assert declared(OptedOut()).cacheable is False
    helpers = Path(__file__).parent / "engine_helpers"
    python = PythonEngine(EngineSpec("py", "python", {"function": "ocr_funcs:read_name"}, helpers))
    assert python.cacheable is True
    assert declared(python) is python


# --- concurrent processes ---------------------------------------------------------------

WORKER = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from pytest_ocr.engines.cache import Cached, OutputCache
    from pytest_ocr.engines import Recognition

    directory, me, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    keys = json.loads(sys.argv[4])

    def written_by(key, writer):
        # Big enough that a torn write would be visible, different for every writer.
        text = f"{key}/{writer}/ü\\n" * 300
        rec = Recognition(text, lines=text.splitlines(), confidence=writer / 10, raw={"writer": writer},
                          fields={"key": key, "writer": [writer] * 50}, warnings=[f"w{writer}"])
        return Cached(rec, writer + 0.25)

    cache = OutputCache(Path(directory))
    mine = keys["shared"] + [keys["own"][me]]
    stored, hits, misses = set(), 0, 0
    for round in range(rounds):
        for key in mine[round % len(mine):] + mine[:round % len(mine)]:
            got = cache.get(key)
            if got is None:
                assert key not in stored, f"miss after a successful put of {key}"
                misses += 1
            else:
                writer = got.recognition.raw["writer"]
                assert got == written_by(key, writer), f"wrong entry for {key}"
                assert key in keys["shared"] or writer == me, "someone wrote my own key"
                hits += 1
            expected = written_by(key, me)
            assert cache.put(key, expected.recognition, expected.seconds), cache.write_error
            stored.add(key)
    print(json.dumps({"hits": hits, "misses": misses}))
    """
)


@pytest.mark.slow
def test_concurrent_processes_never_see_half_an_entry(tmp_path):
    processes, rounds = 4, 150
    cache = OutputCache(tmp_path / "cache")
    images = [image(tmp_path, f"img{i}.png", f"image {i}".encode()) for i in range(3 + processes)]
    keys = [cache.key(path, FINGERPRINT) for path in images]
    plan = json.dumps({"shared": keys[:3], "own": keys[3:]})
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(tmp_path / "cache"), str(me), str(rounds), plan],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for me in range(processes)
    ]
    counts = []
    for worker in workers:
        stdout, stderr = worker.communicate(timeout=300)
        assert worker.returncode == 0, stderr
        counts.append(json.loads(stdout))
    for count in counts:
        assert count["hits"] + count["misses"] == rounds * 4
        assert count["misses"] <= 4  # at most the first get of each key misses
    files = entry_files(tmp_path / "cache")
    assert sorted(p.name for p in files) == sorted(f"{key}.json" for key in keys)  # no temporaries left
    for me, key in enumerate(keys[3:]):
        assert cache.get(key).recognition.raw == {"writer": me}
    for key in keys[:3]:
        assert cache.get(key).recognition.raw["writer"] in range(processes)


# --- fingerprints that follow the code ------------------------------------------------


def _write_module(directory: Path, name: str, body: str) -> Path:
    path = directory / f"{name}.py"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def _fresh_python_engine(directory: Path, target: str, *modules: str) -> PythonEngine:
    # Import the modules anew (as a new pytest process would) rather than from sys.modules.
    for name in modules:
        sys.modules.pop(name, None)
    importlib.invalidate_caches()
    return PythonEngine(EngineSpec("mine", "python", {"function": target}, directory))


def test_editing_a_python_engines_module_misses_the_cache(tmp_path):
    name = f"ocr_cache_engine_{uuid.uuid4().hex}"
    module = _write_module(
        tmp_path,
        name,
        """
        __version__ = "1.0"

        def read(image_path):
            return "first"
    """,
    )
    try:
        before = _fresh_python_engine(tmp_path, f"{name}:read", name)
        assert before.fingerprint()["config"]["source"] == sha256(module.read_bytes())[:16]
        cache = OutputCache(tmp_path / "cache")
        key = cache.key(IMAGE, before.fingerprint())
        assert cache.put(key, before.recognize(IMAGE), 0.1)

        # Same __version__, same kwargs: only the code changed (and its size, so no stale .pyc).
        module.write_text(module.read_text().replace('"first"', '"second, edited"'), encoding="utf-8")
        after = _fresh_python_engine(tmp_path, f"{name}:read", name)
        assert after.recognize(IMAGE).text == "second, edited"
        assert after.fingerprint()["version"] == before.fingerprint()["version"] == "1.0"
        assert after.fingerprint()["config"]["source"] == sha256(module.read_bytes())[:16]
        assert after.fingerprint() != before.fingerprint()
        assert cache.get(cache.key(IMAGE, after.fingerprint())) is None
        assert cache.get(key).recognition.text == "first"
    finally:
        sys.modules.pop(name, None)


def test_the_source_hashed_is_the_module_that_defines_the_function(tmp_path):
    facade, impl = f"ocr_facade_{uuid.uuid4().hex}", f"ocr_impl_{uuid.uuid4().hex}"
    _write_module(tmp_path, facade, f"from {impl} import read\n")
    implementation = _write_module(
        tmp_path,
        impl,
        """
        def read(image_path):
            return "v1"
    """,
    )
    try:
        before = _fresh_python_engine(tmp_path, f"{facade}:read", facade, impl)
        assert before.fingerprint()["config"]["source"] == sha256(implementation.read_bytes())[:16]
        implementation.write_text(implementation.read_text().replace('"v1"', '"v2 edited"'), encoding="utf-8")
        after = _fresh_python_engine(tmp_path, f"{facade}:read", facade, impl)
        assert after.recognize(IMAGE).text == "v2 edited"
        assert after.fingerprint()["config"]["source"] != before.fingerprint()["config"]["source"]
    finally:
        sys.modules.pop(facade, None)
        sys.modules.pop(impl, None)


def test_replacing_a_command_engines_executable_misses_the_cache(tmp_path):
    script = tmp_path / "my-ocr"
    script.write_text("#!/bin/sh\necho first\n")
    script.chmod(0o755)
    argv = [str(script), "{image}"]
    before = CommandEngine(EngineSpec("cmd", "command", {"argv": argv, "version": "1.0"}, tmp_path))
    assert before.fingerprint()["config"]["executable"] == sha256(script.read_bytes())[:16]
    cache = OutputCache(tmp_path / "cache")
    key = cache.key(IMAGE, before.fingerprint())
    assert cache.put(key, before.recognize(IMAGE), 0.1)

    script.write_text("#!/bin/sh\necho second\n")  # same name, same argv, same declared version
    after = CommandEngine(EngineSpec("cmd", "command", {"argv": argv, "version": "1.0"}, tmp_path))
    assert after.recognize(IMAGE).text == "second\n"
    assert after.fingerprint()["config"]["executable"] == sha256(script.read_bytes())[:16]
    assert after.fingerprint() != before.fingerprint()
    assert cache.get(cache.key(IMAGE, after.fingerprint())) is None
