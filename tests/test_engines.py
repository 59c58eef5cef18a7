"""The built-in engines, run for real: Tesseract and RapidOCR on the example images,
the command engine on small scripts, the predictions engine on files written here."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.engines import HELPERS, spec
from rapidfuzz.distance import Levenshtein

from pytest_ocr.engines import EngineError, EngineRegistry, EngineSpec, Recognition
from pytest_ocr.engines.command import CommandEngine
from pytest_ocr.engines.predictions import PredictionsEngine
from pytest_ocr.engines.python import PythonEngine
from pytest_ocr.engines.rapidocr import RapidOCREngine
from pytest_ocr.engines.tesseract import TesseractEngine, debian_package

DATA = Path(__file__).parent.parent / "example_suite" / "data"
FAKE_OCR = str(HELPERS / "fake_ocr.py")

needs_tesseract = pytest.mark.skipif(shutil.which("tesseract") is None, reason="the tesseract binary is not on PATH")


def cer(text: str, truth: str) -> float:
    text, truth = " ".join(text.split()), " ".join(truth.split())
    return Levenshtein.distance(text, truth) / max(1, len(truth))


def ground_truth(image: Path) -> str:
    return image.with_suffix(".gt.txt").read_text(encoding="utf-8")


def installed_languages() -> list[str]:
    return subprocess.run(["tesseract", "--list-langs"], capture_output=True, text=True).stdout.splitlines()[1:]


# --- option validation (shared by all engines) ---------------------------------------


@pytest.mark.parametrize(
    ("type_", "options", "expected"),
    [
        ("tesseract", {"psm": "6"}, ["'psm'", "must be int", "got str"]),
        ("tesseract", {"psm": True}, ["'psm'", "must be int", "got bool"]),
        ("tesseract", {"language": "deu"}, ["unknown option 'language'", "lang (str)", "psm (int)", "tessdata_dir"]),
        ("tesseract", {"config": {"tessedit_pageseg_mode": [6]}}, ["'config'", "dict[str, str | int | float | bool]"]),
        ("tesseract", {"psm": 14}, ["'psm'", "between 0 and 13"]),
        ("tesseract", {"timeout": -1}, ["'timeout'", "positive"]),
        ("rapidocr", {"params": "Det.box_thresh=0.5"}, ["'params'", "dict[str, Any]"]),
        ("rapidocr", {"model": "x"}, ["unknown option 'model'", "params"]),
        ("command", {}, ["'argv'", "is required", "list[str]"]),
        ("command", {"argv": "ocr {image}"}, ["'argv'", "list[str]", "got str"]),
        ("command", {"argv": ["ocr", "x.png"]}, ["'argv'", "{image}"]),
        ("command", {"argv": ["ocr", "{image}"], "env": {"TOKEN": True}}, ["'env'", "dict[str, str | int | float]"]),
        ("predictions", {}, ["'path'", "is required"]),
        ("predictions", {"path": "preds.xlsx"}, ["'path'", ".csv", ".jsonl", "directory"]),
        ("python", {"function": "ocr_funcs"}, ["'function'", "module:function"]),
        ("python", {"function": "ocr_funcs:read_name", "args": []}, ["unknown option 'args'", "function (str)"]),
        ("python", {"function": "ocr_funcs:read_name", "timeout": 5}, ["option 'timeout' needs 'isolate: true'"]),
        (
            "python",
            {"function": "ocr_funcs:read_name", "isolate": True, "timeout": 0},
            ["option 'timeout' must be a positive number of seconds"],
        ),
    ],
)
def test_bad_options_name_the_engine_key_and_what_is_valid(type_, options, expected):
    with pytest.raises(EngineError) as info:
        EngineRegistry().create(spec(type_, **options))
    message = str(info.value)
    assert message.startswith(f"{type_} engine 'my-{type_}' (declared at ocr.yaml:7): ")
    for part in expected:
        assert part in message


# --- tesseract ------------------------------------------------------------------------


@pytest.mark.slow
@needs_tesseract
def test_tesseract_reads_the_clean_test_page():
    image = DATA / "pages" / "tess_phototest.tif"
    result = TesseractEngine(spec("tesseract")).recognize(image)
    assert cer(result.text, ground_truth(image)) == 0  # measured: 0.0
    assert result.lines[0] == "This is a lot of 12 point text to test the"
    assert len(result.lines) == 8
    assert 0.9 < result.confidence <= 1  # measured: 0.96


@pytest.mark.slow
@needs_tesseract
def test_tesseract_psm_changes_the_output():
    image = DATA / "pages" / "tess_phototest.tif"
    # Page segmentation mode 7 treats the whole page as a single text line.
    assert len(TesseractEngine(spec("tesseract", psm=7)).recognize(image).lines) == 1


@pytest.mark.slow
@needs_tesseract
def test_tesseract_lang_selects_the_model():
    # Debian installs the Fraktur script model at the top level, tessdata repositories under script/.
    lang = next((lang for lang in ("Fraktur", "script/Fraktur") if lang in installed_languages()), None)
    assert lang is not None, "the Tesseract Fraktur model is not installed (apt-get install tesseract-ocr-script-frak)"
    image = DATA / "lines" / "archiscribe_homerswerke06vossgoog_6390c50e.png"
    fraktur = TesseractEngine(spec("tesseract", lang=lang, psm=7)).recognize(image).text
    english = TesseractEngine(spec("tesseract", lang="eng", psm=7)).recognize(image).text
    assert cer(fraktur, ground_truth(image)) < 0.1  # measured: 0.048
    assert cer(english, ground_truth(image)) > 0.1  # measured: 0.19
    assert "ſ" in fraktur and "ſ" not in english


@pytest.mark.slow
@needs_tesseract
def test_tesseract_config_variables_are_passed():
    engine = TesseractEngine(spec("tesseract", config={"tessedit_char_whitelist": "0123456789"}))
    text = engine.recognize(DATA / "receipts" / "sroie_359.jpg").text
    assert set(text) <= set("0123456789 \n")
    assert "1479" in text  # the total, 14.79, without its dot


@needs_tesseract
def test_tesseract_fingerprint_has_the_real_version_and_models():
    installed = subprocess.run(["tesseract", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    fingerprint = TesseractEngine(spec("tesseract", lang="deu+eng", psm=6)).fingerprint()
    assert fingerprint["type"] == "tesseract"
    assert fingerprint["version"] == installed.strip()
    assert fingerprint["config"]["lang"] == "deu+eng"
    assert fingerprint["config"]["psm"] == 6
    assert set(fingerprint["config"]["traineddata"]) == {"deu", "eng"}


@needs_tesseract
def test_tesseract_missing_language_names_the_package():
    # Which models are installed differs between machines; take real ones that are not.
    candidates = ("chi_tra_vert", "kor_vert", "script/Hangul_vert", "yid")
    missing = [lang for lang in candidates if lang not in installed_languages()][:2]
    with pytest.raises(EngineError) as info:
        TesseractEngine(spec("tesseract", lang="+".join(["eng", *missing])))
    message = str(info.value)
    assert f"language(s) {', '.join(missing)} not installed" in message
    assert f"apt-get install {' '.join(debian_package(lang) for lang in missing)}" in message
    assert "installed: " in message and "eng" in message


def test_debian_package_names():
    assert debian_package("deu") == "tesseract-ocr-deu"
    assert debian_package("chi_sim") == "tesseract-ocr-chi-sim"
    assert debian_package("chi_sim_vert") == "tesseract-ocr-chi-sim-vert"
    assert debian_package("script/Fraktur") == "tesseract-ocr-script-frak"
    assert debian_package("Fraktur") == "tesseract-ocr-script-frak"  # Debian installs it without script/
    assert debian_package("script/HanS_vert") == "tesseract-ocr-script-hans-vert"


def test_tesseract_binary_missing_gives_install_hint():
    with pytest.raises(EngineError) as info:
        TesseractEngine(spec("tesseract", binary="/nonexistent/tesseract"))
    assert "/nonexistent/tesseract" in str(info.value)
    assert "apt-get install tesseract-ocr" in str(info.value) and "brew install tesseract" in str(info.value)


@needs_tesseract
def test_tesseract_unreadable_image_is_an_engine_error(tmp_path):
    with pytest.raises(EngineError, match=r"(?s)exit code 1.*cannot read input file"):
        TesseractEngine(spec("tesseract")).recognize(tmp_path / "missing.png")


@needs_tesseract
def test_tesseract_timeout():
    engine = TesseractEngine(spec("tesseract", timeout=0.2))
    with pytest.raises(EngineError, match=r"timed out after 0.2 s"):
        engine.recognize(DATA / "pages" / "unlv_8087_054.tif")  # takes several seconds


# --- rapidocr -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rapidocr():
    pytest.importorskip("rapidocr")
    return RapidOCREngine(spec("rapidocr"))


@pytest.mark.slow
def test_rapidocr_reads_its_own_test_line_exactly(rapidocr):
    image = DATA / "lines" / "rapidocr_en_rec.jpg"
    result = rapidocr.recognize(image)
    assert result.text == ground_truth(image).strip()
    assert result.lines == [result.text]
    assert 0.9 < result.confidence <= 1  # measured: 0.99
    assert len(result.raw["boxes"][0]) == 8


@pytest.mark.slow
def test_rapidocr_reads_a_receipt_as_many_lines(rapidocr):
    image = DATA / "receipts" / "sroie_359.jpg"
    result = rapidocr.recognize(image)
    keys = json.loads(image.with_suffix(".keys.json").read_text())
    assert len(result.lines) > 20  # measured: 60
    assert result.text == "\n".join(result.lines)
    assert keys["company"] in result.text and keys["total"] in result.text
    assert cer(result.text, ground_truth(image)) < 0.5  # measured: 0.39 (SROIE box order differs)


@pytest.mark.slow
def test_rapidocr_nothing_detected_is_empty_text(rapidocr, tmp_path):
    from PIL import Image

    Image.new("RGB", (200, 100), "white").save(tmp_path / "blank.png")
    result = rapidocr.recognize(tmp_path / "blank.png")
    assert (result.text, result.lines, result.confidence) == ("", [], None)


@pytest.mark.slow
def test_rapidocr_unreadable_image_names_the_file(rapidocr, tmp_path):
    (tmp_path / "notes.png").write_text("not an image")
    with pytest.raises(EngineError, match="notes.png"):
        rapidocr.recognize(tmp_path / "notes.png")


@pytest.mark.slow
def test_rapidocr_model_is_shared_per_params(rapidocr):
    same = RapidOCREngine(EngineSpec("other-name", "rapidocr", {}, base_dir=Path("/elsewhere")))
    assert same.ocr is rapidocr.ocr
    params = {"Det.box_thresh": 0.6, "Det.model_type": "small"}
    different = RapidOCREngine(spec("rapidocr", params=params))
    assert different.ocr is not rapidocr.ocr
    assert RapidOCREngine(spec("rapidocr", params=dict(reversed(params.items())))).ocr is different.ocr


@pytest.mark.slow
def test_rapidocr_fingerprint(rapidocr):
    fingerprint = rapidocr.fingerprint()
    assert fingerprint["type"] == "rapidocr"
    assert fingerprint["version"].startswith("rapidocr 3.") and "onnxruntime" in fingerprint["version"]
    assert fingerprint["config"] == {}


@pytest.mark.slow
def test_rapidocr_bad_params_are_option_errors(rapidocr):
    with pytest.raises(EngineError, match="Global.nonsense is not a valid key"):
        RapidOCREngine(spec("rapidocr", params={"Global.nonsense": 1}))
    with pytest.raises(EngineError, match="Det.model_type must be one of .*small"):
        RapidOCREngine(spec("rapidocr", params={"Det.model_type": "huge"}))


def test_rapidocr_not_installed_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "rapidocr", None)  # makes `import rapidocr` fail
    with pytest.raises(EngineError, match=r'pip install "pytest-ocr\[rapidocr\]"'):
        RapidOCREngine(spec("rapidocr", params={"Global.text_score": 0.55}))


# --- command --------------------------------------------------------------------------


def command(*args: str, **options) -> CommandEngine:
    return CommandEngine(spec("command", argv=[sys.executable, FAKE_OCR, *args], **options))


def test_command_passes_argv_literally_without_a_shell(tmp_path):
    image = tmp_path / "scan 1.png"
    result = command("echo", "{image}", "name={image}", "; echo pwned", "$HOME", "*").recognize(image)
    assert result.text.splitlines() == [str(image), f"name={image}", "; echo pwned", "$HOME", "*"]


def test_command_env_cwd_and_fingerprint(tmp_path):
    (tmp_path / "work").mkdir()
    argv = [sys.executable, FAKE_OCR, "env", "OCR_TOKEN", "{image}"]
    options = {"env": {"OCR_TOKEN": "s3cret"}, "cwd": "work", "version": "my-ocr 2.1"}
    engine = CommandEngine(spec("command", base_dir=tmp_path, argv=argv, **options))
    assert engine.recognize(Path("a.png")).text == "s3cret\n"
    fingerprint = engine.fingerprint()
    assert "s3cret" not in json.dumps(fingerprint)
    executable = hashlib.sha256(Path(sys.executable).read_bytes()).hexdigest()[:16]  # argv[0]'s content
    assert fingerprint == {
        "type": "command",
        "version": "my-ocr 2.1",
        "config": {
            "argv": argv,
            "cwd": "work",
            "env": {"OCR_TOKEN": "sha256:" + hashlib.sha256(b"s3cret").hexdigest()[:16]},  # the value hashed
            "executable": executable,
        },
    }
    argv = [sys.executable, FAKE_OCR, "cwd", "{image}"]
    cwd = CommandEngine(spec("command", base_dir=tmp_path, argv=argv, cwd="work"))
    assert cwd.recognize(Path("a.png")).text.strip() == str(tmp_path / "work")


def test_command_version_argv_runs_once_at_construction():
    engine = command("echo", "{image}", version_argv=[sys.executable, "--version"])
    assert engine.fingerprint()["version"] == f"Python {sys.version.split()[0]}"


def test_command_nonzero_exit_shows_code_and_stderr_tail():
    with pytest.raises(EngineError) as info:
        command("fail", "{image}").recognize(DATA / "lines" / "rapidocr_en_rec.jpg")
    message = str(info.value)
    assert "exited with code 3" in message and "model file missing" in message
    assert len(message) < 2500  # only the tail of the 5,000-character stderr


@pytest.mark.slow
def test_command_timeout_kills_the_process_group(tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    engine = command("hang", str(pid_file), "{image}", timeout=1)
    started = time.monotonic()
    with pytest.raises(EngineError, match=r"timed out after 1 s"):
        engine.recognize(Path("a.png"))
    assert time.monotonic() - started < 10
    grandchild = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(grandchild)


def _alive(pid: int) -> bool:
    try:
        # A killed orphan may stay a zombie when PID 1 does not reap (containers).
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_command_output_must_be_utf8():
    with pytest.raises(EngineError, match="not UTF-8"):
        command("badutf8", "{image}").recognize(Path("a.png"))


def test_command_executable_not_found(tmp_path):
    with pytest.raises(EngineError, match="'no-such-ocr-program' not found on PATH"):
        CommandEngine(spec("command", argv=["no-such-ocr-program", "{image}"]))
    with pytest.raises(EngineError, match=r"'bin/ocr' not found relative to"):
        CommandEngine(spec("command", base_dir=tmp_path, argv=["bin/ocr", "{image}"]))


@pytest.mark.slow
@needs_tesseract
def test_command_runs_the_real_tesseract():
    image = DATA / "pages" / "tess_phototest.tif"
    engine = CommandEngine(spec("command", argv=["tesseract", "{image}", "stdout", "-l", "eng"]))
    assert cer(engine.recognize(image).text, ground_truth(image)) == 0


# --- predictions ----------------------------------------------------------------------


def predictions(tmp_path: Path, name: str, content: str | None = None, **options) -> PredictionsEngine:
    if content is not None:
        (tmp_path / name).write_text(content, encoding="utf-8")
    return PredictionsEngine(spec("predictions", base_dir=tmp_path, path=name, **options))


def test_predictions_csv(tmp_path):
    content = 'image,text\nscan_001.png,"Total, 12.50\nThank you"\nimages/scan_002.png,second\nscan_003,third\n'
    engine = predictions(tmp_path, "preds.csv", content)
    assert engine.recognize(tmp_path / "elsewhere" / "scan_001.png") == Recognition("Total, 12.50\nThank you")
    assert engine.recognize(tmp_path / "images" / "scan_002.png").text == "second"  # relative path
    assert engine.recognize(Path("/data/scan_003.jpg")).text == "third"  # stem
    version = hashlib.sha256(content.encode()).hexdigest()[:16]
    assert engine.fingerprint() == {
        "type": "predictions",
        "version": version,
        "config": {"path": "preds.csv", "image_column": None, "text_column": None},
    }


def test_predictions_one_csv_per_model_contract(tmp_path):
    content = "image_name,batch_id,inference\nscan_001.png,0,hello\nscan_002.png,0,\n"
    engine = predictions(tmp_path, "model_a.csv", "\ufeff" + content)  # with the BOM spreadsheets write
    assert engine.recognize(Path("scan_001.png")).text == "hello"
    assert engine.recognize(Path("scan_002.png")).text == ""  # an empty prediction is still a prediction


def test_predictions_custom_columns(tmp_path):
    engine = predictions(tmp_path, "p.csv", "file,ocr\na.png,x\n", image_column="file", text_column="ocr")
    assert engine.recognize(Path("a.png")).text == "x"
    with pytest.raises(EngineError, match="no column 'image'.*columns: file, ocr"):
        predictions(tmp_path, "p.csv").recognize(Path("a.png"))


def test_predictions_jsonl(tmp_path):
    lines = [{"image": "sub/a.png", "text": "ä\nb"}, {"image": "b.png", "text": "c", "ms": 12}]
    engine = predictions(tmp_path, "p.jsonl", "\n".join(json.dumps(line) for line in lines) + "\n\n")
    assert engine.recognize(tmp_path / "sub" / "a.png").text == "ä\nb"
    assert engine.recognize(Path("b.png")).text == "c"


def test_predictions_directory_of_txt(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "scan_001.txt").write_text("first\n", encoding="utf-8")
    (tmp_path / "out" / "scan_002.txt").write_text("zweite Zeile ſ\n", encoding="utf-8")
    engine = predictions(tmp_path, "out")
    assert engine.recognize(Path("/images/scan_001.png")).text == "first\n"
    assert engine.recognize(Path("scan_002.tif")).text == "zweite Zeile ſ\n"
    version = engine.fingerprint()["version"]
    (tmp_path / "out" / "scan_001.txt").write_text("changed\n", encoding="utf-8")
    assert predictions(tmp_path, "out").fingerprint()["version"] != version


def test_predictions_missing_image_is_an_error_not_empty(tmp_path):
    engine = predictions(tmp_path, "p.csv", "image,text\na.png,x\n")
    with pytest.raises(EngineError, match=r"no prediction for .*b\.png in .*p\.csv"):
        engine.recognize(Path("b.png"))


def test_predictions_duplicate_key_names_both_lines(tmp_path):
    engine = predictions(tmp_path, "p.csv", "image,text\na.png,x\nb.png,y\n./a.png,z\n")
    with pytest.raises(EngineError, match=r"duplicate prediction for '\./a\.png'.*lines 2 and 4"):
        engine.recognize(Path("b.png"))


def test_predictions_malformed_lines_are_named(tmp_path):
    jsonl = predictions(tmp_path, "p.jsonl", '{"image": "a.png", "text": "x"}\n{"image": "b.png", "text": \n')
    with pytest.raises(EngineError, match=r"malformed predictions file .*p\.jsonl, line 2: not valid JSON"):
        jsonl.recognize(Path("a.png"))
    null_text = predictions(tmp_path, "q.jsonl", '{"image": "a.png", "text": null}\n')
    with pytest.raises(EngineError, match=r"q\.jsonl, line 1: key 'text' must be a string, got null"):
        null_text.recognize(Path("a.png"))
    csv_extra = predictions(tmp_path, "p.csv", "image,text\na.png,x\nb.png,1,5\n")
    with pytest.raises(EngineError, match=r"p\.csv, line 3: expected 2 fields"):
        csv_extra.recognize(Path("a.png"))
    # The line where the quote opens, not the last record read whole (nor the file's end).
    unclosed = "line 5: a quoted field opens here and is never closed (unexpected end of data)"
    csv_quote = predictions(tmp_path, "q.csv", 'image,text\na.png,x\nb.png,y\nc.png,z\nd.png,"open\ne.png,w\n')
    with pytest.raises(EngineError, match=rf"q\.csv, {re.escape(unclosed)}$"):
        csv_quote.recognize(Path("a.png"))
    # After a field quoted over two lines, a quote doubled inside a field, a quote inside an unquoted field.
    text = 'image,text\na.png,"two\nlines"\nb.png,"say ""hi"""\nc.png,a "quote\nd.png,"open\n'
    with pytest.raises(EngineError, match=rf"r\.csv, {re.escape(unclosed.replace('5', '6'))}$"):
        predictions(tmp_path, "r.csv", text).recognize(Path("a.png"))
    strict = predictions(tmp_path, "s.csv", 'image,text\na.png,x\nb.png,"y"z\nc.png,w\n')
    with pytest.raises(EngineError, match=r"s\.csv, line 3: ',' expected after '\"'$"):
        strict.recognize(Path("a.png"))


