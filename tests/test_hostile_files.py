"""Hostile case and data files (issue 12): each is a clear, located outcome for that file
or item only (file:line, key, what was expected); every other item still runs and
passes, the JSON report is written and validates, and the session ends well within its
time and memory bounds.

Every test runs a real pytest session in a subprocess (``run_bounded``: a memory cap and
a timeout) over a suite of good cases on a python engine reading side-car files, plus
the hostile file.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
import yaml._yaml as yaml_c  # type: ignore[import-not-found]
from conftest import DATA, Bounded, run_bounded

from pytest_ocr import limits
from pytest_ocr.media import document

pytestmark = pytest.mark.slow

TIMEOUT = 60  # seconds; the sessions must end in well under half of it
MEMORY_MB = 600
MB = 1024 * 1024

ENGINE = """
from pathlib import Path

def read(image_path):
    return Path(image_path).with_suffix(".ocr.txt").read_text(encoding="utf-8")
"""
CONFIG = "engines:\n  fake: {type: python, function: 'sidecar_engine:read'}\ndefaults:\n  engine: fake\n"
GOOD_SUITE = """cases:
  - {id: good-1, image: good.tif, expected: {text: hello}, thresholds: {cer: '< 0.5'}}
  - {id: good-2, image: good.tif, expected: {text: hello}, tags: [receipts]}
"""
GOOD = {("good.ocr.yaml", "good-1", "fake"): "passed", ("good.ocr.yaml", "good-2", "fake"): "passed"}
NESTING = "mappings and lists nested more than 100 levels deep; the limit is 100 (--ocr-max-nesting)"


def make_suite(root: Path) -> Path:
    """The good part of every session: a project configuration declaring the side-car
    engine, an image whose side-car says 'hello', and a suite of two cases that pass."""
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\nocr_config = ocr-config.yaml\n", encoding="utf-8")
    (root / "sidecar_engine.py").write_text(ENGINE, encoding="utf-8")
    (root / "ocr-config.yaml").write_text(CONFIG, encoding="utf-8")
    shutil.copy(DATA / "pages" / "tess_phototest.tif", root / "good.tif")
    (root / "good.ocr.txt").write_text("hello", encoding="utf-8")
    (root / "good.ocr.yaml").write_text(GOOD_SUITE, encoding="utf-8")
    return root.resolve()


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def sparse(path: Path, size: int) -> Path:
    """A file of ``size`` bytes that takes no disk space (and must never be read)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as file:
        file.truncate(size)
    return path


def run(root: Path, *args: str) -> Bounded:
    return run_bounded(root, "--ocr-report", "report.json", *args, memory_mb=MEMORY_MB, timeout=TIMEOUT)


def check(root: Path, result: Bounded, lines: list[str], outcomes: dict, code: int = 1) -> dict:
    """The session ended normally with ``code``, printed each of ``lines`` as a whole line,
    ran the good items and gave ``outcomes`` for the others, wrote a valid report, and
    stayed well within its bounds. Returns the report."""
    out = result.output
    assert result.returncode == code, out[-4000:]
    printed = out.splitlines()
    for line in lines:
        assert line in printed, f"missing line:\n{line}\n--- output:\n{out[-4000:]}"
    # Memory: the session ran under RLIMIT_AS (MEMORY_MB), so an allocation beyond it
    # would have raised MemoryError; its resident peak stayed well below.
    assert result.max_rss_mb < MEMORY_MB / 2, f"peak memory {result.max_rss_mb:.0f} MB"
    for crash in ("Traceback", "INTERNALERROR", "MemoryError", "RecursionError", "Fatal Python error"):
        assert crash not in out, out[-4000:]
    assert result.seconds < TIMEOUT / 2, f"took {result.seconds:.1f} s"
    report = result.report(root)
    got = {(r["file"], r["case"], r["engine"]): r["outcome"] for r in report["results"]}
    assert got == {**GOOD, **outcomes}
    assert report["run"]["status"] == "complete"
    return report


def invalid(file: str) -> dict:
    """The outcome of a case file that could not be loaded."""
    return {(file, "invalid-case-file", None): "invalid"}


