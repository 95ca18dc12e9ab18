"""A bisection (judging/bisect.py) as a record, and docs/bisections.md's block written from the records alone."""

import collections
import itertools
import re
import statistics
from pathlib import Path

from packaging.version import InvalidVersion, Version

from benchmarks import metrics
from benchmarks.instruction_ops import TWINS

from ..asvtools import shapes
from ..history.probes import UPSTREAM
from ..judging import bisect, instructions
from ..util import markdown_table
from .instruction_history import marked_table
from .operation_markdown import change_text, pull_link

BLOCK = "bisections"
SHOWN_FUNCTIONS = 6
SHOWN_CANDIDATES = 12


def point_line(point: bisect.Point, key: tuple[str, str]) -> str:
    value = point.value(*key)
    counted = f"{value:,.0f}" if value is not None else f"failed: {point.record.get('failed')}"
    return f"{point.commit.source.label} (jaxlib {point.jaxlib or '—'}): {counted}"


def commit_fields(search: bisect.Search, point: bisect.Point) -> dict:
    commit = point.commit
    return {
        "label": commit.source.label,
        "commit": commit.source.commit,
        "subject": commit.subject,
        "date": commit.date,
        "pull_request": commit.pull_request,
        "jaxlib": point.jaxlib,
        "count": search.counted(point),
        "failed": point.record.get("failed"),
        "counts": {
            operation: {twin: side["instructions"] for twin, side in twins.items() if twin in TWINS}
            for operation, twins in point.record.get("counts", {}).items()
        },
    }


def record(search: bisect.Search, points, pairs, steps, command, candidates, seconds) -> dict:
    key = search.key
    total = search.counted(points[-1]) - search.counted(points[0])
    found = []
    for step, share in zip(steps, bisect.shares(steps, total, search.counted), strict=True):
        before, after = (merged(point.twin(*key)) for point in (step.before, step.after))
        entry = {
            "before": commit_fields(search, step.before),
            "after": commit_fields(search, step.after),
            "kind": step.kind,
            "between": step.between,
            "share": share,
            "confirmation": step.confirmation,
            "jaxlib_split": step.jaxlib_split,
            "cause": instructions.cause(before, after),
            "functions": instructions.function_changes(before, after)[:SHOWN_FUNCTIONS],
            "builtins": instructions.builtin_changes(before, after),
        }
        if step.jaxlib_split and jaxlib_carries(entry, search.spread):
            listed = candidates(step, moved_identifiers(entry["functions"]))
            entry["jaxlib_candidates"] = {"count": len(listed), "commits": listed}
        found.append(entry)
    project = points[0].commit.source.project
    fixed = search.equinox if project == "jax" else search.jax
    seconds_each = [probe.get("seconds", 0) for probe in search.used.values()]
    return {
        "project": project,
        "operation": search.operation,
        "twin": search.twin,
        "fixed": {"project": fixed.project, "version": fixed.label},
        "python": search.probes.series,
        "interpreter": search.probes.interpreter["version"],
        "spread": search.spread,
        "flat": max(search.flat, default=None),
        "releases": [commit_fields(search, point) for point in points],
        "pairs": pairs,
        "steps": found,
        "command": command,
        "seconds": round(seconds),
        "commits_counted": len(search.points),
        "probes": len(search.used),
        "probes_made": search.probes.made,
        "probe_seconds": round(statistics.median(seconds_each), 1),
        "counting_seconds": round(sum(seconds_each)),
    }


def merged(twin: dict) -> dict:
    """A twin's functions without ``absl::lts_20250512``, which alone differs between two jaxlib builds."""
    functions = collections.defaultdict(float)
    for name, count in twin["functions"].items():
        functions[re.sub(r"lts_\d+::", "", name)] += count
    return {**twin, "functions": dict(functions)}


def moved_identifiers(functions: list) -> list[str]:
    """The C++ member names (``FlattenImpl``) of the moved functions: what a candidate commit's diff may name."""
    members = (re.search(r"::(\w+)(?:<…>)?$", short(name)) for name, *_ in functions)
    # jaxlib's own functions are CamelCase (Google's style); a lowercase name (find, size) is a library's
    return list(dict.fromkeys(m.group(1) for m in members if m and re.search("[A-Z]", m.group(1))))


def jax_part(entry: dict) -> tuple[float, float] | None:
    """The two counts of the step's jax commits on one jaxlib, where a split counted."""
    before, after, split = entry["before"]["count"], entry["after"]["count"], entry["jaxlib_split"]
    earlier = split.get("side", "before") == "before"  # the earlier jax on the later jaxlib
    return None if split.get("count") is None else (split["count"], after) if earlier else (before, split["count"])


