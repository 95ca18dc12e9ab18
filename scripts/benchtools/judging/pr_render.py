"""A pull request's check as Markdown for a reviewer, computing nothing, cut to fit a GitHub comment."""

from functools import partial

from benchmarks import metrics

from ..util import markdown_table
from .pairs import FLOOR
from .pr_summary import CHANGED, FASTER, SECTIONS, SLOWER_, UNCHANGED, PlacedChange, Summary, is_exact
from .render import as_text, details, human, percent, unjudged_table

# The most UTF-8 bytes pr-check.yml's job posts: GitHub refuses a comment over 65,536 characters, and it adds a link.
COMMENT_BYTES = 65000
MARKER = "<!-- equinox-benchmarks: check-pr -->"  # finds the one comment of a pull request to update
TABLE_ROWS = 20  # changes shown in the table itself; the rest in a collapsed section below it
CELL = 300  # characters of one cell at most (a cause names functions, which can be long)


def cell(text: str, most: int | None = CELL) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if most is None or len(text) <= most else text[: most - 1] + "…"


def how_sure(row: PlacedChange) -> str:
    if row.change.kind == metrics.INSTRUCTIONS:
        spread = metrics.threshold(row.change.entry) / metrics.SPREAD_MARGIN
        return f"counted; identical code varies up to ±{spread * 100:.2g}% between processes (measured)"
    if is_exact(row.change):
        return "counted, the same every run"
    found = row.confirmation
    if found is None or found.interval is None:
        return "one run of each side, not re-measured" + (f" ({found.note})" if found and found.note else "")
    interval = found.interval
    return (
        f"time {interval.estimate:+.1%}, {interval.confidence:.1%} interval {interval.low:+.1%} to "
        f"{interval.high:+.1%}, MDE {row.mde:.1%}, {interval.pairs} pairs"
    )


def measures_table(rows: list[PlacedChange], changes: bool = False) -> str:
    return markdown_table(
        ["operation", "environment", "base", "head", "change", "how sure", "cause" if changes else "benchmark"],
        (
            [cell(r.words.operation), cell(r.change.env), cell(human(r.change.before, r.change.unit))]
            + [cell(human(r.change.after, r.change.unit)), percent(r.change), cell(how_sure(r))]
            + [cell(r.cause or "—") if changes else f"`{cell(r.change.benchmark)}`"]
            for r in rows
        ),
    )


def failed(title: str, error: Exception) -> str:
    reason = " ".join(str(error).split())[:2000]
    return f"{MARKER}\n**The benchmark check of {title} failed**: no verdict.\n\n{as_text(reason)}\n"


def counted(counts: dict[str, int]) -> tuple[str, str]:
    more = [f"{count} {name}" for name, count in counts.items() if name not in (FASTER, SLOWER_, UNCHANGED) and count]
    main = f"{counts[FASTER]} faster, {counts[SLOWER_]} slower, {counts[UNCHANGED]} unchanged"
    return main, f" ({'; '.join(more)})" if more else ""


def markdown(summary: Summary, shown: dict[str, int] | None = None) -> str:
    """The summary as Markdown, at most ``shown[section]`` rows of each list ("changes": of the table)."""
    shown = shown or {}

    def collapsed(name: str, title: str, rows: list, intro: list[str], table) -> list[str]:
        keep = shown.get(name, len(rows))
        left_out = max(0, len(rows) - keep)
        note = f"… and {left_out} more, left out here to fit a comment: the verdict file (--verdict) holds every one."
        body = [*intro, table(rows[:keep]), *(["", note] if left_out else [])]
        return details(f"{title} ({len(rows)})", body) if rows else []

    if summary.nothing_to_measure:
        return (
            f"{MARKER}\n**{summary.title}: nothing to measure** ({summary.nothing_to_measure})\n\n"
            f"Base `{summary.base[:8]}`, head `{summary.head[:8]}`: no benchmark was run.\n"
        )
    failed_commits = {"commit(s) with failed benchmarks": len(summary.failed)}
    main, more = counted({**summary.counts(), "not comparable": len(summary.unjudged), **failed_commits})
    broken = summary.broken()
    timing = (
        f"every alerting timing suspect re-measured side by side (slower or faster: the whole interval beyond "
        f"±{FLOOR:.0%}); timings that never alert are not run"
        if summary.verdict and summary.verdict.confirmations is not None
        else "exact measures only (--no-confirm)"
    )
    lines = [
        MARKER,
        f"**Merging {summary.title}: {f'{len(broken)} benchmark(s) broken, ' if broken else ''}{main}**{more}",
        "",
        f"Base `{summary.base[:8]}`, head `{summary.head[:8]}`, benchmarked in one job in "
        f"{', '.join(summary.environments) or 'no environment'}; {timing}. The check took "
        f"{summary.seconds / 60:.1f} min, load average {summary.load[0]:.2f} before and {summary.load[1]:.2f} after.",
    ]
    if changed := [row for row in summary.rows if row.section in CHANGED]:
        lines += ["", measures_table(changed[:TABLE_ROWS], changes=True)]
        lines += collapsed("changes", "More changes", changed[TABLE_ROWS:], [], partial(measures_table, changes=True))
    else:
        why = "merging breaks benchmarks (below): they fail on the head and not on the base, so they measure nothing"
        lines += ["", f"No measure changed beyond its threshold{f', but {why}' if broken else ''}."]
    if summary.failed:
        lines += [
            "",
            "**Benchmarks that failed** (no value; one that fails on the head and not on the base fails the check):",
            "",
            *(f"- `{f.commit[:8]}` in {f.env}: {', '.join(f'`{n}`' for n in f.benchmarks)}" for f in summary.failed),
        ]
    for name, holds in SECTIONS.items():
        if name not in CHANGED:
            lines += collapsed(name, name.capitalize(), summary.section(name), [holds, ""], measures_table)
    lines += collapsed(
        "unjudged",
        "Not comparable",
        summary.unjudged,
        ["Measured on one side only, or without a value (failed or skipped): judged neither way.", ""],
        partial(unjudged_table, cell=cell),
    )
    return "\n".join(lines) + "\n"


def fitted(summary: Summary, limit: int = COMMENT_BYTES) -> str:
    """``markdown`` within ``limit`` bytes (UTF-8): the longest list halved until it fits, each cut counted."""
    shown = {name: len(summary.section(name)) for name in SECTIONS if name not in CHANGED}
    shown["changes"] = max(0, len([r for r in summary.rows if r.section in CHANGED]) - TABLE_ROWS)
    shown["unjudged"] = len(summary.unjudged)
    text = markdown(summary, shown)
    while len(text.encode()) > limit:
        longest = max(shown, key=shown.get)
        if shown[longest] == 0:
            raise ValueError(f"the summary is {len(text.encode())} bytes with every list cut: over {limit}")
        shown[longest] //= 2
        text = markdown(summary, shown)
    return text
