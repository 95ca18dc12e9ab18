"""A pull request's check as Markdown, for a reviewer: a rendering of ``pr_summary.Summary``, computing nothing.

The first line says what merging does; a short table gives what changed,
with how sure each figure is and its cause; everything else sits in
collapsed sections, each with its count, so that nothing is left out.  The
whole fits a GitHub comment (COMMENT_BYTES): where it would not, the longest
lists are cut, and each cut says how many rows the verdict file holds beyond
it.
"""

from benchmarks import metrics

from ..util import markdown_table
from .pairs import FLOOR
from .pr_summary import (
    BELOW_FLOOR,
    CHANGED,
    FASTER,
    NOT_ALERTING,
    NOT_COUNTED,
    SECTIONS,
    SLOWER_,
    TIMING_SAME,
    TIMING_UNCONFIRMED,
    TIMING_UNDECIDED,
    UNCHANGED,
    PlacedChange,
    Summary,
    is_exact,
)
from .render import as_text, human, percent

# The most UTF-8 bytes of a summary that pr-check.yml's comment job posts (`wc -c`): GitHub refuses a comment
# over 65,536 characters, and the job adds the run's link. "→ — ±" take 2 or 3 bytes each.
COMMENT_BYTES = 65000
MARKER = "<!-- equinox-benchmarks: check-pr -->"  # finds the one comment of a pull request to update
TABLE_ROWS = 20  # changes shown in the table itself; the rest in a collapsed section below it
FIRST_CUT = COMMENT_BYTES // 64  # rows of one list tried first: a row is longer than 64 characters
CELL = 300  # characters of one cell at most (a cause names functions, which can be long)

WHAT_EACH_SECTION_HOLDS = {
    UNCHANGED: "The same value on both sides.",
    BELOW_FLOOR: f"An exact cost that moved by less than its +{metrics.COST_FLOOR:.0%} floor: real, but below "
    "anything a timing can see.",
    NOT_COUNTED: "Counts that explain a cost (Python calls, bytecodes) and never count on their own.",
    TIMING_SAME: "Timings re-measured side by side whose whole interval lies within ±2%.",
    TIMING_UNDECIDED: "Timings re-measured side by side whose interval decides neither way.",
    TIMING_UNCONFIRMED: "Alerting timings compared from one run of each side and not re-measured (within their "
    "suspect threshold): no claim either way.",
    NOT_ALERTING: "Timings that never alert (benchmarks/metrics.py): absolute times, and ratios whose "
    "minimum detectable effect is not measured yet. Shown, never counted.",
}


def cell(text: str) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= CELL else text[: CELL - 1] + "…"


def how_sure(row: PlacedChange) -> str:
    """What was measured of the figure's repeatability: a count's, or the re-measured time's estimate, interval and
    minimum detectable effect."""
    if row.change.kind == metrics.INSTRUCTIONS:
        # Not the same every run: fresh processes of identical code were measured to differ, up to the spread.
        return f"counted; identical code varies up to ±{metrics.INSTRUCTIONS_SPREAD:.1%} between processes (measured)"
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


def changes_table(rows: list[PlacedChange]) -> list[str]:
    """The changes: each with its cause."""
    return measures_table(rows, "cause", lambda r: cell(r.cause or "—"))


def rows_table(rows: list[PlacedChange]) -> list[str]:
    """Any other section: each with the benchmark that measured it."""
    return measures_table(rows, "benchmark", lambda r: f"`{cell(r.change.benchmark)}`")


def measures_table(rows: list[PlacedChange], last: str, last_cell) -> list[str]:
    return markdown_table(
        ["operation", "environment", "base", "head", "change", "how sure", last],
        (
            [cell(r.words.operation), cell(r.change.env), cell(human(r.change.before, r.change.unit))]
            + [cell(human(r.change.after, r.change.unit)), percent(r.change), cell(how_sure(r)), last_cell(r)]
            for r in rows
        ),
    ).splitlines()


def details(title: str, count: int, body: list[str]) -> list[str]:
    return ["", "<details>", f"<summary>{title} ({count})</summary>", "", *body, "", "</details>"]


def cut_note(left_out: int) -> list[str]:
    if not left_out:
        return []
    return ["", f"… and {left_out} more, left out here to fit a comment: the verdict file (--verdict) holds every one."]


def failed(title: str, error: Exception) -> str:
    """The summary of a check that could not finish: why, where the reviewer looks (the comment, the job summary)."""
    reason = " ".join(str(error).split())[:2000]
    return f"{MARKER}\n**The benchmark check of {title} failed**: no verdict.\n\n{as_text(reason)}\n"


