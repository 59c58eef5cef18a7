"""OCR-D workspaces: the ``ocrd-workspace`` dataset pairs pages through the METS file,
and the layout adapters find images relative to the workspace. On the real workspace of
OCR-D/assets (example_suite/data/ocrd/, see SOURCES.md) and broken copies of it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from conftest import DATA, requires_tesseract
from helpers.datasets import load, load_error, write

WORKSPACE = DATA / "ocrd" / "kant_aufklaerung_1784"
PAGE_GT = WORKSPACE / "OCR-D-GT-PAGE" / "PAGE_0017_PAGE.xml"
ALTO_GT = WORKSPACE / "OCR-D-GT-ALTO" / "PAGE_0017_ALTO.xml"
IMAGE = WORKSPACE / "OCR-D-IMG" / "INPUT_0017.tif"


def page_lines() -> list[list[str]]:
    """The TextLines of the PAGE ground truth, read here with ElementTree: per TextRegion
    (the file lists them in reading order), each line's TextEquiv/Unicode."""
    root = ElementTree.parse(PAGE_GT).getroot()
    ns = {"pc": root.tag[1:].split("}")[0]}
    regions = []
    for region in root.iter(f"{{{ns['pc']}}}TextRegion"):
        lines = [
            (line.find("pc:TextEquiv/pc:Unicode", ns).text or "").strip()
            for line in region.findall("pc:TextLine", ns)
            if line.find("pc:TextEquiv/pc:Unicode", ns) is not None
        ]
        regions.append([text for text in lines if text])
    return [lines for lines in regions if lines]


def workspace(tmp_path: Path) -> Path:
    target = tmp_path / "ws"
    shutil.copytree(WORKSPACE, target)
    return target


def test_the_real_workspace_gives_its_page_with_page_and_alto_ground_truth(tmp_path):
    root = workspace(tmp_path)
    [case], scope = load(write(tmp_path / "s.ocr.yaml", "dataset: {type: ocrd-workspace, path: ws}\n"))
    assert case.id == "PHYS_0017" and case.image == root / "OCR-D-IMG" / "INPUT_0017.tif"
    assert case.expected_text == "\n\n".join("\n".join(lines) for lines in page_lines())
    assert case.origin == (root / "OCR-D-GT-PAGE" / "PAGE_0017_PAGE.xml", 1)  # annotations point at the PAGE file
    assert scope.dataset.to_dict()["total"] == 1

    [alto], _ = load(write(tmp_path / "a.ocr.yaml", "dataset: {type: ocrd-workspace, path: ws, gt: OCR-D-GT-ALTO}\n"))
    words = [s.get("CONTENT") for s in ElementTree.parse(ALTO_GT).getroot().iter() if s.tag.endswith("}String")]
    assert alto.expected_text.split() == words  # the same page, the ALTO words in document order
    assert alto.image == case.image


def test_page_xml_finds_the_image_through_the_workspace(tmp_path):
    workspace(tmp_path)  # PAGE names "OCR-D-IMG/INPUT_0017.tif": relative to the workspace, not to the PAGE file
    [case], _ = load(write(tmp_path / "s.ocr.yaml", "dataset: {type: page-xml, path: ws/OCR-D-GT-PAGE}\n"))
    assert case.image == tmp_path / "ws" / "OCR-D-IMG" / "INPUT_0017.tif"

    (tmp_path / "ws" / "OCR-D-IMG" / "INPUT_0017.tif").unlink()
    message = load_error(write(tmp_path / "s.ocr.yaml", "dataset: {type: page-xml, path: ws/OCR-D-GT-PAGE}\n"))
    assert (
        f"image not found: {tmp_path / 'ws/OCR-D-GT-PAGE/OCR-D-IMG/INPUT_0017.tif'} (named by Page/@imageFilename), "
        f"nor in the OCR-D workspace: {tmp_path / 'ws/OCR-D-IMG/INPUT_0017.tif'}; set image_dir to take the image "
        "with the same stem from a directory"
    ) in message


def _mets(root: Path, edit) -> None:
    path = root / "mets.xml"
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")


