"""Dataset adapters: a suite's ``dataset:`` block as cases, one per image.

The datasets are built at test time from the real scans and human ground truth in
example_suite/data (sources and licences in example_suite/data/SOURCES.md), renamed
where short names make the expected ids readable. ALTO and hOCR files are real
Tesseract output on real scans, produced here by the installed tesseract.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import DATA
from helpers.datasets import load, load_error, write

from pytest_ocr.cases.datasets import unique_ids
from pytest_ocr.cases.schema import schema

pytest_plugins = ["pytester"]

ID_PATTERN = schema()["$defs"]["id"]["pattern"]
GROUP_PATTERN = schema()["$defs"]["group"]["pattern"]


def copy(source: str, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(DATA / source, target)
    return target


def truth(source: str) -> str:
    return (DATA / source).read_text(encoding="utf-8")


def line(source: str) -> str:
    """A line's ground truth without the trailing newline its .gt.txt has."""
    return truth(source).rstrip("\n")


# -- ids --------------------------------------------------------------------------------


def test_ids_are_paths_made_valid_and_clashes_get_the_sources_hash():
    names = [("a b", "one.png"), ("a_b", "two.png"), ("sub/x", "three"), ("-z", "four"), ("京A12345", "five")]
    sha = {s: hashlib.sha1(s.encode()).hexdigest()[:8] for _, s in names}
    assert unique_ids(names) == [f"a_b-{sha['one.png']}", f"a_b-{sha['two.png']}", "sub.x", "_-z", "_A12345"]
    assert all(re.fullmatch(ID_PATTERN, i) for i in unique_ids(names))
    # An id does not depend on the other entries: without the clash, the plain name.
    assert unique_ids([("a b", "one.png")]) == ["a_b"]


# -- pairs ------------------------------------------------------------------------------


def pairs_dataset(root: Path) -> None:
    copy("lines/archiscribe_homerswerke06vossgoog_6390c50e.png", root / "lines/homer.png")
    copy("lines/archiscribe_homerswerke06vossgoog_6390c50e.gt.txt", root / "lines/homer.gt.txt")
    copy("lines/rapidocr_en_rec.jpg", root / "lines/latin/en.JPG")  # suffixes match case-insensitively
    copy("lines/rapidocr_en_rec.gt.txt", root / "lines/latin/en.gt.txt")
    copy("lines/rapidocr_el_rec.jpg", root / "lines/greek.jpg")  # no ground truth
    copy("lines/rapidocr_cyrillic.png", root / "lines/drafts/cyr.png")  # excluded below
    copy("lines/rapidocr_cyrillic.gt.txt", root / "lines/drafts/cyr.gt.txt")
    write(root / "lines/README.txt", "not an image")
    copy("lines/rapidocr_en_rec.jpg", root / "lines/.ipynb_checkpoints/en.jpg")  # hidden: not part of the dataset
    copy("lines/rapidocr_en_rec.gt.txt", root / "lines/.ipynb_checkpoints/en.gt.txt")
    write(root / "lines/._homer.png", "macOS metadata")


def test_pairs_take_every_image_with_its_gt_txt_recursively(tmp_path):
    pairs_dataset(tmp_path)
    suite = write(tmp_path / "s.ocr.yaml", "dataset:\n  type: pairs\n  path: lines\n  exclude: ['drafts/*']\n")
    cases, scope = load(suite)
    assert [c.id for c in cases] == ["homer", "latin.en"]
    assert [c.image for c in cases] == [tmp_path / "lines/homer.png", tmp_path / "lines/latin/en.JPG"]
    assert [c.expected_text_file for c in cases] == [
        tmp_path / "lines/homer.gt.txt",
        tmp_path / "lines/latin/en.gt.txt",
    ]
    assert all(c.file == suite and c.line == 1 for c in cases)  # the dataset: key
    assert cases[1].location == f"{suite}:1 (from {tmp_path / 'lines/latin/en.JPG'})"
    # An image without ground truth is skipped, not an error; excluded files are not entries.
    assert scope.dataset.to_dict() == {
        "file": str(suite),
        "line": 1,
        "type": "pairs",
        "total": 3,
        "cases": 2,
        "skipped": [
            {
                "file": str(tmp_path / "lines/greek.jpg"),
                "line": None,
                "reason": "no ground truth: greek.gt.txt not found next to it",
            }
        ],
        "skipped_count": 1,
        "allow_empty": False,
    }


def test_pairs_include_globs_choose_the_images(tmp_path):
    pairs_dataset(tmp_path)
    suite = write(tmp_path / "s.ocr.yaml", "dataset: {type: pairs, path: lines, include: ['*.png']}\n")
    cases, scope = load(suite)
    assert [c.id for c in cases] == ["drafts.cyr", "homer"]
    assert (scope.dataset.to_dict()["total"], scope.dataset.to_dict()["skipped"]) == (2, [])


# -- paddle -----------------------------------------------------------------------------


EN, EL, CYR, ZH = (
    "lines/rapidocr_en_rec.jpg",
    "lines/rapidocr_el_rec.jpg",
    "lines/rapidocr_cyrillic.png",
    "lines/rapidocr_text_rec.jpg",
)


