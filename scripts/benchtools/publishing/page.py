"""The overhead report's page, SITE/overhead/index.html, linked from asv's site."""

import itertools
from pathlib import Path

from benchmarks import metrics

from ..errors import BadInput
from ..util import markdown_table
from . import blocks, plots, templating
from .blocks import timing_text
from .rows import (
    RATIO_BENCHMARK,
    REPORT_DEPTH,
    TRACING_BENCHMARK,
    WRAPPINGS,
    CommitFigures,
    history,
    latest_rows,
)
from .templating import markdown_html as html

NAV_ANCHOR = '<li id="nav-li-regressions"><a href="#/regressions">Regressions</a></li>'
NAV_LINK = '<li id="nav-li-overhead"><a href="overhead/index.html">tree_at overhead</a></li>'
UNCHANGED = "—"  # the last cell of an exact figure that did not change over the commits shown


def html_page(rows: list[CommitFigures], by_operation: dict, site: Path) -> Path:
    index = site / "index.html"
    if not index.is_file():
        raise BadInput(f"no asv site at {site}; run asv publish (scripts/bench) first")
    site_index = linked(index)  # before anything is drawn
    out = site / "overhead"
    out.mkdir(exist_ok=True)
    found, latest = history(rows, by_operation), latest_rows(rows)
    page = templating.render(
        "overhead.html.j2",
        answers=[html(answer) for answer in map(blocks.here_answer, latest) if answer],
        device_note=blocks.device_note(latest),
        sweep=plots.sweep_plot(latest, out / "sweep.png"),
        newest=latest[0].label,
        exact_summary=html(blocks.summary_markdown(rows)),
        exact_tables=exact_tables(rows),
        interval_note=blocks.INTERVAL_NOTE,
        timing_plots=plots.plot(rows, out),
        depth=REPORT_DEPTH,
        call_weight=metrics.CALL_WEIGHT,
        history_plots=plots.plot_history(rows, found, out),
        explained=[
            (step, html("\n".join(step.explanation.markdown())))
            for step in itertools.chain(*found.values())
            if step.explanation is not None
        ],
        operation_plots=plots.plot_operations(rows, by_operation, out),
        operations_history=html(blocks.operations_history_markdown(rows, by_operation)),
        per_release=html(history_table(rows)),
        details=[(row, html(blocks.markdown(row).split("\n", 1)[1])) for row in latest],
    )
    (out / "index.html").write_text(page, encoding="utf-8")
    index.write_text(site_index, encoding="utf-8")
    return out / "index.html"


def linked(index: Path) -> str:
    text = index.read_text(encoding="utf-8")
    if NAV_LINK in text:
        return text
    if NAV_ANCHOR not in text:
        raise BadInput(
            f"{index} has no Regressions link to put the overhead link beside; has asv's page layout changed?"
        )
    return text.replace(NAV_ANCHOR, NAV_ANCHOR + "\n\t" + NAV_LINK)


def history_table(rows: list[CommitFigures]) -> str:
    header = ["release", "environment", *WRAPPINGS, "tree_map passes/call", "tracing", "jaxprs identical"]
    cells = [
        [
            row.label,
            row.env,
            *[timing_text(row, RATIO_BENCHMARK, repr(w), short=True) for w in WRAPPINGS],
            timing_text(row, metrics.PASSES_TREE_AT, "", "{:.1f}", short=True),
            timing_text(row, TRACING_BENCHMARK, "", short=True),
            row.jaxprs_identical,
        ]
        for row in rows
    ]
    return markdown_table(header, cells)


def exact_value(value) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.4g}"


def exact_tables(rows: list[CommitFigures]) -> list[dict]:
    """Every exact figure of the newest commit per environment, and where it changed: a table per kind."""
    latest = latest_rows(rows)
    tables = {}
    for key in sorted({key for row in latest for key in row.exact}):
        changes = []
        for env in (row.env for row in latest):
            series = [(row.label, row.exact[key]) for row in rows if row.env == env and key in row.exact]
            changes += [
                f"{label} ({env}): {exact_value(before)} → {exact_value(after)}"
                for (_, before), (label, after) in itertools.pairwise(series)
                if after != before
            ]
        cells = [exact_value(row.exact[key]) if key in row.exact else "n/a" for row in latest]
        figures = tables.setdefault(metrics.kind(metrics.entry(*key)), [])
        figures.append([f"`{key[0]}`", key[1] or "—", *cells, "; ".join(changes) or UNCHANGED])
    header = ["benchmark", "params", *(row.env for row in latest), "changed over the commits shown"]
    return [
        {
            "kind": kind,
            "figures": len(figures),
            "changed": sum(cells[-1] != UNCHANGED for cells in figures),
            "html": html(markdown_table(header, figures)),
        }
        for kind, figures in sorted(tables.items(), key=lambda table: metrics.KINDS.index(table[0]))
    ]