def test_predictions_file_is_read_once(tmp_path):
    engine = predictions(tmp_path, "p.csv", "image,text\na.png,x\nb.png,y\n")
    version = engine.fingerprint()["version"]
    assert engine.recognize(Path("a.png")).text == "x"
    (tmp_path / "p.csv").write_text("image,text\na.png,CHANGED\nb.png,CHANGED\n", encoding="utf-8")
    assert engine.recognize(Path("b.png")).text == "y"
    assert engine.fingerprint()["version"] == version


def test_predictions_file_not_there(tmp_path):
    with pytest.raises(EngineError, match=r"cannot read predictions .*nope\.csv"):
        predictions(tmp_path, "nope.csv").recognize(Path("a.png"))


# --- python ---------------------------------------------------------------------------


def python(function: str, **options) -> PythonEngine:
    return PythonEngine(spec("python", function=function, **options))


def test_python_function_returning_str_with_kwargs():
    path_before = list(sys.path)
    engine = python("ocr_funcs:read_name", kwargs={"suffix": "!"})  # found through base_dir
    assert sys.path == path_before
    assert engine.recognize(Path("/images/scan.png")) == Recognition("scan.png!")
    source = hashlib.sha256((HELPERS / "ocr_funcs.py").read_bytes()).hexdigest()[:16]
    assert engine.fingerprint() == {
        "type": "python",
        "version": "1.2.3",
        "config": {"function": "ocr_funcs:read_name", "kwargs": {"suffix": "!"}, "source": source},
    }