def paddle_dataset(root: Path, newline: str = "\n", bom: str = "") -> Path:
    for source, name in ((EN, "en.jpg"), (EL, "el.jpg"), (CYR, "cyr.png"), (ZH, "zh.jpg")):
        copy(source, root / "data/img" / name)
    detection = json.dumps(
        [
            {"transcription": line("lines/rapidocr_text_rec.gt.txt"), "points": [[0, 0], [9, 9]]},
            {"transcription": "###", "points": [[0, 0], [1, 1]]},
        ],
        ensure_ascii=False,
    )
    rows = [
        f"img/en.jpg\t{line('lines/rapidocr_en_rec.gt.txt')}",  # 1 case
        "",  # 2 blank: not an entry
        f"img/el.jpg {line('lines/rapidocr_el_rec.gt.txt')}",  # 3 no tab
        "\tlabel without a path",  # 4 empty path
        "img/cyr.png\t",  # 5 empty label
        "img/gone.png\tWHATEVER",  # 6 image not found
        f"img/el.jpg\t{line('lines/rapidocr_el_rec.gt.txt')}",  # 7 case
        f"./img/en.jpg\t{line('lines/rapidocr_en_rec.gt.txt')}",  # 8 the same image again
        f"img/zh.jpg\t{detection}",  # 9 case (detection-format label)
        "   ",  # 10 blank
        f"img/cyr.png\t{line('lines/rapidocr_cyrillic.gt.txt')}",  # 11 case
    ]
    label_file = root / "data/labels.txt"
    label_file.write_bytes((bom + newline.join(rows) + newline).encode("utf-8"))
    return label_file


def test_paddle_counts_cases_and_skipped_lines_and_ignores_blank_ones(tmp_path):
    label_file = paddle_dataset(tmp_path)
    suite = write(
        tmp_path / "s.ocr.yaml",
        "defaults: {engine: tesseract}\ndataset:\n  type: paddle\n  label_file: data/labels.txt\n",
    )
    cases, scope = load(suite)
    assert [c.id for c in cases] == ["img.cyr", "img.el", "img.en", "img.zh"]
    assert {c.id: c.expected_text for c in cases} == {
        "img.en": line("lines/rapidocr_en_rec.gt.txt"),
        "img.el": line("lines/rapidocr_el_rec.gt.txt"),
        "img.zh": line("lines/rapidocr_text_rec.gt.txt"),  # the "###" box is illegible: not ground truth
        "img.cyr": line("lines/rapidocr_cyrillic.gt.txt"),
    }
    assert {c.id: c.source for c in cases} == {
        "img.en": f"{label_file}:1",
        "img.el": f"{label_file}:7",
        "img.zh": f"{label_file}:9",
        "img.cyr": f"{label_file}:11",
    }
    assert cases[0].image == tmp_path / "data/img/cyr.png"
    assert all(c.min_confidence is None for c in cases)  # no conf_threshold: nothing is filtered
    skipped = [(s["file"], s["line"], s["reason"]) for s in scope.dataset.to_dict()["skipped"]]
    assert skipped == [
        (str(label_file), 3, "no tab between the image path and the label"),
        (str(label_file), 4, "empty image path"),
        (str(label_file), 5, "empty label for img/cyr.png"),
        (str(label_file), 6, f"image not found: {tmp_path / 'data/img/gone.png'}"),
        (str(label_file), 8, "./img/en.jpg is already listed on line 1"),
    ]
    # 9 non-blank lines = 4 cases + 5 skipped.
    assert (scope.dataset.to_dict()["total"], scope.dataset.to_dict()["cases"], len(skipped)) == (9, 4, 5)


def test_paddle_reads_crlf_and_a_bom_like_plain_lines(tmp_path):
    paddle_dataset(tmp_path, newline="\r\n", bom="\ufeff")
    suite = write(tmp_path / "s.ocr.yaml", "dataset: {type: paddle, label_file: data/labels.txt}\n")
    cases, scope = load(suite)
    assert cases[2].id == "img.en" and cases[2].expected_text == line("lines/rapidocr_en_rec.gt.txt")
    assert (scope.dataset.to_dict()["total"], scope.dataset.to_dict()["cases"]) == (9, 4)


def test_paddle_max_images_stops_after_n_cases_and_conf_threshold_sets_min_confidence(tmp_path):
    paddle_dataset(tmp_path)
    suite = write(
        tmp_path / "s.ocr.yaml",
        "dataset:\n  type: paddle\n  label_file: data/labels.txt\n  max_images: 2\n  conf_threshold: 0.8\n",
    )
    cases, scope = load(suite)
    assert [c.id for c in cases] == ["img.el", "img.en"]  # lines 1 and 7
    assert [c.min_confidence for c in cases] == [0.8, 0.8]
    # Lines 1-7 were read: 6 non-blank, 2 cases and 4 skipped; lines 8-11 were not considered.
    assert [s["line"] for s in scope.dataset.to_dict()["skipped"]] == [3, 4, 5, 6]
    assert (scope.dataset.to_dict()["total"], scope.dataset.to_dict()["cases"]) == (6, 2)


def test_paddle_images_option_is_the_base_of_the_paths(tmp_path):
    copy(EN, tmp_path / "scans/en.jpg")
    write(tmp_path / "labels/test.txt", f"en.jpg\t{line('lines/rapidocr_en_rec.gt.txt')}\n")
    suite = write(tmp_path / "s.ocr.yaml", "dataset: {type: paddle, label_file: labels/test.txt, images: scans}\n")
    cases, _ = load(suite)
    assert [(c.id, c.image) for c in cases] == [("en", tmp_path / "scans/en.jpg")]


# -- ground-truth-json --------------------------------------------------------------------