def jaxlib_carries(entry: dict, spread: float) -> bool:
    """Whether jax's Python holds still across the step once both sides run on one jaxlib."""
    part = jax_part(entry)
    return part is not None and not bisect.apart(*part, spread)


def short(function: str) -> str:
    """A C++ function without its template arguments: ``raw_hash_set<…>::find_large<…>``."""
    while (inner_removed := re.sub(r"<[^<>]*>", "\0", function)) != function:
        function = inner_removed
    return function.replace("\0", "<…>")


def step_lines(project: str, entry: dict, spread: float) -> list[str]:
    before, after, split = entry["before"], entry["after"], entry["jaxlib_split"]
    where = "at" if entry["kind"] == "step" else f"a drift over the {entry['between'] + 1} commits up to"
    lines = [
        f"**{change_text(before['count'], after['count'])}, {entry['share']:.0%} of the change,** {where} "
        f"`{after['commit'][:10]}` ({after['date']}) {pull_link(after['pull_request'], UPSTREAM[project], '')} "
        f"“{after['subject']}”, after `{before['commit'][:10]}`"
        + (f" ({entry['between']} commits between failed)." if entry["between"] and entry["kind"] == "step" else ".")
    ]
    if runs := entry["confirmation"].get("runs", {}):
        why = entry["confirmation"].get("why") or bisect.unconfirmed(runs, spread)
        said = "confirmed" if entry["confirmation"].get("confirmed") else f"**not confirmed**: {why}"
        counts = {side: ", ".join(f"{v:,.0f}" for v in runs[side] if v is not None) for side in ("before", "after")}
        lines.append(f"- Counted again in fresh processes: {said}; before {counts['before']}; after {counts['after']}.")
    part = jax_part(entry)
    jaxlibs = f"jaxlib changed too ({before['jaxlib']} → {after['jaxlib']})"
    if split and part is None:
        lines.append(f"- {jaxlibs}: neither jax ran on the other's jaxlib.")
    elif split:
        earlier = split.get("side", "before") == "before"
        counted = (
            "the earlier jax on" if earlier else f"the earlier jax does not run on {after['jaxlib']}, the later on"
        )
        rest = (before["count"], part[0]) if earlier else (part[1], after["count"])
        lines.append(
            f"- {jaxlibs}: {counted} jaxlib {split['jaxlib']} counts {split['count']:,.0f}, so jaxlib carries "
            f"{change_text(*rest)} and jax's Python {change_text(*part)}."
        )
        if earlier and "both" in split:
            reverse = split["both"]["after"]
            said = "does not run" if reverse is None else f"counts {reverse:,.0f}: jax's Python carries "
            said += "" if reverse is None else f"{change_text(before['count'], reverse)} on the earlier jaxlib"
            lines.append(f"- The other way round, the later jax on jaxlib {before['jaxlib']} {said}.")
    if "jaxlib_candidates" in entry:
        listed = entry["jaxlib_candidates"]
        shown = f" (the first {SHOWN_CANDIDATES} shown)" if listed["count"] > SHOWN_CANDIDATES else ""
        candidates = "; ".join(
            f"`{commit[:10]}` {subject}" + (f" (names {', '.join(f'`{n}`' for n in names)})" if names else "")
            for commit, subject, names in listed["commits"][:SHOWN_CANDIDATES]
        )
        lines.append(
            f"- jax's Python holds still: the step is jaxlib's, or XLA's, which jaxlib builds in and the bundle "
            f"does not hold. {listed['count']} commits between jax-v{before['jaxlib']} and jax-v{after['jaxlib']} "
            f"change jaxlib's host runtime (not only its GPU, TPU and Mosaic code, tests or build rules), the "
            f"candidates{shown}: {candidates}."
        )
    rows = [[f"`{name}` with all it called", f"{b:,.0f}", f"{a:,.0f}"] for name, b, a in entry["builtins"]]
    rows += [[f"`{name}`", *("—" if n is None else f"{n:,.0f}" for n in (b, a))] for name, b, a in entry["functions"]]
    return [*lines, "", markdown_table(["function", "own instructions per call, before", "after"], rows)]


