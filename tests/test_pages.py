"""Every page states the answer's tree_at ÷ tuple figures and no other: README.md and docs/*.md those of the answer's
records (docs/here-results, kept by scripts/bench --here) for the device and JAX that they name; the site's page and
the report's blocks, built in a test from fixed rows (tests/golden), those of their rows.  A figure typed by hand, or
left from an instrument that is gone, fails.

A tree_at ÷ tuple figure is a decimal number, with or without its interval in brackets, that is a × ("1.59×") or
that follows a wrapping or the word ratio ("jit 1.43", "the jit ratio, 1.35 to 1.43"), in a table or a sentence that
speaks of the tuple; never a number followed by a unit (µs, %, ms), a Module operation's exact cost over its tuple
twin's, or tracing's ratio (bench_overhead.TracingRatio, which the answer does not take).
"""

import re

import pytest

from benchmarks import params
from benchtools.asvtools import device, results
from benchtools.publishing import rows
from tests.golden import GOLDEN, fixed_rows
from tests.helpers import ROOT

NUMBER = r"(\d+\.\d+)(?:\s*\((?:[^():]*:\s*)?(\d+\.\d+)\s*(?:–|to)\s*(\d+\.\d+)\))?"  # "(3 processes: a to b)"
NOT_A_UNIT = r"(?!\d|\.\d|\s*(?:\(|µs|%|ms|s\b))"  # nor a number cut short by backtracking
WRAPPING = "|".join(sorted(params.WRAPPINGS, key=len, reverse=True))
FIGURES = (
    re.compile(rf"(?<![\w.,]){NUMBER}\s?×"),
    re.compile(rf"\b(?:{WRAPPING})\b`?\s*(?:\|\s*)?[:=]?\s*{NUMBER}{NOT_A_UNIT}"),
    re.compile(rf"\bratios?\b[^.\n\d|]{{0,25}}{NUMBER}(?:\s*(?:to|–)\s*(\d+\.\d+))?{NOT_A_UNIT}"),
)
BLOCK = re.compile(r"<!-- (\S+):start -->(.*?)<!-- \1:end -->", re.S)
RECORDS = sorted((ROOT / "docs" / "here-results").glob("*/*.json"))


def answer_rows() -> list[rows.CommitFigures]:
    return [rows.row_of(results.load_file(path), "") for path in RECORDS]


def ratios(row: rows.CommitFigures, wrappings: set[str] = frozenset()) -> list[float]:
    """The answer's × in ``row`` of each of ``wrappings`` (all where none), its steps' and its calls', at each
    statistic; the sweep's are drawn, not written."""
    return [
        interval.value
        for (benchmark, at), interval in row.timings.items()
        if benchmark.startswith(rows.ANSWER_MODULE)
        and benchmark.endswith("track_ratio")
        and "Sweep" not in benchmark
        and (not wrappings or at.split(",")[0].strip("'") in wrappings)
    ]


# How a page names each wrapping, those that contain another's name first (blocks.LEAD_WRAPPINGS's words too).
NAMES = {"jit_scan": r"jitted lax\.scan|\bjit_scan\b", "scan": r"lax\.scan|\bscan\b", "filter_jit": "filter_jit"}
NAMES |= {"jit": r"\bjit\b", "eager": r"\beager"}


def wrappings_named(text: str) -> set[str]:
    found = set()
    for wrapping, pattern in NAMES.items():
        if re.search(pattern, text):
            found.add(wrapping)
            text = re.sub(pattern, "", text)
    return found


def contexts(text: str) -> list[tuple[str, str]]:
    """The units a figure is read in, each as (what names its figures, the unit): a table and its header row, else a
    sentence and nothing."""
    found = []
    for table in re.findall(r"<table.*?</table>", text, re.S):  # the site's
        found.append((re.search(r"<tr>(.*?)</tr>", table, re.S)[1], table))
    text = re.sub(r"<table.*?</table>", "", text, flags=re.S)
    for paragraph in re.split(r"\n\s*\n|</?p>", text):
        if paragraph.lstrip().startswith("|"):
            found.append((paragraph.lstrip().split("\n", 1)[0], paragraph))
        else:
            found += [("", sentence) for sentence in re.split(r"(?<=[.;:])\s+(?=[A-Z(])", paragraph)]
    return found


def scopes(text: str) -> list[str]:
    """Each generated block on its own, and what lies outside them: the unit whose environment a figure is of."""
    return [body for _, body in BLOCK.findall(text)] + [BLOCK.sub("", text)]