def test_python_function_returning_recognition_or_dict():
    assert python("ocr_funcs:as_recognition").recognize(Path("a.png")) == Recognition("a\nb", ["a", "b"], 0.5)
    assert python("ocr_funcs:as_dict").recognize(Path("a.png")) == Recognition("a\nb", ["a", "b"], 1.0)


def test_python_dotted_attribute_path():
    engine = python("engine_helpers.ocr_funcs:Reader.read", base_dir=HELPERS.parent)
    assert engine.recognize(Path("a.png")).text == "static"


def test_python_exception_shows_type_message_and_frames():
    with pytest.raises(EngineError) as info:
        python("ocr_funcs:raises").recognize(Path("a.png"))
    message = str(info.value)
    assert "ocr_funcs:raises raised FileNotFoundError: weights.onnx not found" in message
    assert "in _load_model" in message and "ocr_funcs.py" in message


@pytest.mark.parametrize(
    ("function", "shown"),
    [("ocr_funcs:returns_int", "returned int 42"), ("ocr_funcs:returns_bad_dict", "returned dict {'txt': 'typo'}")],
)
def test_python_bad_return_type_says_what_was_expected(function, shown):
    with pytest.raises(EngineError) as info:
        python(function).recognize(Path("a.png"))
    assert shown in str(info.value)
    assert "expected a str, a Recognition or a dict with key 'text'" in str(info.value)


