"""What CDM lets xelatex typeset (pytest_ocr/metrics/omnidocbench/cdm_allowed.py): the reading of a formula's
commands, and, with xelatex itself, that it reads them as TeX does in CDM's template and that the commands it
allows build no name and read no file. The sessions that show a formula cannot read a file are in
tests/test_hostile_cdm.py."""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from pytest_ocr.metrics.omnidocbench import cdm as cdm_module
from pytest_ocr.metrics.omnidocbench import cdm_latex
from pytest_ocr.metrics.omnidocbench.cdm import cdm
from pytest_ocr.metrics.omnidocbench.cdm_allowed import COMMANDS, ENVIRONMENTS, SYMBOLS, Scan, Unknown, scan

HAT = "holds ^^, TeX's notation for a character by its code (it can spell any command)"
WHY = "which CDM does not typeset (it typesets math and text commands only)"


def test_the_commands_of_formulas_are_read_as_tex_reads_them():
    coloured = r"\mathcolor[RGB]{0,0,15}{\frac { \alpha } { \beta }} \, \left( x \right) \\ \text{速度} ~ \%"
    assert scan(coloured) == Scan()
    assert scan(r"\begin{array} {cc} a & b \end{array} \begin {align*} \end{align*}") == Scan()
    # not on the lists: typeset only if TeX has no meaning for them (cdm.py asks xelatex)
    assert scan(r"\foo{x} \foo \input{~/F} \@") == Scan(
        unknown=(Unknown("foo", r"\foo"), Unknown("input", r"\input"), Unknown("@", r"\@"))
    )
    # \begin{NAME} runs \NAME, \end{NAME} \endNAME: both must be meaningless
    assert scan(r"\begin{input}{/etc/passwd}") == Scan(
        unknown=(Unknown("input", r"\begin{input}", True), Unknown("endinput", r"\begin{input}", True))
    )
    # a non-ASCII character continues a name here: TeX's is never longer than the one asked about
    assert scan("\\alpha速 \\inp\u00adut") == Scan(
        unknown=(Unknown("alpha速", "\\alpha速"), Unknown("inp\u00adut", "\\inp\u00adut"))
    )
    # a backslash ending the line is TeX's \<end of line>, a space
    assert scan("x \\") == scan("x \\  ") == Scan()


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        (r"^^5cinput{~/F}", HAT),
        (r"\^^5c", HAT),
        ("^^^^005cinput", HAT),
        ("x \x0b\x0b5cinput", "holds the control character \\x0b, which TeX may read otherwise"),
        ("x \r \\input", "holds the control character \\r, which TeX may read otherwise"),
        ("x \u2028 y", "holds the line or paragraph separator \\u2028, which TeX may read otherwise"),
        (r"\begin input", r"has \begin without an environment's name in braces after it"),
        (r"\end{\input}", r"has \end without an environment's name in braces after it"),
        (r"\begin{foo*}", r"uses \begin{foo*}, an environment CDM does not typeset here"),
    ],
)
def test_what_could_spell_another_name_is_refused(text, refused):
    assert scan(text) == Scan(refused=refused)


def test_no_command_that_reads_writes_or_builds_names_is_allowed():
    dangerous = set(
        """input include InputIfFileExists IfFileExists openin read readline openout write immediate special font
        csname endcsname string detokenize scantokens catcode lccode uccode def edef gdef xdef let futurelet global
        newcommand renewcommand providecommand expandafter noexpand usepackage RequirePackage documentclass
        includegraphics fontspec setmainfont newfontfamily fontfamily selectfont usefont endinput jobname verb label
        ref index a makeatletter ExplSyntaxOn uppercase lowercase everymath XeTeXpicfile XeTeXpdffile pdffilesize
        pdfximage setCJKmainfont xeCJKsetup pagestyle begin end""".split()
    )
    assert dangerous & COMMANDS == set()
    assert {"@", "^"} - SYMBOLS == {"@"}
    assert {"document", "filecontents", "verbatim"} & ENVIRONMENTS == set()


def _xelatex(body: str) -> str:
    """xelatex's terminal output for ``body`` in place of a formula in CDM's template, run as CDM runs it."""
    tools = cdm_module._tools()
    with tempfile.TemporaryDirectory() as directory:
        work = Path(directory)
        (work / "t.tex").write_text(cdm_latex.document(body, 0), encoding="utf-8")
        argv = [tools.xelatex, "-no-shell-escape", "-interaction=nonstopmode", "-no-pdf", "t.tex"]
        env = cdm_module._environment(work) | {"max_print_line": "100000"}
        done = subprocess.run(argv, cwd=work, env=env, capture_output=True, timeout=120, check=False)
    return done.stdout.decode("utf-8", "replace")


