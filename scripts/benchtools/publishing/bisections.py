"""A bisection (judging/bisect.py) as a record, and docs/bisections.md's block written from the records alone, so
that the page can be rebuilt from the repository."""

import collections
import itertools
import json
import re
import statistics
from pathlib import Path

from packaging.version import InvalidVersion, Version

from ..errors import BadInput
from ..history.probes import UPSTREAM
from ..judging import bisect, instructions
from ..util import markdown_table
from .instruction_history import marked_table
from .operation_markdown import change_text, pull_link

BLOCK = "bisections"
TWINS = ("module", "tuple")
SHOWN_FUNCTIONS = 6
SHOWN_CANDIDATES = 12


def point_line(point: bisect.Point, key: tuple[str, str]) -> str:
    value = point.value(*key)
    counted = f"{value:,.0f}" if value is not None else f"failed: {point.record.get('failed')}"
    return f"{point.commit.source.label} (jaxlib {point.jaxlib or '—'}): {counted}"


def commit_fields(point: bisect.Point, key: tuple[str, str]) -> dict:
    commit = point.commit
    return {
        "label": commit.source.label,
        "commit": commit.source.commit,
        "subject": commit.subject,
        "date": commit.date,
        "pull_request": commit.pull_request,
        "jaxlib": point.jaxlib,
        "count": point.value(*key),
        "failed": point.record.get("failed"),
        "counts": {
            operation: {twin: side["instructions"] for twin, side in twins.items() if twin in TWINS}
            for operation, twins in point.record.get("counts", {}).items()
        },
    }


