"""The gate's verdict as Markdown: a rendering of ``gate.Verdict``, computing nothing."""

import re
from collections.abc import Callable

from benchmarks import metrics

from ..asvtools import results
from ..util import markdown_table
from . import explain
from .changes import Change
from .confirm import Confirmation
from .finding import LARGE_IMPROVEMENT, STEP_MODE, Unjudged
from .gate import Verdict, could_decide, find_command
from .pairs import FLOOR, NIGHT_FALSE_ALARM, SAME_BELOW, SLOWER, START_PAIRS
from .recheck import Recount
from .sources import Source

# The report's first words, and its line when nothing counts: what the alert checks a report by.
HEADING = "# Benchmark regressions"
NOTHING_COUNTS = "No regression counts."


def as_text(text: str) -> str:
    """TEXT in a fence longer than any run of backticks in it: nothing that upstream code wrote renders or notifies."""
    fence = "`" * max(3, 1 + max(map(len, re.findall("`+", text)), default=0))
    return f"{fence}text\n{text}\n{fence}"


def human(value: float, unit: str) -> str:
    if unit in ("seconds", "bytes"):
        return results.human_value(value, unit)
    if float(value).is_integer() or abs(value) >= 1000:  # a count: its whole number, which is what is exact
        return f"{round(value):,} {unit}".strip()
    return f"{value:.4g} {unit}".strip()


def percent(change: Change) -> str:
    if change.before == 0:
        return "from 0" if change.after else "±0%"
    return f"{change.ratio - 1:+.1%}"


def threshold_text(source: Source, change: Change) -> str:
    if change.kind == metrics.DETERMINISTIC:
        return "any increase"
    threshold = source.thresholds(change)
    # A floor under 1% (construct(custom)'s is 0.64%) shown to two figures: rounded, it read "+1%".
    shown = f"+{threshold:.0%}" if threshold >= 0.01 else f"+{threshold * 100:.2g}%"
    return f"{shown} (floor)" if change.kind in (metrics.COST, metrics.INSTRUCTIONS) else shown


def section(title: str, *paragraphs: str) -> list[str]:
    return ["", f"## {title}", *(line for paragraph in paragraphs for line in ("", paragraph))]


def details(summary: str, body: list[str]) -> list[str]:
    return ["", "<details>", f"<summary>{summary}</summary>", "", *body, "", "</details>"]


def unjudged_table(unjudged: list[Unjudged], cell: Callable[[str], str] = str) -> str:
    return markdown_table(
        ["benchmark", "params", "environment", "why"],
        (
            [f"`{cell(u.benchmark)}`" if u.benchmark else "every benchmark"]
            + [cell(u.params or ("—" if u.benchmark else "all")), cell(u.env), cell(u.reason)]
            for u in unjudged
        ),
    )


def changes_table(source: Source, changes: list[Change], newest: bool = False, judged: bool = True) -> str:
    """Each change: ``judged``, with its kind and threshold; ``newest``, its newest value and diagnostics."""
    header = ["benchmark", "params", "environment", "before", "after", "change"]
    header = ["kind", *header, "threshold", "where"] if judged else [*header, "where"]
    rows, label = [], source.label
    for c in changes:
        row = [f"`{c.benchmark}`", c.params or "—", c.env, human(c.before, c.unit), human(c.after, c.unit), percent(c)]
        span = label(c.bad) if c.single_commit or not c.good else f"{label(c.good)}..{label(c.bad)}"
        if c.unmeasured:
            span += f" ({', '.join(map(label, c.unmeasured))} between: no value)"
        row = [c.kind, *row, threshold_text(source, c), span] if judged else [*row, span]
        if newest:
            versus = f" ({c.latest / c.before - 1:+.1%} vs before)" if c.before and c.latest is not None else ""
            row.append("—" if c.latest is None else human(c.latest, c.unit) + versus)
            row.append(
                "; ".join(
                    f"{name.rsplit('.', 2)[-2]} {before:,.0f} → {after:,.0f} "
                    f"({(after / before - 1) if before else float('inf'):+.1%})"
                    for name, before, after in c.diagnostics
                )
                or "—"
            )
        rows.append(row)
    return markdown_table(header + (["at the newest commit", "diagnostics"] if newest else []), rows)


def environment_text(environment: dict | None) -> str:
    """A counting environment in one table cell; the run job, which runs upstream code, wrote it."""
    if not environment:
        return "not recorded"
    said = "; ".join(f"{key} {value}" for key, value in sorted(environment.items()) if value)
    return re.sub(r"[^\w .:;,()/+=-]", "?", said)