def errored(*cases: str, file: str = "hostile.ocr.yaml", engine: str = "fake") -> dict:
    return {(file, case, engine): "error" for case in cases}


def problem(file: str, line: int | None, key: str, message: str) -> str:
    """A case file's problem as the error item lists it."""
    where = f"{file}:{line}" if line else file
    return f"  {where}: {key}: {message}"


def hostile_suite(root: Path, *cases: str) -> Path:
    """``hostile.ocr.yaml`` holding these case lines (``cases[0]`` on line 2)."""
    return write(root / "hostile.ocr.yaml", "cases:\n" + "".join(f"  - {case}\n" for case in cases))


def at(case: str, line: int = 2) -> str:
    return f"(case {case} at hostile.ocr.yaml:{line})"


# -- 1. deep nesting ----------------------------------------------------------------------------


def flow_brackets(root: Path) -> tuple[list[str], dict]:
    # 100 KB of brackets: libyaml's recursive composer overflowed the C stack (a segfault
    # killed pytest, no report); now the nesting is refused as the parser's events come.
    depth = 50_000
    write(root / "deep.ocr.yaml", "image: good.tif\nexpected:\n  fields: {a: " + "[" * depth + "]" * depth + "}\n")
    assert (root / "deep.ocr.yaml").stat().st_size > 100_000
    return [problem("deep.ocr.yaml", 3, "expected.fields.a", NESTING)], invalid("deep.ocr.yaml")


def block_indentation(root: Path) -> tuple[list[str], dict]:
    # 500 levels of block mappings, one per line, indented two spaces more each
    levels = "".join("  " * (i + 2) + f"k{i}:\n" for i in range(500))
    write(root / "deep.ocr.yaml", "image: good.tif\nexpected:\n  fields:\n" + levels + "  " * 502 + "x\n")
    # the top level, expected, fields and k0 ... k96 are 100 levels: k97's mapping is one too many
    return [problem("deep.ocr.yaml", 4 + 98, "expected.fields.k0", NESTING)], invalid("deep.ocr.yaml")


def json_brackets(root: Path) -> tuple[list[str], dict]:
    # 500 levels: json.loads raised RecursionError during collection (exit 2, nothing ran)
    write(
        root / "deep.ocr.json", '{"image": "good.tif",\n "expected": {"fields": {"a": ' + "[" * 500 + "]" * 500 + "}}}"
    )
    return [problem("deep.ocr.json", 2, "(top level)", NESTING)], invalid("deep.ocr.json")


def fields_file(root: Path) -> tuple[list[str], dict]:
    write(root / "deep-fields.yaml", "a: " + "[" * 50_000 + "]" * 50_000 + "\n")
    hostile_suite(root, "{id: deep-fields, image: good.tif, expected: {text: hello, fields_file: deep-fields.yaml}}")
    # libyaml 0.2.6 on refuses the brackets itself as it scans ahead (its limit is 1000), so
    # the refusal comes one list earlier than at our own limit of 100
    keypath = "a[0]" if hasattr(yaml_c, "_get_max_nest_level") else "a[0][0]"
    line = f"fields file cannot be used: deep-fields.yaml:1: {keypath}: {NESTING} {at('deep-fields')}"
    return [line], errored("deep-fields")


def ground_truth_json(root: Path) -> tuple[list[str], dict]:
    write(root / "data" / "images" / "a.tif", "")
    write(root / "data" / "ground_truth.json", '{\n  "a.tif": {"fields": {"x": ' + "[" * 5000 + "]" * 5000 + "}}}\n")
    write(root / "gt.ocr.yaml", "dataset:\n  type: ground-truth-json\n  path: data\n")
    return [problem("gt.ocr.yaml", 3, "dataset.path", f"data/ground_truth.json:2: {NESTING}")], invalid("gt.ocr.yaml")


def predictions_line(root: Path) -> tuple[list[str], dict]:
    write(
        root / "preds.jsonl", '{"image": "good.tif", "text": "hello"}\n{"image": ' + "[" * 50_000 + "]" * 50_000 + "}\n"
    )
    write(
        root / "hostile.ocr.yaml",
        "engines:\n  preds: {type: predictions, path: preds.jsonl}\n"
        "cases:\n  - {id: from-file, image: good.tif, expected: {text: hello}, engine: preds}\n",
    )
    line = f"malformed predictions file preds.jsonl, line 2: {NESTING}"
    return [line], errored("from-file", engine="preds")