def record(search: bisect.Search, points, pairs, steps, command, candidates, seconds) -> dict:
    key = search.key
    total = points[-1].value(*key) - points[0].value(*key)
    found = []
    for step, share in zip(steps, bisect.shares(steps, total, key), strict=True):
        before, after = (merged(point.twin(*key)) for point in (step.before, step.after))
        entry = {
            "before": commit_fields(step.before, key),
            "after": commit_fields(step.after, key),
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
        "spread": search.spread,
        "flat": max(search.flat, default=None),
        "releases": [commit_fields(point, key) for point in points],
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
    """A twin's functions as ``short`` names them, without their inline namespace's version (``absl::lts_20250512``):
    the same function in two jaxlib builds is one row."""
    functions = collections.defaultdict(float)
    for name, count in twin["functions"].items():
        functions[re.sub(r"lts_\d+::", "", short(name))] += count
    return {**twin, "functions": dict(functions)}


def moved_identifiers(functions: list) -> list[str]:
    """The C++ member names (``FlattenImpl``, ``Lookup``) of the moved functions that belong to a namespace:
    what a candidate commit's diff may name; libc's and CPython's own functions name no commit of jaxlib."""
    members = (re.search(r"::(\w+)(?:<…>)?$", name) for name, *_ in functions)
    # jaxlib's own functions are CamelCase (Google's style); a lowercase name (find, size) is a library's
    return list(dict.fromkeys(m.group(1) for m in members if m and re.search("[A-Z]", m.group(1))))


def jaxlib_carries(entry: dict, spread: float) -> bool:
    """Whether jax's Python holds still across the step once both sides run on the later jaxlib."""
    middle = entry["jaxlib_split"].get("count")
    return middle is not None and abs(entry["after"]["count"] / middle - 1) <= spread


def short(function: str) -> str:
    """A C++ function without its template arguments: ``raw_hash_set<…>::find_large<…>``."""
    while (inner_removed := re.sub(r"<[^<>]*>", "\0", function)) != function:  # the innermost first
        function = inner_removed
    return function.replace("\0", "<…>")


def count_text(count: float | None) -> str:
    return "—" if count is None else f"{count:,.0f}"


def step_lines(project: str, entry: dict) -> list[str]:
    before, after, split = entry["before"], entry["after"], entry["jaxlib_split"]
    where = "at" if entry["kind"] == "step" else "spread over the commits after"
    lines = [
        f"**{change_text(before['count'], after['count'])}, {entry['share']:.0%} of the change,** {where} "
        f"`{after['commit'][:10]}` ({after['date']}) {pull_link(after['pull_request'], UPSTREAM[project], '')} "
        f"“{after['subject']}”, after `{before['commit'][:10]}`"
        + (f" ({entry['between']} commits between that could not be counted)." if entry["between"] else ".")
    ]
    if runs := entry["confirmation"].get("runs", {}):
        said = "confirmed" if entry["confirmation"].get("confirmed") else "**not confirmed**"
        counts = {side: ", ".join(f"{v:,.0f}" for v in runs[side] if v is not None) for side in ("before", "after")}
        lines.append(f"- Counted again in fresh processes: {said}; before {counts['before']}; after {counts['after']}.")
    middle = split.get("count")
    if split and middle is None:
        lines.append(f"- jaxlib {before['jaxlib']} → {after['jaxlib']}: the earlier jax did not run on the later.")
    elif split:
        lines.append(
            f"- jaxlib changed too ({before['jaxlib']} → {after['jaxlib']}): the earlier jax on jaxlib "
            f"{after['jaxlib']} counts {middle:,.0f}, so jaxlib carries {change_text(before['count'], middle)} and "
            f"jax's Python {change_text(middle, after['count'])}."
        )
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
    rows += [[f"`{short(name)}`", count_text(b), count_text(a)] for name, b, a in entry["functions"]]
    return [*lines, "", markdown_table(["function", "own instructions per call, before", "after"], rows)]


def markdown_one(found: dict, releases: bool = True) -> list[str]:
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
    if releases:
        rows = [
            [r["label"], r["jaxlib"] or "—", "failed" if r["count"] is None else f"{r['count']:,.0f}"]
            for r in found["releases"]
        ]
        lines += [markdown_table(["release", "jaxlib", "instructions per call"], rows), ""]
    lines += [
        f"- {pair['from']} → {pair['to']}: {pair['commits']} first-parent commits change the package "
        f"({pair['skipped']} that do not were skipped)."
        for pair in found["pairs"]
    ]
    lines.append("")
    if not found["steps"]:
        lines.append("No pair of releases lies apart: nothing to bisect.")
    for entry in found["steps"]:
        lines += [*step_lines(found["project"], entry), ""]
    return lines


def summary_line(found: dict) -> str:
    first, last = found["releases"][0], found["releases"][-1]
    what = f"`{found['operation']}`, {found['twin']} twin, {first['label']} → {last['label']}"
    confirmed = [entry for entry in found["steps"] if entry["confirmation"].get("confirmed")]
    if not confirmed:
        return (
            f"- {what}: no step confirmed; {len(found['steps'])} found in single counts did not lie apart "
            "when both sides were counted again."
        )
    parts = []
    for entry in confirmed:
        before, after = entry["before"], entry["after"]
        if "jaxlib_candidates" in entry:
            where = f"jaxlib {before['jaxlib']} → {after['jaxlib']}"
        else:
            where = f"`{after['commit'][:10]}` “{after['subject']}”"
        parts.append(f"{after['count'] / before['count'] - 1:+.1%} at {where}")
    return f"- {what}: " + "; ".join(parts) + "."


def version_order(label: str) -> tuple:
    try:
        return (0, Version(label))
    except InvalidVersion:
        return (1, label)


def markdown(records: list[dict]) -> str:
    if not records:
        return "No bisection is recorded yet."
    spread = records[0]["spread"]
    lines = [*map(summary_line, records), ""]
    operations = sorted({op for found in records for r in found["releases"] for op in r.get("counts", {})})
    floors = dict.fromkeys(itertools.product(operations, TWINS), spread)
    groups = collections.defaultdict(dict)  # {(project, python, the other side's version): {release: its fields}}
    for found in records:
        for release in found["releases"]:
            groups[found["project"], found["python"], found["fixed"]["version"]][release["label"]] = release
    for (project, python, fixed), releases in groups.items():
        rows = []
        for label in sorted(releases, key=version_order):
            counts = releases[label].get("counts", {})
            counted = {(op, twin): n for op, twins in counts.items() for twin, n in twins.items()}
            rows.append((None, [label, releases[label]["jaxlib"] or "—"], counted))
        lines += [
            f"Instructions per call with {project} releases, Python {python}, the other side at {fixed}; a change "
            f"from the release before beyond {spread:.1%} in brackets.",
            "",
            marked_table(["release", "jaxlib", *(f"{op}, {twin}" for op, twin in floors)], floors, rows),
            "",
        ]
    for found in records:
        lines += markdown_one(found, releases=False)
    return "\n".join(lines).strip()


def read_all(folder: Path) -> list[dict]:
    found = []
    for path in sorted(Path(folder).glob("*.json")):
        try:
            found.append(json.loads(path.read_text()))
        except ValueError as error:
            raise BadInput(f"{path}: not a bisection record ({error})") from None
    return found