def benchmark_dataset(root: Path) -> Path:
    """datasets/receipts: a receipt with text and fields, an invoice with fields only,
    and three entries that give no case (one entry per line, so their lines are known)."""
    dataset = root / "datasets/receipts"
    copy("receipts/sroie_359.jpg", dataset / "images/sroie_359.jpg")
    copy("invoices/invoice2data_AmazonWebServices.png", dataset / "images/scans/aws.png")
    write(dataset / "metadata.json", '{"name": "receipts", "source": "SROIE 2019, invoice2data"}\n')
    entries = [
        (
            "sroie_359.jpg",
            {
                "full_text": truth("receipts/sroie_359.gt.txt"),
                "fields": json.loads(truth("receipts/sroie_359.keys.json")),
            },
        ),
        ("scans/aws.png", {"fields": json.loads(truth("invoices/invoice2data_AmazonWebServices.keys.json"))}),
        ("gone.png", {"full_text": "TOTAL 9.00"}),
        ("note.png", "just a string"),
        ("sroie_359_copy.jpg", {"full_text": 359}),
    ]
    body = ",\n".join(f"  {json.dumps(name)}: {json.dumps(value, ensure_ascii=False)}" for name, value in entries)
    write(dataset / "ground_truth.json", "{\n" + body + "\n}\n")
    return dataset


def test_ground_truth_json_gives_text_and_fields_and_skips_what_it_cannot_use(tmp_path):
    dataset = benchmark_dataset(tmp_path)
    suite = write(tmp_path / "s.ocr.yaml", "dataset: {type: ground-truth-json, path: datasets/receipts}\n")
    cases, scope = load(suite)
    assert [c.id for c in cases] == ["scans.aws", "sroie_359"]
    aws, receipt = cases
    assert receipt.expected_text == truth("receipts/sroie_359.gt.txt")
    assert receipt.expected_fields == json.loads(truth("receipts/sroie_359.keys.json"))
    assert aws.expected_text is None and aws.image == dataset / "images/scans/aws.png"
    assert aws.expected_fields == json.loads(truth("invoices/invoice2data_AmazonWebServices.keys.json"))
    gt_file = str(dataset / "ground_truth.json")
    assert [(s["file"], s["line"], s["reason"]) for s in scope.dataset.to_dict()["skipped"]] == [
        (gt_file, 4, f"image not found: {dataset / 'images/gone.png'}"),
        (gt_file, 5, "note.png: expected an object with full_text and/or fields"),
        (gt_file, 6, "sroie_359_copy.jpg: full_text must be a string"),
    ]
    assert (scope.dataset.to_dict()["total"], scope.dataset.to_dict()["cases"]) == (5, 2)


def test_ground_truth_json_problems_are_located_at_the_dataset(tmp_path):
    dataset = benchmark_dataset(tmp_path)
    suite = write(
        tmp_path / "s.ocr.yaml", "defaults: {}\ndataset:\n  type: ground-truth-json\n  path: datasets/receipts\n"
    )
    write(dataset / "ground_truth.json", '{\n  "a.png": {"full_text": "x"},\n  "b.png": \n}\n')
    assert f"s.ocr.yaml:4: dataset.path: {dataset / 'ground_truth.json'}:4: malformed JSON" in load_error(suite)
    (dataset / "ground_truth.json").unlink()
    assert f"s.ocr.yaml:4: dataset.path: no ground_truth.json in {dataset}" in load_error(suite)


def test_field_thresholds_on_a_text_only_dataset_are_one_located_problem(tmp_path):
    pairs_dataset(tmp_path)
    suite = write(
        tmp_path / "s.ocr.yaml", "defaults:\n  thresholds: {field_f1: '>= 0.8'}\ndataset: {type: pairs, path: lines}\n"
    )
    error = load_error(suite)
    assert "1 problem" in error
    assert (
        "s.ocr.yaml:3: dataset: case 'drafts.cyr': metric 'field_f1' needs expected.fields or "
        "expected.fields_file, which this case does not have (nor do 2 more dataset cases like it)"
    ) in error


# -- model-csv ----------------------------------------------------------------------------