def markdown_one(found: dict) -> list[str]:
    first, last, flat = found["releases"][0], found["releases"][-1], found.get("flat")
    within = (
        "" if flat is None else f" (across the intervals the search found flat, counts differed by up to {flat:.2%})"
    )
    lines = [
        f"### {found['operation']}, {found['twin']} twin: {first['label']} → {last['label']}",
        "",
        f"{found['fixed']['project'].capitalize()} {found['fixed']['version']}, Python {found['python']}; "
        f"a step is a change beyond {found['spread']:.1%}{within}. Made by `{found['command']}`. It rests on "
        f"{found['probes']} counting processes over "
        f"{found['commits_counted']} commits; counting them took {found['counting_seconds'] / 60:.0f} min of one "
        f"core, {found['probe_seconds']:.0f} s a probe (the median, making its environment included). The run "
        f"that wrote this made {found['probes_made']} of them, in {found['seconds'] / 60:.0f} min.",
        "",
    ]
    lines += [
        f"- {pair['from']} → {pair['to']}: {pair['commits']} first-parent commits change the package "
        f"({pair['skipped']} that do not were skipped)."
        for pair in found["pairs"]
    ]
    lines.append("")
    if not found["steps"]:
        lines.append("No pair of releases lies apart: nothing to bisect.")
    for entry in found["steps"]:
        lines += [*step_lines(found["project"], entry, found["spread"]), ""]
    return lines


def summary_line(found: dict) -> str:
    first, last, spread = found["releases"][0], found["releases"][-1], found["spread"]
    parts, unconfirmed = [], collections.Counter()
    for entry in found["steps"]:
        before, after, change = entry["before"], entry["after"], entry["after"]["count"] / entry["before"]["count"] - 1
        if not entry["confirmation"].get("confirmed"):
            unconfirmed[
                entry["confirmation"].get("why") or bisect.unconfirmed(entry["confirmation"]["runs"], spread)
            ] += 1
        elif "jaxlib_candidates" in entry:
            parts.append(f"{change:+.1%} at jaxlib {before['jaxlib']} → {after['jaxlib']}")
        else:
            drift = "" if entry["kind"] == "step" else f"a drift over the {entry['between'] + 1} commits up to "
            parts.append(f"{change:+.1%} at {drift}`{after['commit'][:10]}` “{after['subject']}”")
    if unconfirmed:
        reasons = ", ".join(f"{count}: {why}" for why, count in unconfirmed.items())
        parts.append(f"{unconfirmed.total()} found in single counts did not confirm ({reasons})")
    what = f"`{found['operation']}`, {found['twin']} twin, {first['label']} → {last['label']}"
    return f"- {what}, {change_text(first['count'], last['count'])}: {'; '.join(parts) or 'no step'}."


def version_order(label: str) -> tuple:
    try:
        return (0, Version(label))
    except InvalidVersion:
        return (1, label)


def markdown(records: list[dict]) -> str:
    if not records:
        return "No bisection is recorded yet."
    pairs = [pair["commits"] for found in records for pair in found["pairs"]]
    lines = [
        f"Each pair of releases bisected holds {min(pairs)}–{max(pairs)} commits that change the package; each "
        "figure below is the median of a commit's counts where it was counted more than once.",
        "",
        *map(summary_line, records),
        "",
    ]
    operations = sorted({op for found in records for r in found["releases"] for op in r.get("counts", {})})
    floors = {key: metrics.instruction_spread(*key) for key in itertools.product(operations, TWINS)}
    groups = collections.defaultdict(dict)  # {(project, python, the other side's version): {release: (jaxlib, counts)}}
    for found in records:
        # Counts of two builds of one Python are never compared.
        group = groups[found["project"], found.get("interpreter", found["python"]), found["fixed"]["version"]]
        for release in found["releases"]:
            _, counts = group.setdefault(release["label"], (release["jaxlib"], {}))
            first = {(op, twin): n for op, twins in release.get("counts", {}).items() for twin, n in twins.items()}
            counts.update({**first, **counts, (found["operation"], found["twin"]): release["count"]})
    for (project, python, fixed), releases in groups.items():
        rows = [
            (None, [label, releases[label][0] or "—"], releases[label][1])
            for label in sorted(releases, key=version_order)
        ]
        counted = {key: floor for key, floor in floors.items() if any(key in counts for _, counts in releases.values())}
        lines += [
            f"Instructions per call with {project} releases, Python {python}, the other side at {fixed}; a change "
            "from the release before beyond the spread measured for its operation and twin in brackets.",
            "",
            marked_table(["release", "jaxlib", *(f"{op}, {twin}" for op, twin in counted)], counted, rows),
            "",
        ]
    for found in records:
        lines += markdown_one(found)
    return "\n".join(lines).strip()


def read_all(folder: Path) -> list[dict]:
    return [shapes.read_json(path, "bisection record") for path in sorted(Path(folder).glob("*.json"))]