def nothing_judged(reason: str) -> str:
    return f"{HEADING} (nothing judged)\n\nNothing was judged tonight: {reason}.\n\n{NOTHING_COUNTS}\n"


def markdown(verdict: Verdict) -> str:
    source, counted, confirmed = verdict.source, verdict.counted, verdict.confirmations is not None
    timing_rule = (
        "an alerting timing metric (a ratio) when re-measured side by side and found slower (the suspects below)"
        if confirmed
        else "an alerting timing metric (a ratio) beyond its threshold (the threshold column)"
    )
    lines = [
        f"{HEADING} ({verdict.mode}, {'timing confirmed' if confirmed else 'unconfirmed'})",
        "",
        f"Results: `{source.results}`, machine `{source.machine}`. "
        "Counted: a deterministic metric at any increase, an instruction count above "
        f"its floor ({metrics.SPREAD_MARGIN} × its measured spread) when both commits, counted again side by "
        "side, still differ by that much, unless its time was decided faster, tree_at's cost above "
        f"+{metrics.COST_FLOOR:.0%}, {timing_rule}; the "
        "diagnostics (calls, bytecodes) never count on their own, and a cost that went down never counts. "
        + (
            "Before and after are the levels just before and just after the step; "
            "the newest commit's value says how much of it is still there."
            if verdict.mode == STEP_MODE
            else ""
        ),
        "",
        changes_table(source, counted, newest=True) if counted else NOTHING_COUNTS,
    ]
    if commands := [cmd for cmd in dict.fromkeys(find_command(source, c) for c in counted) if cmd]:
        lines += ["", "To find the first bad commit of a change that spans several commits:", ""]
        lines += ["```sh", *commands, "```"]
    if recounted := [(c, why) for c, why in verdict.overruled if isinstance(why, Recount)] + verdict.not_improved:
        lines += section(
            "Instruction changes that do not count: counted again side by side, they are gone",
            "The stored counts of the two commits rose beyond the floor (or fell by "
            f"{LARGE_IMPROVEMENT:.0%} or more), but each commit counted again tonight, in one environment, differs by "
            "less: the change came from where the counts were made (another runner image, Python patch release or "
            "valgrind changes every count), not from the code. The baseline's column says how far tonight's "
            "environment moved its stored count.",
            markdown_table(
                ["benchmark", "params", "environment", "stored", "counted again tonight"]
                + ["the baseline's count, stored → tonight", "tonight's counting environment"],
                (
                    [f"`{c.benchmark}`", c.params, c.env]
                    + [f"{human(c.before, c.unit)} → {human(c.after, c.unit)} ({percent(c)})"]
                    + [f"{why.before:,.0f} → {why.after:,.0f} ({why.after / why.before - 1:+.2%})"]
                    + [f"{c.before:,.0f} → {why.before:,.0f} ({why.before / c.before - 1:+.2%})"]
                    + [environment_text(why.environment)]
                    for c, why in recounted
                ),
            ),
        )
    if faster := [(c, why) for c, why in verdict.overruled if not isinstance(why, Recount)]:
        lines += section(
            "Instruction rises that do not count: their time was decided faster",
            "Each operation's instruction count rose beyond its floor, but its time in tree_map passes, "
            "re-measured side by side between the same commits, is faster by more than "
            f"{FLOOR:.0%} over its whole interval (the work moved to cheaper instructions).",
            markdown_table(
                ["benchmark", "params", "environment", "instructions", "time, side by side", "pairs"],
                (
                    [f"`{c.benchmark}`", c.params, c.env, percent(c)]
                    + [f"{t.interval.estimate:+.1%} ({t.interval.low:+.1%} to {t.interval.high:+.1%})"]
                    + [t.interval.pairs]
                    for c, t in faster
                ),
            ),
        )
    if verdict.improved:
        lines += section(
            f"Large improvements (tree_at's cost, or in a comparison an operation's instructions, down by "
            f"{LARGE_IMPROVEMENT:.0%} or more)",
            changes_table(source, verdict.improved, newest=True, judged=False),
        )
    if verdict.not_alerting:
        deciding = [c for c in verdict.not_alerting if could_decide(c)]
        noise = [c for c in verdict.not_alerting if not could_decide(c)]
        lines += section(
            "Beyond their threshold, not alerting",
            "Timings that do not alert (benchmarks/metrics.py): shown for a look, never confirmed and never counted.",
            "Ratios of twins timed in one process, whose minimum detectable effect is not measured yet "
            "(scripts/timing-noise): these could decide once it is.\n\n" + changes_table(source, deciding)
            if deciding
            else "No ratio beyond its threshold.",
        )
        if noise:
            lines += details(
                f"{len(noise)} absolute time(s) of one run beyond their threshold: not findings",
                [
                    "Not findings: an absolute time of one run is a single draw, and fresh processes move it by more "
                    "than its threshold on identical code (docs/timing-noise.md), by more than the confirm step can "
                    "resolve; only a ratio or an exact metric above can show a change.",
                    "",
                    changes_table(source, noise),
                ],
            )
    if verdict.failed:
        lines += section(
            "Commits with failed benchmarks",
            "A benchmark that failed at a commit (it did not build, install, import or run) has no value there: "
            "it is neither a regression nor a pass. The run's log has each error.",
            markdown_table(
                ["commit", "environment", "failed"],
                ([source.label(f.commit), f.env, ", ".join(f"`{n}`" for n in f.benchmarks)] for f in verdict.failed),
            ),
        )
    if source.run_unchanged:
        lines += [
            "",
            f"Not benchmarked, the package being their parent's (equinox/ and pyproject.toml unchanged): "
            f"{', '.join(map(source.label, source.run_unchanged))}.",
        ]
    if verdict.unjudged:
        lines += section(
            "Not compared",
            "What one commit measured and the other did not (a benchmark, params or environment added or removed "
            "between them), or measured without a value (failed or skipped): judged neither way.",
            unjudged_table(verdict.unjudged),
        )
    explained = verdict.explained
    if any(c.explanation for c in explained) or verdict.explain_errors:
        lines += section(
            "What changed in the code that ran",
            f"Unless said otherwise: one eager tree_at update (`{explain.PROFILED}`) profiled in both commits on "
            "asv's machinery, as `asv profile` profiles it; the functions whose calls per update changed, largest "
            "change of cumulative time first.",
        ) + [""]
        for e in {id(r.explanation): r.explanation for r in explained if r.explanation is not None}.values():
            rows = [r for r in explained if r.explanation is e]
            what = ", ".join(f"`{r.benchmark.split('.', 1)[1]}` ({r.params}) {percent(r)}" for r in rows)
            env = f" ({rows[0].env})" if rows[0].env != "—" else ""
            lines += [f"### {source.label(e.before)} → {source.label(e.after)}{env}", "", what, ""]
            lines += [*([e.method, ""] if e.method else []), *e.markdown(), ""]
        lines += [f"Not profiled: {error}" for error in verdict.explain_errors]
    return "\n".join(lines) + "\n" + (confirmations_section(verdict.confirmations, source.label) if confirmed else "")