def test_broken_workspaces_are_located_errors_or_skipped_pages(tmp_path):
    root = workspace(tmp_path)
    suite = write(tmp_path / "s.ocr.yaml", "dataset:\n  type: ocrd-workspace\n  path: ws\n  gt: OCR-D-GT-PAG\n")
    assert (
        f"s.ocr.yaml:4: dataset.gt: no file group 'OCR-D-GT-PAG' in {root / 'mets.xml'}; "
        "its file groups: OCR-D-GT-ALTO, OCR-D-GT-PAGE, OCR-D-IMG"
    ) in load_error(suite)

    # a second page that points at no image, and one whose ground truth is on a server
    def add_pages(text: str) -> str:
        text = text.replace(
            '</mets:fileGrp>\n    <mets:fileGrp USE="OCR-D-GT-ALTO">',
            '<mets:file ID="REMOTE" MIMETYPE="application/vnd.prima.page+xml"><mets:FLocat LOCTYPE="URL" '
            'xlink:href="https://example.org/PAGE_0099.xml"/></mets:file>\n'
            '    </mets:fileGrp>\n    <mets:fileGrp USE="OCR-D-GT-ALTO">',
        )
        pages = (
            '<mets:div TYPE="page" ID="PHYS_0018"><mets:fptr FILEID="PAGE_0017_PAGE"/></mets:div>\n'
            '<mets:div TYPE="page" ID="PHYS_0099"><mets:fptr FILEID="INPUT_0017"/>'
            '<mets:fptr FILEID="REMOTE"/></mets:div>\n'
        )
        return text.replace("    </mets:div>\n  </mets:structMap>", pages + "    </mets:div>\n  </mets:structMap>")

    _mets(root, add_pages)
    cases, scope = load(write(tmp_path / "s.ocr.yaml", "dataset: {type: ocrd-workspace, path: ws}\n"))
    assert [c.id for c in cases] == ["PHYS_0017"]
    skipped = {s["reason"] for s in scope.dataset.to_dict()["skipped"]}
    assert skipped == {
        "page PHYS_0018: no file in OCR-D-IMG",
        "page PHYS_0099: file 'REMOTE' is remote (https://example.org/PAGE_0099.xml); "
        "pytest-ocr does not download, fetch it first",
    }

    (root / "mets.xml").unlink()
    assert f"s.ocr.yaml:1: dataset.path: no mets.xml in {root}" in load_error(tmp_path / "s.ocr.yaml")
    write(root / "mets.xml", '<!DOCTYPE m [<!ENTITY a "aaaa">]><mets>&a;</mets>')
    assert "refused: EntitiesForbidden" in load_error(tmp_path / "s.ocr.yaml")
    write(
        root / "mets.xml",
        "<mets><structMap TYPE='LOGICAL'/><fileSec><fileGrp USE='OCR-D-IMG'/>"
        "<fileGrp USE='OCR-D-GT-PAGE'/></fileSec></mets>",
    )
    assert 'no physical structure map (mets:structMap TYPE="PHYSICAL")' in load_error(tmp_path / "s.ocr.yaml")


def test_a_broken_ground_truth_file_is_skipped_where_it_is_broken(tmp_path):
    root = workspace(tmp_path)
    suite = write(tmp_path / "s.ocr.yaml", "dataset: {type: ocrd-workspace, path: ws}\n")
    gt = root / "OCR-D-GT-PAGE" / "PAGE_0017_PAGE.xml"

    def first_skipped() -> str:  # the only page skipped: no cases is an error naming it
        message = load_error(suite)
        assert "the ocrd-workspace dataset gives no cases: 1 entries, 1 skipped; first: " in message
        return message.partition("; first: ")[2]

    write(gt, "<PcGts>\n\n<Page></PcGts>")  # inside the PAGE file: located there, with its line
    assert first_skipped().startswith(f"{gt}:3: page PHYS_0017: not well-formed XML: mismatched tag")
    write(gt, "<html/>")
    assert first_skipped() == f"{gt}: page PHYS_0017: neither PAGE nor ALTO (root element 'html')"

    gt.unlink()  # what the page points at is missing: located in the METS file
    assert first_skipped() == f"{root / 'mets.xml'}: page PHYS_0017: ground truth not found: {gt}"
    os.mkfifo(gt)  # opening it would wait for a writer forever
    assert first_skipped() == (
        f"{root / 'mets.xml'}: page PHYS_0017: ground truth file is a named pipe (FIFO), not a regular file: {gt}"
    )
    gt.unlink()
    shutil.copy(PAGE_GT, gt)
    image = root / "OCR-D-IMG" / "INPUT_0017.tif"
    image.rename(root / "elsewhere.tif")
    assert first_skipped() == f"{root / 'mets.xml'}: page PHYS_0017: image not found: {image}"

    # a file: URL is a path on this machine
    _mets(root, lambda text: text.replace('"OCR-D-IMG/INPUT_0017.tif"', f'"{(root / "elsewhere.tif").as_uri()}"'))
    [case], _ = load(suite)
    assert case.image == root / "elsewhere.tif"


@pytest.mark.slow
@requires_tesseract
def test_tesseract_reads_the_workspace_in_a_real_session(tmp_path):
    workspace(tmp_path)
    write(tmp_path / "pytest.ini", "[pytest]\n")
    write(
        tmp_path / "kant.ocr.yaml",
        "engines:\n  frk: {type: tesseract, lang: frk}\ndefaults: {engine: frk, thresholds: {cer: '< 0.2'}}\n"
        "dataset: {type: ocrd-workspace, path: ws}\n",
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--ocr-report", "r.json", "--tb=line"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    [record] = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["results"]
    assert record["case"] == "PHYS_0017" and record["image"] == "ws/OCR-D-IMG/INPUT_0017.tif"
    assert record["source_file"] == "ws/OCR-D-GT-PAGE/PAGE_0017_PAGE.xml"
    assert 0 < record["metrics"]["cer"] < 0.2  # a Fraktur page of 1784: close, never perfect
    assert "Was iſt Aufklärung?" in record["prediction"]
    assert re.search(r"kant\.ocr\.yaml \[frk\] +1 +1 +0 +0", done.stdout)  # the dataset accounting
