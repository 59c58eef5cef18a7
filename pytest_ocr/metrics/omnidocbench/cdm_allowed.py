r"""What a formula may hold before xelatex typesets it for CDM: pytest-ocr's rule, not OmniDocBench's.

A formula is untrusted text (an engine's output, a downloaded ground truth), and TeX is a programming language
whose commands read files: ``\input`` and ``\openin`` (kpathsea expands ``~`` and ``$HOME`` in the name after
its ``openin_any`` check), ``\font\x="[/path]"``, ``\special{pdf:image (/path)}`` and ``pdf:fstream`` (read by
xdvipdfmx, which ignores ``openin_any``), fontspec's fonts by path. OmniDocBench typesets a formula its tokenizer
cannot parse as written, so each of these reached xelatex, and the score told whether a file existed.

So the text xelatex gets (the coloured body, checked after every string operation CDM makes on the formula: one of
them, removing ``\lowercase``, can join the halves of a name) is read here as TeX reads it in CDM's template, and
every command in it must be
  * one of :data:`COMMANDS`: the math and text commands that CDM's tokenizer (KaTeX 0.6.0 as im2markup modified
    it), current KaTeX, CDM's own tables and the template's packages (amsmath, amssymb, upgreek, xcolor) know,
    each defined in the template and read there (its ``\meaning``): symbols, delimiters, accents, fonts, sizes,
    spaces, fractions, boxes, colours, operators, alignment. None reads or writes a file, changes a catcode,
    defines a command or builds a command's name from its argument. Left out although KaTeX knows them:
    ``\def \edef \gdef \xdef \let \futurelet \global \long \newcommand \renewcommand \providecommand
    \expandafter \noexpand \verb \label \ref \href \url \includegraphics \message \errmessage \show`` and the
    tabbing accent ``\a`` (``\a{input}`` is ``\input``: it makes a name of its argument); or
  * a command TeX has no meaning for there, which cdm.py asks xelatex (``\ifdefined``) before typesetting the
    formula: TeX reports it and typesets nothing for it, as OmniDocBench's does (``\foo{x}`` shows x).
``\begin{NAME}`` runs ``\NAME`` and ``\end{NAME}`` runs ``\endNAME`` (``\begin{input}`` is ``\input``): NAME is
one of :data:`ENVIRONMENTS`, or a name of letters for which TeX knows neither.

What could make TeX read a name other than the one read here is refused: ``^^`` (TeX's notation for a character
by its code: ``^^5cinput`` is ``\input``), control characters (``^^K`` is a second superscript character in plain
TeX) and line separators. A non-ASCII character continues a command's name here, so a name TeX reads is never
longer than the one checked: the checked one is TeX's first command (what ``\ifdefined`` tests too) followed by
characters. In the template every character above 127 is a letter or other character (catcode 11 or 12) but
U+00AD (active: ``\-``) and U+FEFF (ignored), as tests/test_omnidocbench_cdm_safety.py checks with xelatex.

A formula outside these rules is not typeset: its pair scores 0, and the item warns naming the command
(``failure``). Nothing here runs a program.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from ...visible import escape_char

# Control words, without their backslash.
COMMANDS = frozenset(
    """
    AA aa above acute AE ae aleph allowbreak alpha amalg And angle approx approxeq arccos arcsin arctan arg
    arraystretch Arrowvert arrowvert ast asymp atop b backepsilon backprime backsim backsimeq backslash Bar bar
    barwedge Bbb Bbbk because begingroup beta beth between bf bgroup Big big bigcap bigcirc bigcup Bigg bigg
    Biggl biggl Biggm biggm Biggr biggr Bigl bigl Bigm bigm bigodot bigoplus bigotimes Bigr bigr bigsqcup
    bigstar bigtriangledown bigtriangleup biguplus bigvee bigwedge binom blacklozenge blacksquare blacktriangle
    blacktriangledown blacktriangleleft blacktriangleright bmod bold boldmath boldsymbol bot bowtie Box boxdot
    boxed boxminus boxplus boxtimes brace bracevert brack breve bullet Bumpeq bumpeq c cal Cap cap cases cdot
    cdotp cdots centerdot centering cfrac char check checkmark chi choose circ circeq circle circlearrowleft
    circlearrowright circledast circledcirc circleddash circledR circledS clap cline clubsuit colon color
    colorbox complement cong coprod copyright cos cosh cot coth cr csc Cup cup curlyeqprec curlyeqsucc curlyvee
    curlywedge curvearrowleft curvearrowright d dag dagger daleth dashleftarrow dashrightarrow dashv dbinom ddag
    ddagger ddddot dddot ddot ddots deg Delta delta det dfrac diagdown diagup Diamond diamond diamondsuit
    digamma dim displaybreak displaylimits displaystyle div divideontimes dot Doteq doteq doteqdot dotplus dots
    DOTSB dotsb dotsc DOTSI dotsi dotsm dotso DOTSX doublebarwedge doublecap doublecup Downarrow downarrow
    downdownarrows downharpoonleft downharpoonright egroup ell em emph empty emptyset endgroup enskip enspace
    ensuremath epsilon eqcirc eqsim eqslantgtr eqslantless equiv eta eth exists exp fallingdotseq fbox fcolorbox
    Finv flat footnotesize forall frac frak framebox frown Game Gamma gamma gcd ge genfrac geq geqq geqslant
    gets gg ggg gggtr gimel gnapprox gneq gneqq gnsim grave gtrapprox gtrdot gtreqless gtreqqless gtrless gtrsim
    gvertneqq H hat hbar hbox hdots heartsuit hfil hfill hline hom hookleftarrow hookrightarrow hphantom hskip
    hslash hspace hss Huge huge i idotsint iff iiiint iiint iint Im imath impliedby implies in indent inf infty
    injlim int intercal intop iota it j jmath Join joinrel k kappa ker kern L l Lambda lambda land langle LARGE
    Large large LaTeX lbrace lbrack lceil ldotp ldots le leadsto left Leftarrow leftarrow leftarrowtail lefteqn
    leftharpoondown leftharpoonup leftleftarrows Leftrightarrow leftrightarrow leftrightarrows leftrightharpoons
    leftrightsquigarrow leftroot leftthreetimes leq leqq leqslant lessapprox lessdot lesseqgtr lesseqqgtr
    lessgtr lesssim lfloor lg lgroup lhd lhook lim liminf limits limsup line linebreak ll llap llcorner
    Lleftarrow lll llless lmoustache ln lnapprox lneq lneqq lnot lnsim log Longleftarrow longleftarrow
    Longleftrightarrow longleftrightarrow longmapsto Longrightarrow longrightarrow looparrowleft looparrowright
    lor lozenge lq lrcorner Lsh ltimes lVert lvert lvertneqq makebox maltese mapsto mapstochar mathbb mathbf
    mathbin mathcal mathchoice mathclose mathcolor mathdollar mathellipsis mathfrak mathinner mathit mathnormal
    mathop mathopen mathord mathpalette mathparagraph mathpunct mathrel mathring mathrm mathsection mathsf
    mathsterling mathstrut mathtt matrix max mbox measuredangle medspace mho mid middle min mit mkern mod models
    mp mskip mu multicolumn multimap nabla natural ncong ne nearrow neg negmedspace negthickspace negthinspace
    neq newline nexists ngeq ngeqq ngeqslant ngtr ni nLeftarrow nleftarrow nLeftrightarrow nleftrightarrow nleq
    nleqq nleqslant nless nmid noalign nobreak nobreakspace noindent nolimits nolinebreak nonumber normalsize
    not notag notin nparallel nprec npreceq nRightarrow nrightarrow nshortmid nshortparallel nsim nsubseteq
    nsubseteqq nsucc nsucceq nsupseteq nsupseteqq ntriangleleft ntrianglelefteq ntriangleright ntrianglerighteq
    nu nVDash nVdash nvDash nvdash nwarrow O o odot OE oe oint ointop Omega omega ominus operatorname
    operatornamewithlimits oplus oslash otimes over overbrace overleftarrow overleftrightarrow overline
    overrightarrow overset owns P parallel parbox partial perp phantom Phi phi Pi pi pitchfork pm pmatrix pmb
    pmod pod pounds Pr prec precapprox preccurlyeq preceq precnapprox precneqq precnsim precsim prime prod
    projlim propto Psi psi put qquad quad r raggedright raisebox rangle rbrace rbrack rceil Re relax Relbar
    relbar restriction rfloor rgroup rhd rho rhook right Rightarrow rightarrow rightarrowtail rightharpoondown
    rightharpoonup rightleftarrows rightleftharpoons rightrightarrows rightsquigarrow rightthreetimes
    risingdotseq rlap rm rmoustache root rq Rrightarrow Rsh rtimes rule rVert rvert S sb scriptscriptstyle
    scriptsize scriptstyle searrow sec setminus sf sharp shortmid shortparallel shoveleft shoveright sideset
    Sigma sigma sim simeq sin sinh slash small smallfrown smallint smallsetminus smallskip smallsmile smash
    smile sp space spadesuit sphericalangle sqcap sqcup sqrt sqsubset sqsubseteq sqsupset sqsupseteq square ss
    stackrel star Subset subset subseteq subseteqq subsetneq subsetneqq substack succ succapprox succcurlyeq
    succeq succnapprox succneqq succnsim succsim sum sup Supset supset supseteq supseteqq supsetneq supsetneqq
    surd swarrow tabularnewline tag tan tanh tau tbinom TeX text textasciiacute textasciicircum textasciitilde
    textbackslash textbar textbardbl textbf textbraceleft textbraceright textcircled textcolor textcopyright
    textdagger textdaggerdbl textdegree textdollar textellipsis textemdash textendash textgreater textit
    textless textmd textnormal TextOrMath textperiodcentered textquotedblleft textquotedblright textquoteleft
    textquoteright textregistered textrm textsc textsf textsl textsterling textstyle textsubscript
    textsuperscript texttt textunderscore textup textvisiblespace tfrac th therefore Theta theta thickapprox
    thicksim thickspace thinspace Tilde tilde times tiny tmspace to top triangle triangledown triangleleft
    trianglelefteq triangleq triangleright trianglerighteq tt twoheadleftarrow twoheadrightarrow u ulcorner
    underbar underbrace underleftarrow underleftrightarrow underline underrightarrow underset unitlength unlhd
    unrhd upalpha Uparrow uparrow upbeta upchi Updelta updelta Updownarrow updownarrow upepsilon upeta Upgamma
    upgamma upharpoonleft upharpoonright upiota upkappa Uplambda uplambda uplus upmu upnu Upomega upomega Upphi
    upphi Uppi uppi Uppsi uppsi uprho uproot Upsigma upsigma Upsilon upsilon uptau Uptheta uptheta upuparrows
    Upupsilon upupsilon upvarepsilon upvarphi upvarpi upvarrho upvarsigma upvartheta Upxi upxi upzeta urcorner v
    varDelta varepsilon varGamma varinjlim varkappa varLambda varliminf varlimsup varnothing varOmega varPhi
    varphi varPi varpi varprojlim varpropto varPsi varrho varSigma varsigma varsubsetneq varsubsetneqq
    varsupsetneq varsupsetneqq varTheta vartheta vartriangle vartriangleleft vartriangleright varUpsilon varXi
    vbox vcenter Vdash vDash vdash vdots Vec vec vee veebar Vert vert vfill vline vphantom vspace Vvdash wedge
    widehat widetilde wp wr Xi xi xleftarrow xrightarrow yen zeta
    """.split()
)
# Control symbols: a backslash and one character that is not a letter. ``\<tab>`` and ``\<end of line>`` (a
# backslash ending the formula's line: TeX adds the end-of-line character) mean ``\ `` in LaTeX.
SYMBOLS = frozenset(" !\"#$%&'()*,-./:;=>[\\]^_`{|}~\t\r")
# Environments (``\begin{NAME}``): amsmath's, LaTeX's arrays and picture, and what KaTeX parses.
ENVIRONMENTS = frozenset(
    """
    align align* alignat alignat* aligned alignedat array Bmatrix bmatrix cases eqnarray eqnarray* equation
    equation* flalign flalign* gather gather* gathered matrix multline multline* picture pmatrix smallmatrix
    split subarray tabular Vmatrix vmatrix
    """.split()
)
_ENVIRONMENT_NAME = re.compile(r"[ \t]*\{([A-Za-z]+\*?)\}")
# Refused characters (TAB, a space to TeX, aside): control characters (^^K is a superscript character in plain
# TeX, ^^M ends a line), lone surrogates (not text), line and paragraph separators (which may end a line too).
_REFUSED = {
    "Cc": "control character",
    "Cs": "lone surrogate",
    "Zl": "line or paragraph separator",
    "Zp": "line or paragraph separator",
}


@dataclass(frozen=True)
class Unknown:
    """A command not on the lists: typeset only when TeX has no meaning for ``name``."""

    name: str  # as TeX spells it: the characters after the backslash
    shown: str  # how the formula wrote it, for the message: ``\foo`` or ``\begin{foo}``
    spelled: bool = False  # a name spelled out (an environment's): TeX tests it with \ifcsname, not \ifdefined


@dataclass(frozen=True)
class Scan:
    """What a formula's TeX text holds: ``refused`` (why it may not be typeset, naming what), or the commands
    ``unknown`` to the lists, in the order they first appear."""

    refused: str | None = None
    unknown: tuple[Unknown, ...] = ()


def _is_name_letter(ch: str) -> bool:
    """A character that may continue a command's name: ASCII letters, and every non-ASCII character (TeX's
    letters among them are fewer: a longer name here is TeX's name followed by characters)."""
    return ch.isascii() and ch.isalpha() or not ch.isascii()


