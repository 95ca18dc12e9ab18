"""The overhead report's page: its plots and tables in SITE/overhead/index.html (templates/overhead.html.j2),
linked from the asv site in SITE."""

import itertools
from pathlib import Path

from markupsafe import Markup

from benchmarks import metrics

from ..errors import BadInput
from . import blocks, operation_history, plots, templating
from .markdown import markdown_html, table_html
from .rows import (
    REPORT_DEPTH,
    CommitFigures,
    HistoryStep,
    attach_fresh,
    history,
    investigate,
    latest_rows,
    load_rows,
    read_headline,
)

NAV_ANCHOR = '<li id="nav-li-regressions"><a href="#/regressions">Regressions</a></li>'
NAV_LINK = '<li id="nav-li-overhead"><a href="overhead/index.html">tree_at overhead</a></li>'


def html(markdown: str) -> Markup:
    """The report's Markdown as HTML for the page: publishing/markdown.py escapes every text it holds."""
    return Markup(markdown_html(markdown))


def html_page(
    rows: list[CommitFigures],
    site: Path,
    found: dict[str, list[HistoryStep]] | None = None,
    by_operation: dict | None = None,
) -> Path:
    index = site / "index.html"
    if not index.is_file():
        raise BadInput(f"no asv site at {site}; run asv publish (scripts/bench) first")
    site_index = linked(index)  # refused before anything is drawn
    out = site / "overhead"
    out.mkdir(exist_ok=True)
    found = history(rows) if found is None else found
    by_operation = operation_history.operation_steps(rows) if by_operation is None else by_operation
    latest = latest_rows(rows)
    page = templating.render(
        "overhead.html.j2",
        leads=[blocks.lead_paragraph(row) for row in latest],
        gpu_note=blocks.gpu_note(latest),
        summary=blocks.summary_sentence(latest[0]),
        newest=latest[0].label,
        exact_summary=html(blocks.summary_markdown(rows)),
        exact_tables=[
            {
                "kind": kind,
                "figures": len(lines) - 2,
                "changed": sum(1 for line in lines[2:] if not line.endswith(f"| {blocks.UNCHANGED} |")),
                "html": Markup(table_html(lines)),
            }
            for kind, lines in blocks.exact_tables(rows).items()
        ],
        fresh=html("\n".join(blocks.fresh_table(latest))) if any(row.fresh for row in rows) else None,
        interval_note=blocks.INTERVAL_NOTE,
        timing_plots=plots.plot(rows, out),
        depth=REPORT_DEPTH,
        call_weight=metrics.CALL_WEIGHT,
        history_plots=plots.plot_history(rows, found, out),
        history=html(blocks.history_markdown(found)),
        explained=[
            (step, html("\n".join(step.explanation.markdown())))
            for step in itertools.chain(*found.values())
            if step.explanation is not None
        ],
        operation_plots=plots.plot_operations(rows, out),
        operations_history=html(blocks.operations_history_markdown(rows, by_operation)),
        per_release=Markup(table_html(blocks.history_table(rows))),
        details=[(row, html("\n".join(blocks.markdown(row).splitlines()[1:]))) for row in latest],
    )
    (out / "index.html").write_text(page, encoding="utf-8")
    index.write_text(site_index, encoding="utf-8")
    return out / "index.html"


def linked(index: Path) -> str:
    """asv's index.html with the overhead link beside its Regressions link (once)."""
    text = index.read_text(encoding="utf-8")
    if NAV_LINK in text:
        return text
    if NAV_ANCHOR not in text:
        raise BadInput(
            f"{index} has no Regressions link to put the overhead link beside; has asv's page layout changed?"
        )
    return text.replace(NAV_ANCHOR, NAV_ANCHOR + "\n\t" + NAV_LINK)


def write_page(
    results: Path,
    site: Path,
    machine: str | None,
    repo: Path,
    config: Path | None = None,
    headline: Path | None = None,
) -> Path:
    """The report's page and plots, into SITE/overhead/, linked from the asv site in SITE.

    With ``config``, the history's causes come from the profiles cached beside it (none are made here); with
    ``headline``, a scripts/headline record, its figures over fresh processes are shown beside the run's.
    """
    rows = load_rows(results, repo, machine)
    if headline is not None:
        attach_fresh(rows, read_headline(headline))
    found = history(rows)
    by_operation = investigate(rows, found, config)
    written = html_page(rows, site, found, by_operation)
    print(f"wrote {written}")
    return written