@pytest.mark.parametrize(
    "make",
    [flow_brackets, block_indentation, json_brackets, fields_file, ground_truth_json, predictions_line],
    ids=lambda make: make.__name__,
)
def test_deep_nesting_is_a_located_error_naming_the_limit(tmp_path: Path, make: Callable) -> None:
    root = make_suite(tmp_path)
    lines, outcomes = make(root)
    result = run(root)
    assert result.returncode >= 0, "killed by a signal"  # the segfault is gone
    check(root, result, lines, outcomes)


def test_the_nesting_limit_is_the_option(tmp_path: Path) -> None:
    root = make_suite(tmp_path)
    write(
        root / "deep.ocr.yaml", "image: good.tif\nexpected:\n  text: hello\n  schema: " + "[" * 150 + "]" * 150 + "\n"
    )
    check(root, run(root), [problem("deep.ocr.yaml", 4, "expected.schema[0]", NESTING)], invalid("deep.ocr.yaml"))
    # with a higher limit the file loads: the schema's own check then speaks (a list is no schema)
    result = run(root, "--ocr-max-nesting", "200")
    assert NESTING not in result.output and "--ocr-max-nesting" not in result.output
    check(root, result, [], invalid("deep.ocr.yaml"))
    assert "deep.ocr.yaml:4: expected.schema: expected object or boolean" in result.output


# -- 2. YAML alias bombs --------------------------------------------------------------------------