def scan(text: str) -> Scan:
    """Reads ``text`` (one line of CDM's template) as TeX would, and says what of it is refused or unknown."""
    if "^^" in text:
        return Scan(refused="holds ^^, TeX's notation for a character by its code (it can spell any command)")
    for ch in text:
        kind = _REFUSED.get(unicodedata.category(ch))
        if kind is not None and ch != "\t":
            return Scan(refused=f"holds the {kind} {escape_char(ch)}, which TeX may read otherwise")
    unknown: dict[str, Unknown] = {}
    i = 0
    while i < len(text):
        if text[i] != "\\":
            i += 1
            continue
        start, i = i, i + 1
        if i == len(text) or not text[i:].strip(" "):  # TeX drops a line's trailing spaces, adds its end
            name, i = "\r", len(text)
        elif _is_name_letter(text[i]):
            while i < len(text) and _is_name_letter(text[i]):
                i += 1
            name = text[start + 1 : i]
        else:
            name, i = text[i], i + 1
        if name in ("begin", "end"):
            found = _ENVIRONMENT_NAME.match(text, i)
            if found is None:
                return Scan(refused=f"has \\{name} without an environment's name in braces after it")
            i = found.end()
            environment = found[1]
            if environment not in ENVIRONMENTS:
                shown = f"\\{name}{{{environment}}}"
                if environment.endswith("*"):
                    return Scan(refused=f"uses {shown}, an environment CDM does not typeset here")
                for spelled in (environment, "end" + environment):
                    unknown.setdefault(spelled, Unknown(spelled, shown, spelled=True))
        elif name not in (SYMBOLS if len(name) == 1 and not _is_name_letter(name) else COMMANDS):
            unknown.setdefault(name, Unknown(name, "\\" + name))
    return Scan(unknown=tuple(unknown.values()))


PROBE_MARK = "CDM-PROBE"


def probe_body(names: Iterable[Unknown]) -> str:
    """The lines that make xelatex say, in place of a formula in CDM's template, which of ``names`` it has no
    meaning for: ``CDM-PROBE <index> U`` for those (a line missing for any reason counts as defined)."""
    lines = []
    for index, unknown in enumerate(names):
        # \ifdefined and \ifcsname test a name without expanding it (e-TeX; \ifcsname makes no name)
        test = rf"\ifcsname {unknown.name}\endcsname" if unknown.spelled else rf"\ifdefined\{unknown.name}"
        lines.append(rf"{test}\else\immediate\write16{{{PROBE_MARK} {index} U}}\fi")
    return "\n".join(lines)


def undefined_in_probe(output: str) -> set[int]:
    """The indexes xelatex's output (a probe's) names as undefined."""
    return {int(n) for n in re.findall(rf"^{PROBE_MARK} (\d+) U$", output, re.MULTILINE)}