def confirmations_section(found: list[Confirmation], label: Callable[[str], str] = lambda commit: commit[:8]) -> str:
    rows = []
    for v in found:
        c, i = v.change, v.interval
        figures = (
            [f"{i.estimate:+.1%}", f"{i.low:+.1%} to {i.high:+.1%}", f"{i.confidence:.3%}", i.pairs] if i else ["—"] * 4
        )
        verdict = (f"**{v.verdict}**" if v.verdict == SLOWER else v.verdict) + (f" ({v.note})" if v.note else "")
        span = f"{label(c.good)} → {label(c.bad)}" if c.good else label(c.bad)
        rows.append([verdict, c.kind, f"`{c.benchmark}`", c.params or "—", c.env, span, *figures, f"{v.seconds:.0f}"])
    header = ["verdict", "kind", "benchmark", "params", "environment", "commits", "change", "interval"]
    lines = section(
        "Timing suspects, re-measured side by side",
        f"Each alerting timing change beyond its suspect threshold, measured again in fresh interpreters of "
        f"both commits in balanced order (A B B A …); Hodges-Lehmann estimate of ln(after / before) with its "
        f"exact signed-rank interval. Slower: the whole interval above +{FLOOR:.0%}; "
        f"same: the whole interval below +{SAME_BELOW:.0%}; undecided otherwise after {START_PAIRS} to the cap "
        f"of pairs. Each interval's confidence shares a {NIGHT_FALSE_ALARM:.0%} chance of a false alarm a night "
        "among every look at every suspect, so it is wider the more suspects the night has. "
        "Only slower counts.",
        markdown_table([*header, "confidence", "pairs", "s"], rows) if found else "No timing suspect.",
    )
    return "\n".join(lines) + "\n"