def test_python_import_errors_name_the_module():
    with pytest.raises(EngineError, match=r"cannot import module 'no_such_ocr_module': ModuleNotFoundError"):
        python("no_such_ocr_module:read")
    with pytest.raises(EngineError, match=r"'broken_import'.*No module named 'pytest_ocr_no_such_dependency'"):
        python("broken_import:read")
    with pytest.raises(EngineError, match=r"cannot find 'nope' in module 'ocr_funcs'"):
        python("ocr_funcs:nope")
    with pytest.raises(EngineError, match=r"'ocr_funcs:__version__' is a str, not a function"):
        python("ocr_funcs:__version__")


# --- fingerprints name the code that runs (so a cache keyed on them stays honest) -----


def test_python_source_is_the_file_defining_the_function():
    source = hashlib.sha256((HELPERS / "ocr_funcs.py").read_bytes()).hexdigest()[:16]
    dotted = python("engine_helpers.ocr_funcs:Reader.read", base_dir=HELPERS.parent)
    assert dotted.fingerprint()["config"]["source"] == source


def test_python_source_of_a_callable_without_source_is_its_modules_file(tmp_path):
    # functools.partial has no source of its own: the module that made it is what changes.
    module = tmp_path / "ocr_partial_engine.py"
    module.write_text(
        "import functools\n\ndef _read(image_path, suffix):\n    return 'p' + suffix\n\n"
        "read = functools.partial(_read, suffix='!')\n",
        encoding="utf-8",
    )
    try:
        engine = python("ocr_partial_engine:read", base_dir=tmp_path)
        assert engine.recognize(Path("a.png")).text == "p!"
        assert engine.fingerprint()["config"]["source"] == hashlib.sha256(module.read_bytes()).hexdigest()[:16]
    finally:
        sys.modules.pop("ocr_partial_engine", None)