def first_line(summary: Summary) -> str:
    if summary.nothing_to_measure:
        return f"**{summary.title}: nothing to measure** ({summary.nothing_to_measure})"
    counts = summary.counts()
    broken = summary.broken()
    head = (
        f"**Merging {summary.title}: {f'{len(broken)} benchmark(s) broken, ' if broken else ''}{counts[FASTER]} "
        f"faster, {counts[SLOWER_]} slower, {counts[UNCHANGED]} unchanged**"
    )
    more = [f"{counts[name]} {name}" for name in SECTIONS if name not in (FASTER, SLOWER_, UNCHANGED) and counts[name]]
    if summary.unjudged:
        more.append(f"{len(summary.unjudged)} not comparable")
    if summary.failed:
        more.append(f"{len(summary.failed)} commit(s) with failed benchmarks")
    return head + (f" ({'; '.join(more)})" if more else "")


def about(summary: Summary) -> str:
    timing = (
        f"every alerting timing suspect re-measured side by side (slower or faster: the whole interval beyond "
        f"±{FLOOR:.0%}); timings that never alert are not run"
        if summary.confirmed
        else "exact measures only (--no-confirm)"
    )
    return (
        f"Base `{summary.base[:8]}`, head `{summary.head[:8]}`, benchmarked in one job in "
        f"{', '.join(summary.environments) or 'no environment'}; {timing}. The check took "
        f"{summary.seconds / 60:.1f} min, load average {summary.load[0]:.2f} before and {summary.load[1]:.2f} after."
    )


def markdown(summary: Summary, shown: dict[str, int] | None = None) -> str:
    """The summary as Markdown, at most ``shown[section]`` rows of each list ("changes": of the table)."""
    shown = shown or {}

    def limit(name: str, rows: list) -> tuple[list, int]:
        keep = shown.get(name, len(rows))
        return rows[:keep], len(rows) - min(keep, len(rows))

    lines = [MARKER, first_line(summary), ""]
    if summary.nothing_to_measure:
        lines.append(f"Base `{summary.base[:8]}`, head `{summary.head[:8]}`: no benchmark was run.")
        return "\n".join(lines) + "\n"
    lines.append(about(summary))
    changed = [row for row in summary.rows if row.section in CHANGED]
    if changed:
        in_table, rest = changed[:TABLE_ROWS], changed[TABLE_ROWS:]
        lines += ["", *changes_table(in_table)]
        if rest:
            kept, left_out = limit("changes", rest)
            lines += details("More changes", len(rest), [*changes_table(kept), *cut_note(left_out)])
    elif summary.broken():
        lines += [
            "",
            "No measure changed beyond its threshold, but merging breaks benchmarks (below): they fail on "
            "the head and not on the base, so they measure nothing.",
        ]
    else:
        lines += ["", "No measure changed beyond its threshold."]
    if summary.failed:
        lines += [
            "",
            "**Benchmarks that failed** (no value; one that fails on the head and not on the base fails the check):",
            "",
            *(
                f"- `{f.commit[:8]}` in {f.env}: {', '.join(f'`{name}`' for name in f.benchmarks)}"
                for f in summary.failed
            ),
        ]
    for name in SECTIONS:
        if name in CHANGED:
            continue
        rows = summary.section(name)
        if rows:
            kept, left_out = limit(name, rows)
            lines += details(
                name.capitalize(),
                len(rows),
                [WHAT_EACH_SECTION_HOLDS[name], "", *rows_table(kept), *cut_note(left_out)],
            )
    if summary.unjudged:
        kept, left_out = limit("unjudged", summary.unjudged)
        lines += details(
            "Not comparable",
            len(summary.unjudged),
            [
                "Measured on one side only, or without a value (failed or skipped): judged neither way.",
                "",
                markdown_table(
                    ["benchmark", "params", "environment", "why"],
                    (
                        [f"`{cell(u.benchmark)}`" if u.benchmark else "every benchmark", cell(u.params or "—")]
                        + [cell(u.env), cell(u.reason)]
                        for u in kept
                    ),
                ),
                *cut_note(left_out),
            ],
        )
    return "\n".join(lines) + "\n"


def size(text: str) -> int:
    return len(text.encode())


def fitted(summary: Summary, limit: int = COMMENT_BYTES) -> str:
    """``markdown`` within ``limit`` bytes (UTF-8): the longest list halved until it fits, each cut counted."""
    lengths = {name: len(summary.section(name)) for name in SECTIONS if name not in CHANGED}
    lengths["changes"] = max(0, len([r for r in summary.rows if r.section in CHANGED]) - TABLE_ROWS)
    lengths["unjudged"] = len(summary.unjudged)
    shown = {name: min(length, FIRST_CUT) for name, length in lengths.items()}
    text = markdown(summary, shown)
    while size(text) > limit:
        longest = max(shown, key=shown.get)
        if shown[longest] == 0:
            raise ValueError(f"the summary is {size(text)} bytes with every list cut: over {limit}")
        shown[longest] //= 2
        text = markdown(summary, shown)
    return text