def figures(scope: str) -> list[tuple[str, set[str]]]:
    """Each tree_at ÷ tuple figure stated in ``scope``, as written, with the wrappings its row or sentence names."""
    found = []
    for header, context in contexts(scope):
        if "tuple" not in context or "cost" in header:  # a Module operation's exact cost over its tuple twin's
            continue
        # Tracing's ratio (bench_overhead.TracingRatio) is the one tree_at ÷ tuple figure the answer does not take.
        for line in re.split(r"\n|</tr>", context) if header else [context]:
            if "tracing" in line.lower():
                continue
            named = wrappings_named(line)
            for pattern in FIGURES:
                found += [(value, named) for match in pattern.finditer(line) for value in match.groups() if value]
    return found


def records_named(scope: str, records: list[rows.CommitFigures]) -> list[rows.CommitFigures]:
    """The records of the device and JAX that ``scope``'s answer names ("On CPU, … jax 0.10.2"); every record where
    it names none."""
    named = [
        row
        for row in records
        if f"On {device.named(row.env_params)}," in scope and f"jax {row.env_params.get('jax')}" in scope
    ]
    return named or records


def stale(text: str, records: list[rows.CommitFigures]) -> list[str]:
    """The figures of ``text`` that are no figure of the answer's records that its scope names, of the wrappings that
    its row or sentence names, at their decimals."""
    wrong = []
    for scope in scopes(text):
        named = records_named(scope, records)
        for figure, wrappings in figures(scope):
            decimals = len(figure.split(".")[1])
            if not any(f"{value:.{decimals}f}" == figure for row in named for value in ratios(row, wrappings)):
                wrong.append(figure)
    return wrong


DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SITE = [GOLDEN / name for name in ("overhead.html", "answer.md")]


def test_the_answer_s_records_hold_its_figures():
    assert RECORDS and all(len(ratios(row)) >= len(params.WRAPPINGS) * len(params.STATISTICS) for row in answer_rows())


@pytest.mark.parametrize("page", DOCS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_page_states_only_the_answer_s_figures_for_the_environment_it_names(page):
    assert stale(page.read_text(encoding="utf-8"), answer_rows()) == []


@pytest.mark.parametrize("page", SITE, ids=lambda path: path.name)
def test_the_site_and_the_report_state_only_the_answer_s_figures_of_the_rows_they_were_built_from(page):
    text = page.read_text(encoding="utf-8")
    assert figures(text), f"{page.name} states none of the answer's figures"
    assert stale(text, fixed_rows()) == []


@pytest.mark.parametrize(
    "planted",
    [
        "It costs 5.90× the same step on a tuple when run eagerly.",
        "In plain words: the `jit` ratio, 1.35 to 1.47, of the Module over the tuple.",
        "The jit ratio over the tuple is 1.47.",
        "| step | tree_at / tuple |\n|---|---|\n| eager | 5.90 |\n| jit | 1.47 |",
        "| how the step runs | tree_at | tuple | × (tree_at ÷ tuple) |\n|---|---|---|---|\n"
        "| eager | 462 (447–467) µs | 44.5 (43.1–44.8) µs | 10.52 (10.28–10.47)× |",
    ],
)
@pytest.mark.parametrize("page", DOCS + SITE, ids=lambda path: path.name)
def test_a_stale_ratio_planted_in_a_page_is_found(page, planted):
    records = fixed_rows() if page.parent == GOLDEN else answer_rows()
    text = page.read_text(encoding="utf-8")
    assert stale(f"{text}\n\n{planted}\n", records) != []


def test_a_figure_of_another_device_in_a_device_s_block_is_found():
    """The TPU's eager × in the CPU's block of docs/here.md: the answer's, but not the CPU's."""
    text = (ROOT / "docs" / "here.md").read_text(encoding="utf-8")
    tpu = next(row for row in answer_rows() if device.of(row.env_params) != device.UNRECORDED)
    eager = rows.answer_figure(tpu, rows.ANSWER_STEP + "ratio", "'eager'")
    cpu_block = next(body for name, body in BLOCK.findall(text) if name == "here-answer-cpu")
    planted = text.replace(cpu_block, f"{cpu_block}\nOn a tuple: {eager.value:.2f}×\n")
    assert stale(planted, answer_rows()) == [f"{eager.value:.2f}"]