def model_benchmark(root: Path, ground_truth_dir: bool = False) -> dict:
    """benchmark/images/{batch}/{image} with ground truth, and models/perfect.csv (the
    ground truth itself). Returns {(batch, image name): ground truth}."""
    images = {
        ("batch-1", "homer.png"): "lines/archiscribe_homerswerke06vossgoog_6390c50e",
        ("batch-1", "elsass.png"): "lines/archiscribe_elsasslothringe00hottgoog_fa82e91a",
        ("batch-2", "bub.png"): "lines/archiscribe_bub_gb_ZrE5AAAAcAAJ_ceb5e954",
    }
    texts = {}
    for (batch, name), source in images.items():
        image = copy(source + ".png", root / "benchmark/images" / batch / name)
        stem = name.rsplit(".", 1)[0]
        target = (
            root / "benchmark/transcriptions" / batch / f"{stem}.txt"
            if ground_truth_dir
            else image.with_name(f"{stem}.gt.txt")
        )
        copy(source + ".gt.txt", target)
        texts[batch, name] = truth(source + ".gt.txt")
    copy("lines/archiscribe_dieneueredeutsc03gelzgoog_4251e818.png", root / "benchmark/images/batch-2/no-truth.png")
    copy("lines/rapidocr_en_rec.jpg", root / "benchmark/images/loose.jpg")
    (root / "benchmark/models").mkdir(parents=True)
    with open(root / "benchmark/models/perfect.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["image_name", "batch_id", "inference"])
        for (batch, name), text in texts.items():
            writer.writerow([name, batch, text])
    return texts


def test_model_csv_every_csv_is_an_engine_and_batches_are_groups(tmp_path):
    model_benchmark(tmp_path)
    shutil.copy(tmp_path / "benchmark/models/perfect.csv", tmp_path / "benchmark/models/Ume_Druma.v2.csv")
    write(tmp_path / "benchmark/models/notes.md", "not a model")
    suite = write(
        tmp_path / "s.ocr.yaml", "dataset:\n  type: model-csv\n  images: benchmark/images\n  models: benchmark/models\n"
    )
    cases, scope = load(suite)
    assert [(c.id, c.group) for c in cases] == [
        ("batch-1.elsass", "batch-1"),
        ("batch-1.homer", "batch-1"),
        ("batch-2.bub", "batch-2"),
    ]
    assert all(c.engines == ("Ume_Druma.v2", "perfect") for c in cases)
    assert all(re.fullmatch(GROUP_PATTERN, c.group) for c in cases)
    assert [c.expected_text_file for c in cases] == [
        tmp_path / "benchmark/images/batch-1/elsass.gt.txt",
        tmp_path / "benchmark/images/batch-1/homer.gt.txt",
        tmp_path / "benchmark/images/batch-2/bub.gt.txt",
    ]
    spec = scope.engines["perfect"]
    assert (spec.type, spec.options) == ("predictions", {"path": "benchmark/models/perfect.csv"})
    assert spec.base_dir == tmp_path  # the path is relative to the suite file, as if written in its engines: block
    assert spec.source == f"{suite}:1"
    assert sorted((s["file"], s["reason"]) for s in scope.dataset.to_dict()["skipped"]) == [
        (
            str(tmp_path / "benchmark/images/batch-2/no-truth.png"),
            f"no ground truth: {tmp_path / 'benchmark/images/batch-2/no-truth.gt.txt'} not found",
        ),
        (
            str(tmp_path / "benchmark/images/loose.jpg"),
            "not in a batch directory (expected images/{batch_id}/{image_name})",
        ),
    ]
    assert (scope.dataset.to_dict()["total"], scope.dataset.to_dict()["cases"]) == (5, 3)


def test_model_csv_engines_named_in_the_suite_defaults_win_and_ground_truth_may_be_a_tree(tmp_path):
    model_benchmark(tmp_path, ground_truth_dir=True)
    suite = write(
        tmp_path / "s.ocr.yaml",
        "defaults: {engine: tesseract}\ndataset:\n  type: model-csv\n"
        "  images: benchmark/images\n  models: benchmark/models\n"
        "  ground_truth: benchmark/transcriptions\n",
    )
    cases, scope = load(suite)
    assert [c.expected_text_file for c in cases] == [
        tmp_path / "benchmark/transcriptions/batch-1/elsass.txt",
        tmp_path / "benchmark/transcriptions/batch-1/homer.txt",
        tmp_path / "benchmark/transcriptions/batch-2/bub.txt",
    ]
    assert all(c.engines == ("tesseract",) for c in cases)
    assert "perfect" in scope.engines  # still declared: --ocr-engine perfect runs it


def test_an_olmocr_bench_output_folder_must_name_an_engine(tmp_path):
    """The adapters that take an engine's name from a file or a folder say the same thing."""
    bench = tmp_path / "bench"
    shutil.copytree(Path(__file__).parent / "data" / "olmocr-bench-sample", bench)
    suite = write(tmp_path / "s.ocr.yaml", "dataset: {type: olmocr-bench, path: bench}\n")
    cases, scope = load(suite)
    assert "olmocr_pipeline" in scope.engines and cases  # as published, the folder names its engine
    (bench / "olmocr_pipeline").rename(bench / "olm ocr")
    assert (
        f"s.ocr.yaml:1: dataset.path: {bench / 'olm ocr'}: the folder name is the engine name and may only hold "
        "letters, digits, '_', '.' and '-'; rename the folder"
    ) in load_error(suite)


def test_model_csv_problems_are_located(tmp_path):
    model_benchmark(tmp_path)
    suite = write(
        tmp_path / "s.ocr.yaml",
        "engines:\n  perfect: {type: tesseract}\ndataset:\n  type: model-csv\n"
        "  images: benchmark/images\n  models: benchmark/models\n",
    )
    assert "s.ocr.yaml:2: engines.perfect: engine 'perfect' is also declared by the dataset (line 3)" in load_error(
        suite
    )
    shutil.move(tmp_path / "benchmark/models/perfect.csv", tmp_path / "benchmark/models/Google Vision.csv")
    assert (
        f"s.ocr.yaml:6: dataset.models: {tmp_path / 'benchmark/models/Google Vision.csv'}: the file name "
        "(without .csv) is the engine name"
    ) in load_error(suite)
    (tmp_path / "benchmark/models/Google Vision.csv").unlink()
    assert f"s.ocr.yaml:6: dataset.models: no .csv files in {tmp_path / 'benchmark/models'}" in load_error(suite)


# -- PAGE XML ------------------------------------------------------------------------------

PAGE = "pages/dinglehopper_462875_0008.page.xml"


def page_lines() -> list[str]:
    """The page's lines as SOURCES.md derived them from the same PAGE file (TextLines of
    the regions in reading order, lowest TextEquiv index, stripped), independently of
    this reader."""
    return truth("pages/dinglehopper_462875_0008.gt.txt").splitlines()


def test_page_xml_text_in_reading_order_regions_separated_by_a_blank_line(tmp_path):
    copy(PAGE, tmp_path / "gt/0008.page.xml")
    copy("pages/dinglehopper_462875_0008.jpg", tmp_path / "scans/0008.jpg")
    suite = write(tmp_path / "s.ocr.yaml", "dataset: {type: page-xml, path: gt, image_dir: scans}\n")
    cases, scope = load(suite)
    assert [(c.id, c.image) for c in cases] == [("0008", tmp_path / "scans/0008.jpg")]
    lines = page_lines()
    # Region r1 holds the first line (the page header), region r2 the rest.
    assert cases[0].expected_text == lines[0] + "\n\n" + "\n".join(lines[1:])
    assert scope.dataset.to_dict()["skipped"] == []


def test_page_xml_follows_the_reading_order_not_the_document_order(tmp_path):
    page = (DATA / PAGE).read_text(encoding="utf-8")
    reordered = page.replace('index="0" regionRef="r1"', 'index="9" regionRef="r1"')
    assert reordered != page
    write(tmp_path / "gt/reordered.xml", reordered)
    write(tmp_path / "gt/unordered.xml", re.sub(r"<ReadingOrder>.*?</ReadingOrder>", "", page, flags=re.S))
    for name in ("reordered", "unordered"):
        copy("pages/dinglehopper_462875_0008.jpg", tmp_path / f"gt/{name}.jpg")
    cases, _ = load(write(tmp_path / "s.ocr.yaml", "dataset: {type: page-xml, path: gt, image_dir: gt}\n"))
    lines = page_lines()
    assert (
        {c.id: c.expected_text for c in cases}
        == {
            "reordered": "\n".join(lines[1:]) + "\n\n" + lines[0],  # r2 (index 1) now comes before r1 (index 9)
            "unordered": lines[0] + "\n\n" + "\n".join(lines[1:]),  # no ReadingOrder: as written
        }
    )


def test_page_xml_image_from_the_file_and_region_level(tmp_path):
    page = (
        (DATA / PAGE)
        .read_text(encoding="utf-8")
        .replace('imageFilename="462875_0008.jpg"', 'imageFilename="../scans/0008.jpg"')
    )
    # Region-level text: the real file's regions carry none, so r1 is given one here.
    write(tmp_path / "gt/0008.xml", page.replace("<Unicode/>", "<Unicode>— Vl —</Unicode>", 1))
    copy("pages/dinglehopper_462875_0008.jpg", tmp_path / "scans/0008.jpg")
    # the image a file names must be in the dataset's folder: here, the folder that holds gt/ and scans/
    suite = write(tmp_path / "s.ocr.yaml", "dataset: {type: page-xml, path: ., include: [gt/*.xml], level: region}\n")
    cases, _ = load(suite)
    assert [(c.id, c.image, c.expected_text) for c in cases] == [("gt.0008", tmp_path / "scans/0008.jpg", "— Vl —")]


BOMB = """<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<PcGts><Page imageFilename="x.jpg"><TextRegion id="r"><TextLine><TextEquiv><Unicode>&lol2;</Unicode></TextEquiv>
</TextLine></TextRegion></Page></PcGts>
"""


def test_page_xml_unusable_files_are_skipped_with_file_line_and_reason(tmp_path):
    copy(PAGE, tmp_path / "gt/0008.page.xml")  # names 462875_0008.jpg, which is not there
    write(tmp_path / "gt/bomb.xml", BOMB)
    write(tmp_path / "gt/broken.xml", "<PcGts>\n<Page>\n</PcGts>\n")
    write(tmp_path / "gt/mets.xml", "<mets/>")
    copy("pages/dinglehopper_462875_0008.jpg", tmp_path / "gt/scans/0008.jpg")
    write(
        tmp_path / "gt/good.xml",
        (DATA / PAGE)
        .read_text(encoding="utf-8")
        .replace('imageFilename="462875_0008.jpg"', 'imageFilename="scans/0008.jpg"'),
    )
    cases, scope = load(write(tmp_path / "s.ocr.yaml", "dataset: {type: page-xml, path: gt}\n"))
    assert [c.id for c in cases] == ["good"]
    skipped = {Path(s["file"]).name: (s["line"], s["reason"]) for s in scope.dataset.to_dict()["skipped"]}
    assert skipped["0008.page.xml"] == (
        9,  # the Page element naming it
        f"image not found: {tmp_path / 'gt/462875_0008.jpg'} (named by "
        "Page/@imageFilename); set image_dir to take the image with the "
        "same stem from a directory",
    )
    assert skipped["bomb.xml"][1].startswith("refused: EntitiesForbidden")
    assert skipped["broken.xml"][0] == 3 and skipped["broken.xml"][1].startswith("not well-formed XML: mismatched tag")
    assert skipped["mets.xml"] == (None, "not a PAGE document (root element 'mets', expected PcGts)")
    assert (scope.dataset.to_dict()["total"], scope.dataset.to_dict()["cases"]) == (5, 1)


def test_a_dataset_that_gives_no_cases_is_a_located_problem(tmp_path):
    copy(PAGE, tmp_path / "gt/0008.xml")
    copy("pages/dinglehopper_462875_0008.jpg", tmp_path / "gt/0008.jpg")
    suite = write(tmp_path / "s.ocr.yaml", "dataset:\n  type: page-xml\n  path: gt\n  image_dir: gt\n  level: region\n")
    assert (
        f"s.ocr.yaml:1: dataset: the page-xml dataset gives no cases: 1 entries, 1 skipped; first: "
        f"{tmp_path / 'gt/0008.xml'}: no text at level region"
    ) in load_error(suite)


# -- ALTO and hOCR -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tesseract_output(tmp_path_factory) -> Path:
    """Real Tesseract output on two real scans (a clean page and a multi-column magazine
    page), as txt, ALTO and hOCR from the same run. The ALTO and hOCR files are engine
    output used here as ground-truth files, to exercise the readers: what they must
    extract is what the same run wrote as plain text."""
    directory = tmp_path_factory.mktemp("tesseract")
    for source, name in (("pages/tess_phototest.tif", "phototest"), ("pages/unlv_8087_054.tif", "unlv")):
        copy(source, directory / f"{name}.tif")
        subprocess.run(
            ["tesseract", f"{name}.tif", name, "-l", "eng", "txt", "alto", "hocr"],
            cwd=directory,
            check=True,
            capture_output=True,
        )
    assert "\n\n" in (directory / "unlv.txt").read_text(encoding="utf-8")  # several regions
    return directory


@pytest.mark.slow
@pytest.mark.parametrize("kind, suffix", [("alto", ".xml"), ("hocr", ".hocr")])
def test_alto_and_hocr_give_the_text_tesseract_wrote_with_the_image_the_file_names(
    tmp_path, tesseract_output, kind, suffix
):
    for name in ("phototest", "unlv"):
        shutil.copy(tesseract_output / f"{name}{suffix}", tmp_path / f"{name}{suffix}")
        shutil.copy(tesseract_output / f"{name}.tif", tmp_path / f"{name}.tif")
    cases, scope = load(write(tmp_path / "s.ocr.yaml", f"dataset: {{type: {kind}, path: .}}\n"))
    assert [c.id for c in cases] == ["phototest", "unlv"]
    for case in cases:
        # Tesseract's text renderer ends every line with a newline; the readers join lines.
        assert case.expected_text == (tesseract_output / f"{case.id}.txt").read_text(encoding="utf-8").rstrip("\n")
        assert case.image == tmp_path / f"{case.id}.tif"
    assert scope.dataset.to_dict()["skipped"] == []


# -- the dataset block's schema --------------------------------------------------------------


@pytest.mark.parametrize(
    "block, message",
    [
        (
            "{type: padle, path: x}",
            "s.ocr.yaml:1: dataset.type: expected one of pairs, paddle, ground-truth-json, "
            'model-csv, page-xml, alto, hocr, ocrd-workspace, olmocr-bench, omnidocbench; got "padle"',
        ),
        ("{path: x}", "s.ocr.yaml:1: dataset: missing required key 'type'"),
        (
            "{type: pairs}",
            "s.ocr.yaml:1: dataset: missing required key 'path' (the directory searched recursively for images)",
        ),
        (
            "{type: paddle, lable_file: l.txt}",
            "s.ocr.yaml:1: dataset.lable_file: unknown key 'lable_file'; did you mean "
            "'label_file'? (allowed here: allow_empty, conf_threshold, follow_symlinks, images, "
            "label_file, max_images, type)",
        ),
        (
            "{type: paddle, label_file: l.txt, conf_threshold: 1.5}",
            "s.ocr.yaml:1: dataset.conf_threshold: expected a number from 0 to 1",
        ),
        (
            "{type: paddle, label_file: l.txt, max_images: 0}",
            "s.ocr.yaml:1: dataset.max_images: expected a whole number of 1 or more",
        ),
        (
            "{type: page-xml, path: gt, level: word}",
            's.ocr.yaml:1: dataset.level: expected one of line, region; got "word"',
        ),
        ("{type: alto, path: gt, level: line}", "s.ocr.yaml:1: dataset.level: unknown key 'level'"),
    ],
)
def test_dataset_block_mistakes_are_located(tmp_path, block, message):
    write(tmp_path / "l.txt", "a.png\tx\n")
    assert message in load_error(write(tmp_path / "s.ocr.yaml", f"dataset: {block}\n"))


def test_missing_label_file_or_directory_is_located_at_its_key(tmp_path):
    suite = write(tmp_path / "s.ocr.yaml", "defaults: {}\ndataset:\n  type: paddle\n  label_file: labels/none.txt\n")
    assert f"s.ocr.yaml:4: dataset.label_file: file not found: {tmp_path / 'labels/none.txt'}" in load_error(suite)
    suite = write(tmp_path / "s.ocr.yaml", "dataset:\n  type: pairs\n  path: nowhere\n")
    assert f"s.ocr.yaml:3: dataset.path: directory not found: {tmp_path / 'nowhere'}" in load_error(suite)


def test_written_cases_and_a_dataset_in_one_file_share_defaults_and_ids_stay_unique(tmp_path):
    pairs_dataset(tmp_path)
    copy("lines/rapidocr_en_rec.jpg", tmp_path / "extra.jpg")
    suite = write(
        tmp_path / "s.ocr.yaml",
        """
defaults: {thresholds: {cer: "< 0.1"}, tags: [lines], min_confidence: 0.3}
dataset: {type: pairs, path: lines}
cases:
  - {id: extra, image: extra.jpg, expected: {text: x}, min_confidence: 0.6}
""",
    )
    cases, _ = load(suite)
    assert [c.id for c in cases] == ["drafts.cyr", "extra", "homer", "latin.en"]
    assert all(c.tags == ("lines",) and [t.expression for t in c.thresholds] == ["< 0.1"] for c in cases)
    assert [c.min_confidence for c in cases] == [0.3, 0.6, 0.3, 0.3]
    write(
        suite, "dataset: {type: pairs, path: lines}\ncases:\n  - {id: homer, image: extra.jpg, expected: {text: x}}\n"
    )
    assert (
        f"s.ocr.yaml:3: cases[0].id: case id 'homer' is also the id of a dataset case ({tmp_path / 'lines/homer.png'})"
    ) in load_error(suite)


# -- through the plugin: one run per adapter ---------------------------------------------------
# The suite fixture's default engine `fake` is the real python engine reading a side-car
# <image stem>.ocr.txt next to each image (tests/conftest.py).


def run(suite, *args):
    return suite.pytester.runpytest("-p", "no:cacheprovider", "-p", "no:hypothesispytest", *args)


def report_of(suite, *args) -> dict:
    result = run(suite, "--ocr-report", "report.json", *args)
    assert "Traceback" not in result.stdout.str()
    return json.loads((suite.path / "report.json").read_text(encoding="utf-8"))


def ocr_output(image: Path, text: str) -> None:
    image.with_suffix(".ocr.txt").write_text(text, encoding="utf-8")


@pytest.mark.slow
def test_plugin_runs_a_pairs_dataset(suite):
    pairs_dataset(suite.path)
    ocr_output(suite.path / "lines/homer.png", truth("lines/archiscribe_homerswerke06vossgoog_6390c50e.gt.txt"))
    ocr_output(suite.path / "lines/latin/en.JPG", "Nothing here matches")
    ocr_output(suite.path / "lines/drafts/cyr.png", truth("lines/rapidocr_cyrillic.gt.txt"))
    write(
        suite.path / "lines.ocr.yaml", "defaults: {thresholds: {cer: '< 0.1'}}\ndataset: {type: pairs, path: lines}\n"
    )
    result = run(suite, "--collect-only", "-q")
    assert result.stdout.lines[:3] == [
        "lines.ocr.yaml::drafts.cyr[fake]",
        "lines.ocr.yaml::homer[fake]",
        "lines.ocr.yaml::latin.en[fake]",
    ]
    report = report_of(suite)
    outcomes = {r["case"]: (r["outcome"], r["line"], r["image"]) for r in report["results"]}
    assert outcomes == {
        "drafts.cyr": ("passed", 2, "lines/drafts/cyr.png"),
        "homer": ("passed", 2, "lines/homer.png"),
        "latin.en": ("failed", 2, "lines/latin/en.JPG"),
    }
    assert report["results"][2]["reference"] == truth("lines/rapidocr_en_rec.gt.txt")
    run(suite, "-k", "latin.en").assert_outcomes(failed=1, deselected=2)


def test_plugin_runs_a_paddle_label_file(suite):
    paddle_dataset(suite.path)
    for name, source in (("en.jpg", EN), ("el.jpg", EL), ("cyr.png", CYR), ("zh.jpg", ZH)):
        ocr_output(suite.path / "data/img" / name, line(source.rsplit(".", 1)[0] + ".gt.txt"))
    write(suite.path / "paddle.ocr.yaml", "dataset: {type: paddle, label_file: data/labels.txt}\n")
    report = report_of(suite)
    assert [r["id"] for r in report["results"]] == [
        f"paddle.ocr.yaml::img.{name}[fake]" for name in ("cyr", "el", "en", "zh")
    ]
    assert all(r["outcome"] == "passed" and r["metrics"]["cer"] == 0.0 for r in report["results"])
    assert report["results"][3]["reference"] == line("lines/rapidocr_text_rec.gt.txt")


CONFIDENT_ENGINE = """
from pathlib import Path

def read(image_path):
    image = Path(image_path)
    return {"text": image.with_suffix(".ocr.txt").read_text(encoding="utf-8"),
            "confidence": float(image.with_suffix(".conf").read_text())}
"""


def test_plugin_filters_outputs_below_the_paddle_conf_threshold(suite):
    # Filtering happens when the item runs (runner.filtered_reason); the dataset sets each case's minimum.
    suite.pytester.makepyfile(confident_engine=CONFIDENT_ENGINE)
    copy(EN, suite.path / "img/en.jpg")
    copy(EL, suite.path / "img/el.jpg")
    write(
        suite.path / "labels.txt",
        f"img/en.jpg\t{line('lines/rapidocr_en_rec.gt.txt')}\n"
        f"img/el.jpg\t{line('lines/rapidocr_el_rec.gt.txt')}\nimg/gone.jpg\tx\n",
    )
    for name, source, confidence in (("en", EN, "0.91"), ("el", EL, "0.42")):
        ocr_output(suite.path / f"img/{name}.jpg", line(source.rsplit(".", 1)[0] + ".gt.txt"))
        write(suite.path / f"img/{name}.conf", confidence)
    write(
        suite.path / "paddle.ocr.yaml",
        "engines:\n  confident: {type: python, function: confident_engine:read}\n"
        "defaults: {engine: confident}\n"
        "dataset: {type: paddle, label_file: labels.txt, conf_threshold: 0.5}\n",
    )
    report = report_of(suite)
    assert {r["case"]: r["outcome"] for r in report["results"]} == {"img.el": "filtered", "img.en": "passed"}


@pytest.mark.slow
def test_plugin_runs_a_ground_truth_json_benchmark(suite):
    dataset = benchmark_dataset(suite.path)
    ocr_output(dataset / "images/sroie_359.jpg", truth("receipts/sroie_359.gt.txt"))
    # A vision LLM answering in JSON: the fields come from the output parsed as JSON.
    ocr_output(dataset / "images/scans/aws.png", truth("invoices/invoice2data_AmazonWebServices.keys.json"))
    write(suite.path / "bench.ocr.yaml", "dataset: {type: ground-truth-json, path: datasets/receipts}\n")
    report = report_of(suite)
    records = {r["case"]: r for r in report["results"]}
    assert sorted(records) == ["scans.aws", "sroie_359"]
    assert records["scans.aws"]["metrics"]["field_f1"] == 1.0  # every expected field, exactly
    assert "cer" not in records["scans.aws"]["metrics"]  # fields only: no text to compare
    assert records["sroie_359"]["metrics"]["cer"] == 0.0
    assert records["sroie_359"]["fields_source"] == "none"  # plain text, no extract block: no fields found
    assert records["sroie_359"]["metrics"]["field_f1"] == 0.0


@pytest.mark.slow
def test_plugin_runs_every_model_csv_on_every_image_grouped_by_batch(suite):
    texts = model_benchmark(suite.path)
    # A second model: real Tesseract output on the same images, written as the CSV contract says.
    tesseract = {}
    for batch, name in texts:
        image = suite.path / "benchmark/images" / batch / name
        done = subprocess.run(
            ["tesseract", str(image), "-", "-l", "deu", "--psm", "7"], capture_output=True, check=True
        )
        tesseract[batch, name] = done.stdout.decode("utf-8")
    with open(suite.path / "benchmark/models/tesseract-deu.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["image_name", "batch_id", "inference"])
        writer.writerows([name, batch, text] for (batch, name), text in tesseract.items())
    write(
        suite.path / "bench.ocr.yaml",
        "dataset:\n  type: model-csv\n  images: benchmark/images\n  models: benchmark/models\n",
    )
    assert run(suite, "--collect-only", "-q").stdout.lines[:6] == [
        f"bench.ocr.yaml::{case}[{engine}]"
        for case in ("batch-1.elsass", "batch-1.homer", "batch-2.bub")
        for engine in ("perfect", "tesseract-deu")
    ]
    report = report_of(suite)
    records = {(r["case"], r["engine"]): r for r in report["results"]}
    for (batch, name), _text in texts.items():
        case = f"{batch}.{name[:-4]}"
        assert records[case, "perfect"]["metrics"]["cer"] == 0.0  # the ground truth itself
        assert records[case, "tesseract-deu"]["prediction"] == tesseract[batch, name]
        assert records[case, "perfect"]["group"] == records[case, "tesseract-deu"]["group"] == batch
    for engine in ("perfect", "tesseract-deu"):
        groups = report["summary"][engine]["groups"]
        assert (groups["group:batch-1"]["cases"], groups["group:batch-2"]["cases"]) == (2, 1)
    assert report["engines"]["tesseract-deu"]["config"]["path"] == "benchmark/models/tesseract-deu.csv"


def test_plugin_runs_a_page_xml_dataset(suite):
    copy(PAGE, suite.path / "gt/0008.page.xml")
    image = copy("pages/dinglehopper_462875_0008.jpg", suite.path / "scans/0008.jpg")
    ocr_output(image, truth("pages/dinglehopper_462875_0008.gt.txt"))
    write(suite.path / "pages.ocr.yaml", "dataset: {type: page-xml, path: gt, image_dir: scans}\n")
    report = report_of(suite)
    [record] = report["results"]
    lines = page_lines()
    assert (record["id"], record["image"]) == ("pages.ocr.yaml::0008[fake]", "scans/0008.jpg")
    assert record["reference"] == lines[0] + "\n\n" + "\n".join(lines[1:])
    assert record["metrics"]["cer"] == 0.0  # the blank line between regions is whitespace, collapsed


@pytest.mark.slow
@pytest.mark.parametrize("kind, suffix", [("alto", ".xml"), ("hocr", ".hocr")])
def test_plugin_runs_alto_and_hocr_datasets(suite, tesseract_output, kind, suffix):
    for name in ("phototest", "unlv"):
        shutil.copy(tesseract_output / f"{name}{suffix}", suite.path / f"{name}{suffix}")
        image = Path(shutil.copy(tesseract_output / f"{name}.tif", suite.path / f"{name}.tif"))
        ocr_output(image, (tesseract_output / f"{name}.txt").read_text(encoding="utf-8"))
    write(suite.path / "layout.ocr.yaml", f"dataset: {{type: {kind}, path: ., include: ['*{suffix}']}}\n")
    report = report_of(suite)
    assert [(r["id"], r["image"], r["outcome"]) for r in report["results"]] == [
        ("layout.ocr.yaml::phototest[fake]", "phototest.tif", "passed"),
        ("layout.ocr.yaml::unlv[fake]", "unlv.tif", "passed"),
    ]
    assert all(r["metrics"]["cer"] == 0.0 for r in report["results"])


@pytest.mark.slow
def test_plugin_reports_a_bad_dataset_block_as_an_invalid_case_file(suite):
    suite.image("a.tif", "x")
    suite.write("good.ocr.yaml", "image: a.tif\nexpected: {text: x}\n")
    suite.write("bad.ocr.yaml", "dataset:\n  type: paddle\n  label_file: missing.txt\n  conf_threshold: 0.5\n")
    result = run(suite)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*bad.ocr.yaml:3: dataset.label_file: file not found: *missing.txt"])