@pytest.mark.slow
def test_the_characters_tex_reads_specially_are_the_ones_the_reading_knows():
    """In CDM's template every character is a letter or other character (catcodes 11, 12) but the ASCII ones
    TeX gives a meaning, U+00AD (active, a soft hyphen) and U+FEFF (ignored), and the characters scan() refuses:
    a character TeX would read as a backslash or a command could hide a name from scan()."""
    loop = r"""\count255=0
\loop \ifnum\catcode\count255>12 \message{CAT \the\count255:\the\catcode\count255}\else
  \ifnum\catcode\count255<11 \message{CAT \the\count255:\the\catcode\count255}\fi\fi
  \ifnum\count255<128 \ifnum\catcode\count255=11 \message{LETTER \the\count255}\fi\fi
  \advance\count255 by 1 \ifnum\count255<1114112 \repeat"""
    output = _xelatex(loop)
    special = {int(code): int(catcode) for code, catcode in re.findall(r"CAT (\d+):(\d+)", output)}
    letters = {chr(int(code)) for code in re.findall(r"LETTER (\d+)", output)}
    assert letters == {chr(c) for c in range(128) if chr(c).isalpha()}
    unrefused = {chr(code): catcode for code, catcode in special.items() if scan(chr(code)).refused is None}
    assert unrefused == {
        "\t": 10,  # space
        " ": 10,
        "#": 6,  # parameter
        "$": 3,  # math shift
        "%": 14,  # comment
        "&": 4,  # alignment
        "\\": 0,  # escape: the only one
        "^": 7,  # superscript: ^^ is refused
        "_": 8,  # subscript
        "{": 1,
        "}": 2,
        "~": 13,  # active: \nobreakspace{}
        "\u00ad": 13,  # active: \-
        "\ufeff": 9,  # ignored
    }


@pytest.mark.slow
def test_no_allowed_command_makes_a_name_or_opens_a_file_at_first_sight():
    """Each allowed command's meaning in the template (what it expands to, one level) uses no primitive that
    builds a name from text or reads, writes or embeds a file; the tabbing accent \\a, left out, does."""
    names = sorted(COMMANDS) + ["a"]
    lines = [rf"\immediate\write16{{MEANING {i} \meaning\{name}}}" for i, name in enumerate(names)]
    output = _xelatex("\n".join(lines))
    meanings = {names[int(i)]: text for i, text in re.findall(r"^MEANING (\d+) (.*)$", output, re.MULTILINE)}
    assert meanings.keys() == set(names)
    risky = re.compile(
        r"\\(csname|string|detokenize|scantokens|input|@input|openin|read|readline|openout|write|immediate|"
        r"special|font|catcode|XeTeX\w*|pdf\w*|includegraphics|fontspec)(?![A-Za-z@])"
    )
    assert {name for name, text in meanings.items() if risky.search(text)} == {"a"}
    assert meanings["a"].startswith(r"macro:#1->\expandafter \@changed@cmd \csname \string #1\endcsname")


@pytest.mark.slow
def test_a_command_tex_has_no_meaning_for_is_asked_once_and_typeset_as_omnidocbench_does(monkeypatch):
    """\\foo is undefined in the template: xelatex reports it and typesets x + y (OmniDocBench's CDM 1.0,
    tests/data/omnidocbench/cdm_expected.json's hand_unknown_macro); the answer is kept for the process."""
    monkeypatch.setattr(cdm_module, "_DEFINED", {})
    assert cdm("x + y", r"$$\foo{x} + y$$").f1 == 1.0
    assert cdm_module._DEFINED == {("foo", False): False}
    # names built by CDM's own string operations are checked too: removing \lowercase joins \inp and ut
    result = cdm("x", r"\left( \inp\lowercaseut{/etc/passwd}")
    assert (result.f1, result.failure) == (0, rf"the predicted formula uses \input, {WHY}")
    assert cdm_module._DEFINED[("input", False)] is True
    for formula, shown in ((r"\begin{input}{/etc/passwd}", r"\begin{input}"), (r"\a{input}{/etc/passwd}", r"\a")):
        result = cdm(rf"\left( x {formula}", "x")
        assert (result.f1, result.failure) == (0, f"the ground-truth formula uses {shown}, {WHY}")