def alias_bomb(indent: str = "") -> str:
    """'Billion laughs' in YAML: ten anchors, each nine aliases of the one before (9^10 nodes)."""
    lines = [f"{indent}a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for previous, name in zip("abcdefghi", "bcdefghij", strict=True):
        lines.append(f"{indent}{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
    return "\n".join(lines) + "\n"


ALIASES = (
    "YAML aliases expand the document by more than 1000000 nodes (at least 1270459); "
    "the limit is 1000000 (--ocr-max-yaml-nodes)"
)


def bomb_case_file(root: Path) -> tuple[list[str], dict]:
    write(root / "bomb.ocr.yaml", "image: good.tif\nexpected:\n  fields:\n" + alias_bomb("    "))
    return [problem("bomb.ocr.yaml", 10, "expected.fields.g", ALIASES)], invalid("bomb.ocr.yaml")


def bomb_fields_file(root: Path) -> tuple[list[str], dict]:
    write(root / "bomb.yaml", alias_bomb())
    hostile_suite(root, "{id: bomb, image: good.tif, expected: {text: hello, fields_file: bomb.yaml}}")
    return [f"fields file cannot be used: bomb.yaml:7: g[0]: {ALIASES} {at('bomb')}"], errored("bomb")


def bomb_schema_file(root: Path) -> tuple[list[str], dict]:
    write(root / "bomb-schema.yaml", "type: object\n" + alias_bomb())
    hostile_suite(root, "{id: bomb, image: good.tif, expected: {text: hello, schema_file: bomb-schema.yaml}}")
    line = f"schema file cannot be used: bomb-schema.yaml:8: g[0]: {ALIASES} {at('bomb')}"
    return [line], errored("bomb")


@pytest.mark.parametrize("make", [bomb_case_file, bomb_fields_file, bomb_schema_file], ids=lambda make: make.__name__)
def test_yaml_alias_bombs_are_refused_quickly_in_bounded_memory(tmp_path: Path, make: Callable) -> None:
    root = make_suite(tmp_path)
    lines, outcomes = make(root)
    check(root, run(root), lines, outcomes)


def test_an_alias_bomb_in_the_project_configuration_stops_the_run_at_its_line(tmp_path: Path) -> None:
    # An unusable configuration stops pytest before any OCR runs (exit 4, README), quickly.
    root = make_suite(tmp_path)
    write(root / "ocr-config.yaml", CONFIG + "aggregate:\n" + alias_bomb("  "))
    result = run(root)
    assert result.returncode == pytest.ExitCode.USAGE_ERROR, result.output[-3000:]
    lines = result.output.splitlines()
    assert "ERROR: ocr_config: invalid project configuration" in lines
    assert problem(str(root / "ocr-config.yaml"), 12, "aggregate.g[0]", ALIASES) in lines  # no run: no report
    assert "Traceback" not in result.output and "MemoryError" not in result.output
    assert result.seconds < TIMEOUT / 2


def test_an_alias_to_the_node_that_holds_it_is_refused(tmp_path: Path) -> None:
    root = make_suite(tmp_path)
    write(root / "loop.ocr.yaml", "image: good.tif\nexpected:\n  fields: &all {a: 1, b: *all}\n")
    message = "alias *all is inside the node it names (a structure without end)"
    check(root, run(root), [problem("loop.ocr.yaml", 3, "expected.fields.b", message)], invalid("loop.ocr.yaml"))


# -- 3. file size and special files -------------------------------------------------------------


LIMIT_MB = "is 101 MB; the limit is 100 MB (--ocr-max-file-mb)"


def ground_truth_fifo(root: Path) -> tuple[list[str], dict]:
    os.mkfifo(root / "gt.txt")  # opening it for reading would wait for a writer forever
    hostile_suite(root, "{id: gt, image: good.tif, expected: {text_file: gt.txt}}")
    return [f"ground truth file is a named pipe (FIFO), not a regular file: gt.txt {at('gt')}"], (errored("gt"))


def ground_truth_dev_zero(root: Path) -> tuple[list[str], dict]:
    (root / "gt.txt").symlink_to("/dev/zero")  # endless: reading it would exhaust memory
    hostile_suite(root, "{id: gt, image: good.tif, expected: {text_file: gt.txt}}")
    line = f"ground truth file is a character device, not a regular file: gt.txt {at('gt')}"
    return [line], errored("gt")


def ground_truth_too_large(root: Path) -> tuple[list[str], dict]:
    sparse(root / "gt.txt", 101 * MB)
    hostile_suite(root, "{id: gt, image: good.tif, expected: {text_file: gt.txt}}")
    return [f"ground truth file {LIMIT_MB}: gt.txt {at('gt')}"], errored("gt")


def fields_file_fifo(root: Path) -> tuple[list[str], dict]:
    os.mkfifo(root / "fields.yaml")
    hostile_suite(root, "{id: f, image: good.tif, expected: {text: hello, fields_file: fields.yaml}}")
    line = f"fields file cannot be used: fields.yaml: fields file is a named pipe (FIFO), not a regular file {at('f')}"
    return [line], errored("f")


def case_file_too_large(root: Path) -> tuple[list[str], dict]:
    sparse(root / "big.ocr.yaml", 101 * MB)
    return [problem("big.ocr.yaml", None, "(top level)", f"case file {LIMIT_MB}")], invalid("big.ocr.yaml")


def paddle_suite(root: Path, label_file: str) -> None:
    write(root / "labels.ocr.yaml", f"dataset:\n  type: paddle\n  label_file: {label_file}\n")


def label_file_fifo(root: Path) -> tuple[list[str], dict]:
    os.mkfifo(root / "labels.txt")
    paddle_suite(root, "labels.txt")
    message = "label file is a named pipe (FIFO), not a regular file: labels.txt"
    return [problem("labels.ocr.yaml", 3, "dataset.label_file", message)], invalid("labels.ocr.yaml")


def label_file_dev_zero(root: Path) -> tuple[list[str], dict]:
    paddle_suite(root, "/dev/zero")
    message = "label file is a character device, not a regular file: /dev/zero"
    return [problem("labels.ocr.yaml", 3, "dataset.label_file", message)], invalid("labels.ocr.yaml")


def label_file_too_large(root: Path) -> tuple[list[str], dict]:
    sparse(root / "labels.txt", 101 * MB)
    paddle_suite(root, "labels.txt")
    message = f"label file {LIMIT_MB}: labels.txt"
    return [problem("labels.ocr.yaml", 3, "dataset.label_file", message)], invalid("labels.ocr.yaml")


def predictions_too_large(root: Path) -> tuple[list[str], dict]:
    sparse(root / "preds.csv", 101 * MB)
    write(
        root / "hostile.ocr.yaml",
        "engines:\n  preds: {type: predictions, path: preds.csv}\n"
        "cases:\n  - {id: from-file, image: good.tif, expected: {text: hello}, engine: preds}\n",
    )
    return [f"predictions file {LIMIT_MB}: preds.csv"], errored("from-file", engine="preds")


@pytest.mark.parametrize(
    "make",
    [
        ground_truth_fifo,
        ground_truth_dev_zero,
        ground_truth_too_large,
        fields_file_fifo,
        case_file_too_large,
        label_file_fifo,
        label_file_dev_zero,
        label_file_too_large,
        predictions_too_large,
    ],
    ids=lambda make: make.__name__,
)
def test_files_too_large_or_not_regular_are_refused_unread(tmp_path: Path, make: Callable) -> None:
    root = make_suite(tmp_path)
    lines, outcomes = make(root)
    check(root, run(root), lines, outcomes)


def test_a_fifo_among_layout_files_is_skipped_with_its_reason(tmp_path: Path) -> None:
    root = make_suite(tmp_path)
    write(
        root / "pages" / "ok.xml",
        '<PcGts><Page imageFilename="ok.tif"><TextRegion id="r"><TextLine><TextEquiv>'
        "<Unicode>hello</Unicode></TextEquiv></TextLine></TextRegion></Page></PcGts>",
    )
    shutil.copy(root / "good.tif", root / "pages" / "ok.tif")  # in the dataset's folder
    write(root / "pages" / "ok.ocr.txt", "hello")
    os.mkfifo(root / "pages" / "pipe.xml")
    write(root / "pages.ocr.yaml", "dataset: {type: page-xml, path: pages}\n")
    result = run(root)
    report = check(root, result, [], {("pages.ocr.yaml", "ok", "fake"): "passed"}, code=0)
    [dataset] = report["datasets"]
    assert dataset["skipped"] == 1 and dataset["evaluated"] == 1
    reason = "layout file is a named pipe (FIFO), not a regular file"
    assert dataset["skipped_entries"] == [{"file": "pages/pipe.xml", "line": None, "reason": reason}]


# -- 4. numbers ------------------------------------------------------------------------------------


FINITE = "is not a usable number: every number must be finite"


@pytest.mark.parametrize(
    "name, content, line, key, message",
    [
        (  # "< 1e400" matches the threshold pattern; its bound was refused only when items were made,
            # as a traceback interrupting the collection (exit 2, nothing ran)
            "n.ocr.yaml",
            'image: good.tif\nexpected: {text: hello}\nthresholds: {cer: "< 1e400"}\n',
            3,
            "thresholds.cer",
            "threshold for 'cer' is '< 1e400'; the bound must be a finite number, e.g. \"< 0.05\"",
        ),
        (
            "n.ocr.yaml",
            "image: good.tif\nexpected:\n  text: hello\n  fields: {total: .nan}\n",
            4,
            "expected.fields.total",
            f"NaN {FINITE}",
        ),
        (  # NaN is JSON to Python's parser
            "n.ocr.json",
            '{"image": "good.tif",\n "expected": {"text": "hello", "fields": {"total": NaN}}}',
            2,
            "expected.fields.total",
            f"NaN {FINITE}",
        ),
        (  # NaN passes "minimum: 0, maximum: 1": every comparison with it is false
            "n.ocr.json",
            '{"image": "good.tif", "expected": {"text": "hello"},\n "min_confidence": NaN}',
            2,
            "min_confidence",
            f"NaN {FINITE}",
        ),
        (  # was a ValueError traceback on the item when it ran
            "n.ocr.yaml",
            "image: good.tif\nexpected: {text: hello}\ntokens: {price_per_1k: .inf}\n",
            3,
            "tokens.price_per_1k",
            f"infinity {FINITE}",
        ),
        (  # 1e400 is a float's infinity to json.loads
            "n.ocr.json",
            '{"image": "good.tif", "expected": {"text": "hello"},\n "task": {"type": "qa", "expected": -1e400}}',
            2,
            "task.expected",
            f"-infinity {FINITE}",
        ),
        (
            "n.ocr.yaml",
            "image: good.tif\nexpected:\n  text: hello\n  fields: {total: " + "9" * 400 + "}\n",
            4,
            "expected.fields.total",
            "a number of 400 digits is not usable: every number must be finite, at most 1.79769e+308 in size",
        ),
        (
            "n.ocr.yaml",
            "image: good.tif\nexpected: {text: hello}\nregression: {cer: '" + "9" * 400 + "%'}\n",
            3,
            "regression.cer",
            f"a tolerance must be a finite number of 0 or more, not '{'9' * 400}%'",
        ),
    ],
    ids=["threshold-1e400", "yaml-nan-field", "json-nan-field", "json-nan-min-confidence", "yaml-inf-price",
         "json-1e400", "integer-beyond-float", "tolerance-beyond-float"],
)  # fmt: skip
def test_non_finite_numbers_in_a_case_file_are_located(tmp_path, name, content, line, key, message) -> None:
    root = make_suite(tmp_path)
    write(root / name, content)
    check(root, run(root), [problem(name, line, key, message)], invalid(name))


def test_non_finite_numbers_in_data_files_are_located(tmp_path: Path) -> None:
    root = make_suite(tmp_path)
    write(root / "fields.json", '{"total": 1,\n "tax": Infinity}')
    hostile_suite(root, "{id: f, image: good.tif, expected: {text: hello, fields_file: fields.json}}")
    write(root / "data" / "images" / "a.tif", "")
    write(root / "data" / "ground_truth.json", '{"a.tif": {"full_text": "x",\n  "fields": {"total": NaN}}}')
    write(root / "gt.ocr.yaml", "dataset:\n  type: ground-truth-json\n  path: data\n")
    lines = [
        f"fields file cannot be used: fields.json:2: tax: infinity {FINITE} {at('f')}",
        problem("gt.ocr.yaml", 3, "dataset.path", f"data/ground_truth.json:2: a.tif.fields.total: NaN {FINITE}"),
    ]
    check(root, run(root), lines, {**errored("f"), **invalid("gt.ocr.yaml")})


# -- 5. tags and ids pytest's -m and -k cannot select ---------------------------------------------


TAG_RULE = (
    "expected a tag: letters, digits, '_' and '-', starting with a letter or '_'; not a word of pytest's -m and -k "
    "expressions (and, or, not, True, False, None), which could not select it, nor a built-in marker name "
    "(skip, skipif, xfail, parametrize, usefixtures, filterwarnings)"
)


@pytest.mark.parametrize("tag", ["not", "and", "or", "True", "False", "None"])
def test_tags_that_are_expression_words_are_refused_with_the_rule(tmp_path: Path, tag: str) -> None:
    root = make_suite(tmp_path)
    write(root / "t.ocr.yaml", f"image: good.tif\nexpected: {{text: hello}}\ntags: [receipts, '{tag}']\n")
    message = f'"{tag}" is reserved; {TAG_RULE}'
    check(root, run(root), [problem("t.ocr.yaml", 3, "tags[1]", message)], invalid("t.ocr.yaml"))


def test_a_tag_that_is_not_an_identifier_is_refused_with_the_rule(tmp_path: Path) -> None:
    root = make_suite(tmp_path)
    write(root / "t.ocr.yaml", "image: good.tif\nexpected: {text: hello}\ntags: ['two words']\n")
    message = f'{TAG_RULE}; got "two words"'
    check(root, run(root), [problem("t.ocr.yaml", 3, "tags[0]", message)], invalid("t.ocr.yaml"))


@pytest.mark.parametrize("stem", ["two words", "page[1]"])
def test_an_id_taken_from_a_file_name_follows_the_id_rule(tmp_path: Path, stem: str) -> None:
    root = make_suite(tmp_path)
    name = f"{stem}.ocr.yaml"
    write(root / name, "image: good.tif\nexpected: {text: hello}\n")
    write(root / "named.ocr.yaml", "id: fine\nimage: good.tif\nexpected: {text: hello}\n")  # id: given
    write(root / "named copy.ocr.yaml", "id: fine-too\nimage: good.tif\nexpected: {text: hello}\n")
    message = (
        f"the case id {stem!r} comes from the file name {name!r}, and an id is "
        "letters, digits, '_', '.', '-' (no spaces or brackets), e.g. inv-001; rename the file or set id:"
    )
    outcomes = {
        **invalid(name),
        ("named.ocr.yaml", "fine", "fake"): "passed",
        ("named copy.ocr.yaml", "fine-too", "fake"): "passed",
    }
    check(root, run(root), [problem(name, 1, "id", message)], outcomes)


# -- 6. kinds handled before, still handled -----------------------------------------------------------


def test_conflicting_declarations_and_unreadable_ground_truth_stay_located(tmp_path: Path) -> None:
    root = make_suite(tmp_path)
    write(  # the same engine name twice in one file
        root / "engines.ocr.yaml",
        "engines:\n  other: {type: python, function: 'sidecar_engine:read'}\n"
        "  other: {type: tesseract}\nimage: good.tif\nexpected: {text: hello}\n",
    )
    write(  # a case id twice in one suite
        root / "ids.ocr.yaml",
        "cases:\n  - {id: same, image: good.tif, expected: {text: hello}}\n"
        "  - {id: same, image: good.tif, expected: {text: hello}}\n",
    )
    models = root / "bench" / "models"
    write(models / "m1.csv", "image_name,batch_id,inference\nx.tif,b1,hello\n")
    write(root / "bench" / "images" / "b1" / "x.tif", "")
    write(root / "bench" / "images" / "b1" / "x.gt.txt", "hello")
    write(  # an engine declared by the file and by its dataset
        root / "bench.ocr.yaml",
        "engines:\n  m1: {type: tesseract}\ndataset: {type: model-csv, images: bench/images, models: bench/models}\n",
    )
    (root / "latin1.txt").write_bytes("Stra\xdfe".encode("latin-1"))
    (root / "gt-dir").mkdir()
    hostile_suite(
        root,
        "{id: latin1, image: good.tif, expected: {text_file: latin1.txt}}",
        "{id: dir, image: good.tif, expected: {text_file: gt-dir}}",
    )
    lines = [
        problem("engines.ocr.yaml", 3, "engines.other", "duplicate key 'other' (first on line 2)"),
        problem("ids.ocr.yaml", 3, "cases[1].id", "duplicate case id 'same' (first on line 2)"),
        problem("bench.ocr.yaml", 2, "engines.m1", "engine 'm1' is also declared by the dataset (line 3)"),
        f"ground truth file is not UTF-8: latin1.txt (invalid continuation byte at byte 4); "
        f"re-encode it as UTF-8 {at('latin1')}",
        f"ground truth file is a directory, not a regular file: gt-dir {at('dir', 3)}",
    ]
    outcomes = {
        **invalid("engines.ocr.yaml"),
        **invalid("ids.ocr.yaml"),
        **invalid("bench.ocr.yaml"),
        **errored("latin1", "dir"),
    }
    check(root, run(root), lines, outcomes)


def test_nesting_beyond_what_libyaml_reads_says_so(tmp_path: Path) -> None:
    # With --ocr-max-nesting raised beyond libyaml's own limit (1000, PyYAML 6.0.4 on), it is
    # libyaml's limit that refuses a deeper document: the message names that one, not ours.
    theirs = getattr(yaml_c, "_get_max_nest_level", lambda: None)()  # None before PyYAML 6.0.4
    raised = 1500
    beyond = (
        f"mappings and lists nested more than {theirs} levels deep, the most libyaml reads"
        if theirs is not None and theirs < raised
        else f"mappings and lists nested more than {raised} levels deep; the limit is {raised} (--ocr-max-nesting)"
    )
    path = write(tmp_path / "deep.ocr.yaml", "image: a.png\nexpected: {fields: {a: " + "[" * 5000 + "]" * 5000 + "}}\n")
    previous = limits.active()
    try:
        for ours, expected in (
            (raised, beyond),
            (100, "mappings and lists nested more than 100 levels deep; the limit is 100 (--ocr-max-nesting)"),
        ):
            limits.use(replace(previous, max_nesting=ours))
            with pytest.raises(document.DocumentError) as caught:
                document.load(path)
            [problem] = caught.value.problems
            assert (problem.line, problem.message) == (2, expected)
    finally:
        limits.use(previous)