def test_python_source_is_null_when_there_is_no_file():
    # A built-in has no file to hash: the fingerprint says so, the same way every time.
    first, second = python("builtins:len"), python("builtins:len")
    assert first.fingerprint()["config"]["source"] is None
    assert first.fingerprint() == second.fingerprint()


def _script(path: Path, output: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho {output}\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def test_command_executable_is_the_one_the_engines_path_finds(tmp_path):
    first = _script(tmp_path / "bin1" / "my-ocr", "one")
    second = _script(tmp_path / "bin2" / "my-ocr", "two")
    digest = {path: hashlib.sha256(path.read_bytes()).hexdigest()[:16] for path in (first, second)}
    engines = {
        path: CommandEngine(spec("command", argv=["my-ocr", "{image}"], env={"PATH": str(path.parent)}))
        for path in (first, second)
    }
    for path, engine in engines.items():
        assert engine.fingerprint()["config"]["executable"] == digest[path]
    assert engines[first].recognize(Path("a.png")).text == "one\n"
    assert engines[second].recognize(Path("a.png")).text == "two\n"
    # The values differ, so do the fingerprints; a value appears only hashed.
    assert engines[first].fingerprint()["config"]["env"] != engines[second].fingerprint()["config"]["env"]
    assert str(first.parent) not in json.dumps(engines[first].fingerprint()["config"]["env"])


def test_command_executable_relative_to_cwd_and_through_a_symlink(tmp_path):
    target = _script(tmp_path / "tools" / "ocr-1.2", "one")
    (tmp_path / "work" / "bin").mkdir(parents=True)
    (tmp_path / "work" / "bin" / "ocr").symlink_to(target)
    engine = CommandEngine(spec("command", base_dir=tmp_path, argv=["bin/ocr", "{image}"], cwd="work"))
    # The bytes that run, not the link: a new version behind the same link changes it.
    assert engine.fingerprint()["config"]["executable"] == hashlib.sha256(target.read_bytes()).hexdigest()[:16]
    _script(target, "two, upgraded")
    again = CommandEngine(spec("command", base_dir=tmp_path, argv=["bin/ocr", "{image}"], cwd="work"))
    assert again.fingerprint()["config"]["executable"] == hashlib.sha256(target.read_bytes()).hexdigest()[:16]
    assert again.fingerprint() != engine.fingerprint()


def test_predictions_one_csv_per_model_tells_batches_apart(tmp_path):
    content = "image_name,batch_id,inference\np1.png,batch-1,first\np1.png,batch-2,second\nonly.png,batch-2,x\n"
    engine = predictions(tmp_path, "model.csv", content)
    assert engine.recognize(tmp_path / "images" / "batch-1" / "p1.png").text == "first"
    assert engine.recognize(tmp_path / "images" / "batch-2" / "p1.png").text == "second"
    assert engine.recognize(Path("only.png")).text == "x"  # unique across batches: found by name alone
    with pytest.raises(EngineError, match="no prediction for p1.png"):
        engine.recognize(Path("p1.png"))  # in two batches: the name alone is ambiguous


@pytest.mark.parametrize(
    ("type_", "name", "options"),
    [
        ("page-outputs", "doc_pg1_repeat1.md", {"documents": "."}),
        ("omnidocbench-outputs", "doc.md", {}),
    ],
)
def test_a_stored_output_engines_version_is_its_outputs_contents_not_their_times(tmp_path, type_, name, options):
    # a baseline made in another clone (other mtimes) must see the same engine
    def version(folder: Path) -> str:
        engine = EngineRegistry().create(spec(type_, path=str(folder), **options))
        return engine.fingerprint()["version"]

    first, second = tmp_path / "first", tmp_path / "second"
    for folder in (first, second):
        folder.mkdir()
        (folder / name).write_text("# Results\n\nRevenue grew.\n", encoding="utf-8")
    os.utime(second / name, ns=(0, 0))
    assert version(first) == version(second)
    (second / name).write_text("# Results\n\nRevenue fell.\n", encoding="utf-8")
    assert version(first) != version(second)
