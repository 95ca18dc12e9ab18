#!/usr/bin/env python3
"""The regression gate: report what got worse as Markdown, and fail when it is beyond a threshold.

By default it reads the results of the latest scripts/bench run and the
regressions that asv's step detection found in them (`asv publish` writes
regressions.json into the site).  With --compare A B it compares two commits
or tags instead, benchmark by benchmark.

Kinds of metric (benchmarks/metrics.py), reported in this order:
  deterministic  jaxpr equations, copied bytes: they cannot be noise, so
                 any increase counts;
  cost           the exact Python cost of one update (bench_counts.PythonCost,
                 bytecode instructions + 16 x Python calls): counts when it
                 rises by more than 1%; shown with its diagnostics, the calls
                 and bytecodes it is made of, which never count alone;
  ratio          everything in bench_overhead and the seed's overhead ratio:
                 two timings taken side by side in one process, so that the
                 machine's drift mostly cancels;
  time           absolute times and memory, which carry the machine's noise
                 between processes and runs.
A ratio or time counts when after > before * (1 + its threshold).  The
thresholds are the asv configuration's `regressions_thresholds`, read as asv's
own step detection reads them (the largest threshold among the regexes that
match the benchmark, 5% when none does), so the gate and the site's
Regressions tab agree; scripts/bench writes them there from
benchmarks/metrics.py, which also gives them when only folders are named or
the configuration has none.  --threshold and --time-threshold replace them for a whole kind.
A change whose cost went down is never a regression.

Each row gives the step's own size: the levels of the benchmark's series just
before and just after the commit or range where it happened (asv's step
detection, asv.step_detect.detect_steps, run on the site's graph), and
separately how much of it is still there at the newest commit.  With
--compare, before and after are the two commits' values.

Large improvements (tree_at's cost at depth 4 down by 10% or more) are listed
too.  --explain profiles one tree_at update in both commits of every counted
deterministic or cost regression and of every large improvement, each in its
own asv environment (asv profile), and shows which functions' calls changed.

When a regression spans several commits, the report gives the
`asv find` command that narrows it to the first bad commit; --bisect runs it.

By default every timing change (ratio or time) beyond its suspect threshold
is a suspect, re-measured side by side before it counts (benchtools/confirm.py:
both commits in their own asv environments, fresh processes in balanced order
A B B A ..., a paired 99% interval); only a verdict of *slower* counts, and the
report lists every suspect with its verdict, change, interval and pairs.  That
needs the run's asv configuration and repository (exit 2 naming what is
missing).  --no-confirm gives the quick look at stored results instead, which
cries wolf on this machine (README, "Confirmed verdicts").

Exit status: 0 when nothing counts, 1 when a regression counts, 2 on bad
input (a missing or corrupt results or site file, an unknown commit, a
configuration or repository that confirming needs).
"""

import itertools
import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from benchmarks import metrics, params

from . import cli, explain, steps, validate
from . import confirm as confirming
from .cli import BadInput, Error, ExitCode
from .project import ROOT, VENV, env_label

ASV_DEFAULT_THRESHOLD = 0.05
KINDS = metrics.KINDS
LARGE_IMPROVEMENT = 0.10  # tree_at's cost down by this much or more is listed and explained
DIAGNOSTICS = ("bench_counts.PythonCalls", "bench_counts.BytecodeInstructions")


@dataclass
class Change:
    benchmark: str
    params: str
    env: str
    before: float
    after: float
    first: str  # the last good commit, or "" when `last` is the first commit benchmarked
    last: str  # the first commit known to be bad
    single_commit: bool
    unit: str
    latest: float | None = None  # the value at the newest commit (step detection only)
    env_params: dict = field(default_factory=dict)  # the environment's requirements, to profile in it
    graph: tuple | None = None  # (graph path in the site, parameter index, revision before, revision after)
    diagnostics: list = field(default_factory=list)  # [(name, before, after)] beside a cost change
    explanation: "explain.Explanation | None" = None

    @property
    def kind(self) -> str:
        return metrics.kind(self.benchmark)

    @property
    def entry(self) -> str:
        """The name asv's step detection matches `regressions_thresholds` against."""
        return f"{self.benchmark}({self.params})" if self.params else self.benchmark

    @property
    def ratio(self) -> float:
        if self.before == 0:
            return float("inf") if self.after > 0 else 1.0
        return self.after / self.before


class Thresholds:
    """The threshold of each change: any increase for a deterministic metric, else asv's rule."""

    def __init__(self, regexes: dict, overrides: dict, where: Path | str = ""):
        try:
            self.regexes = [(re.compile(regex), validate.finite_non_negative(value, f"threshold of {regex!r}"))
                            for regex, value in regexes.items()]
        except (re.error, TypeError, ValueError, AttributeError) as error:
            raise BadInput(f"regressions_thresholds in the asv configuration {where} is invalid: {error}")
        except BadInput as error:
            raise BadInput(f"regressions_thresholds in the asv configuration {where} is invalid: {error}")
        self.overrides = overrides

    def __call__(self, change: Change) -> float:
        if change.kind == metrics.DETERMINISTIC:
            return 0.0
        if change.kind == metrics.COST:
            return metrics.COST_FLOOR
        if change.kind == metrics.DIAGNOSTIC:
            return float("inf")
        if self.overrides.get(change.kind) is not None:
            return self.overrides[change.kind]
        # As asv.plugins.regressions.Regressions._get_threshold.
        matching = [value for regex, value in self.regexes if regex.match(change.entry)]
        return max(matching, default=ASV_DEFAULT_THRESHOLD)

    def counts(self, change: Change) -> bool:
        """A diagnostic never counts; a cost that went down never does (after > before is needed)."""
        if not metrics.counted(change.benchmark):
            return False
        return change.after > change.before * (1 + self(change))


@dataclass
class Location:
    """Which results, site and thresholds to read: the latest run in ``output``, a configuration, or folders.

    ``threshold`` and ``time_threshold``, when given, replace the thresholds
    of every ratio and every time metric.
    """

    output: Path = ROOT
    config: Path | None = None
    results: Path | None = None
    html: Path | None = None
    machine: str | None = None
    threshold: float | None = None
    time_threshold: float | None = None
    explain: bool = False
    confirm: bool = True  # re-measure timing suspects side by side (confirm.py); False: --no-confirm
    max_pairs: int = confirming.MAX_PAIRS
    overrides: dict = field(init=False)

    def __post_init__(self):
        for name in ("threshold", "time_threshold"):
            value = getattr(self, name)
            if value is not None:
                validate.finite_non_negative(value, f"--{name.replace('_', '-')}")
        self.overrides = {metrics.RATIO: self.threshold, metrics.TIME: self.time_threshold}


def parse_args(argv):
    parser = cli.parser("scripts/regressions", __doc__)
    cli.add_output(parser, ROOT, "the --output folder of the scripts/bench run to read (default: the project)")
    parser.add_argument("--config", type=Path, help="an asv configuration instead of the latest run's")
    parser.add_argument("--results", type=Path, metavar="DIR", help="asv results folder (default: the config's)")
    parser.add_argument("--html", type=Path, metavar="DIR", help="asv site folder (default: the config's)")
    parser.add_argument("--machine", help="the asv machine to compare (default: the latest run's, or the only one)")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"),
                        help="compare two commits or tags instead of using step detection")
    parser.add_argument("--threshold", type=validate.threshold,
                        help="relative worsening of any ratio metric that counts, 0.10 meaning 10%% "
                             "(default: each benchmark's regressions_thresholds in the asv configuration)")
    parser.add_argument("--time-threshold", type=validate.threshold,
                        help="relative worsening of any absolute time or memory that counts "
                             "(default: each benchmark's regressions_thresholds in the asv configuration)")
    parser.add_argument("--explain", action="store_true",
                        help="profile one tree_at update in both commits of each counted deterministic or cost "
                             "regression and each large improvement (asv profile, in the asv environments), "
                             "and show the functions whose calls changed; profiles are cached in OUTPUT/.asv")
    parser.add_argument("--no-confirm", action="store_true",
                        help="judge timing changes on the stored results alone, without re-measuring "
                             "them side by side (quick, but noise between commits counts)")
    parser.add_argument("--confirm-max-pairs", type=int, default=confirming.MAX_PAIRS, metavar="N",
                        help=f"at most N pairs of processes per suspect (default: %(default)s; "
                             f"{confirming.START_PAIRS} first, {confirming.STEP_PAIRS} more while undecided)")
    parser.add_argument("--bisect", action="store_true",
                        help="run `asv find` for each counted regression that spans several commits")
    args = parser.parse_args(argv)
    if any(value is not None and value < 0 for value in (args.threshold, args.time_threshold)):
        parser.error("thresholds must not be negative")
    if args.confirm_max_pairs < confirming.MIN_PAIRS:
        parser.error(f"--confirm-max-pairs must be at least {confirming.MIN_PAIRS}")
    return args


def read_json(path: Path, what: str, shape=None):
    """The JSON file PATH, checked against SHAPE (``validate``): BadInput naming it, never a traceback."""
    return validate.read_json(path, what) if shape is None else validate.read_checked(path, shape, what)


class Source:
    """Where the results and site are, from the latest run, a config, or folders named."""

    def __init__(self, args: Location):
        last_run = {}
        config = args.config
        if config is None and not (args.results and args.html):
            last_run = read_json(args.output / ".asv" / "last-run.json", "the latest scripts/bench run record",
                                 validate.LAST_RUN)
            config = Path(last_run["config"])
        self.config = config
        self.asv_dir = (config.parent.parent if config and config.parent.name == "configs"
                        else args.output / ".asv")
        conf = validate.check(read_json_with_comments(config), validate.CONFIG, config, "asv configuration") \
            if config else {}
        # scripts/bench writes benchmarks/metrics.py's thresholds into the configurations it derives;
        # a configuration without them (such as asv.conf.json itself) gets them from there too.
        regexes = conf["regressions_thresholds"] if "regressions_thresholds" in conf else metrics.asv_thresholds()
        self.thresholds = Thresholds(regexes, args.overrides, config or "")
        for key in ("results_dir", "html_dir"):
            if not (getattr(args, key.removesuffix("_dir")) or last_run.get(key) or conf.get(key)):
                raise BadInput(f"asv configuration {config}: no {key}")
        self.results = args.results or Path(last_run.get("results_dir") or conf["results_dir"])
        self.html = args.html or Path(last_run.get("html_dir") or conf["html_dir"])
        self.machine = args.machine or last_run.get("machine") or self._only_machine()
        self.index = read_json(self.html / "index.json", "asv site index", validate.INDEX)
        self.benchmarks = read_json(self.results / "benchmarks.json", "asv benchmark list", validate.BENCHMARKS)
        revisions = self.index["revision_to_hash"]
        self.hash_of_revision = {int(rev): commit for rev, commit in revisions.items()}
        self.tag_of_hash = {self.hash_of_revision[rev]: tag for tag, rev in self.index["tags"].items()
                            if rev in self.hash_of_revision}

    def _only_machine(self) -> str:
        machines = [p.name for p in self.results.iterdir() if p.is_dir()] if self.results.is_dir() else []
        if len(machines) != 1:
            raise BadInput(f"name the machine with --machine; {self.results} holds {machines or 'none'}")
        return machines[0]

    def label(self, commit: str) -> str:
        return self.tag_of_hash.get(commit, commit[:8])

    def resolve(self, name: str) -> str:
        """A commit hash from a tag or a hash prefix that has results."""
        tags = self.index["tags"]
        if name in tags:
            if tags[name] not in self.hash_of_revision:
                raise BadInput(f"asv site index {self.html / 'index.json'}: tag {name!r} names revision "
                               f"{tags[name]}, which it lists no commit for")
            return self.hash_of_revision[tags[name]]
        matches = {c for c in self.hash_of_revision.values() if c.startswith(name)}
        if len(matches) != 1:
            raise BadInput(f"unknown commit {name!r}: no tag or results commit matches it"
                             if not matches else f"commit {name!r} is ambiguous")
        return matches.pop()


def read_json_with_comments(path: Path):
    from asv import util

    try:
        return util.load_json(str(path), js_comments=True)
    except util.UserError as error:
        raise BadInput(f"asv configuration {path}: {error}")
    except FileNotFoundError:
        raise BadInput(f"asv configuration not found: {path}")
    except RecursionError:
        raise BadInput(f"asv configuration is corrupt: {path} (nested too deeply)")
    except (OSError, ValueError) as error:  # json5's errors are ValueErrors
        raise BadInput(f"asv configuration is corrupt: {path} ({error})")


def unit_of(source: Source, name: str) -> str:
    description = source.benchmarks.get(name)
    unit = description.get("unit") if isinstance(description, dict) else None
    return unit if isinstance(unit, str) else ""


def split_entry(entry: str) -> tuple[str, str]:
    """asv's 'module.Class.method(params)' into the benchmark name and its params."""
    if entry.endswith(")") and "(" in entry:
        name, params = entry.split("(", 1)
        return name, params[:-1]
    return entry, ""


def step_changes(source: Source) -> list[Change]:
    """asv's jumps, each with the levels of the series just before and just after it (steps.true_step)."""
    path = source.html / "regressions.json"
    data = read_json(path, "asv regressions file", validate.REGRESSIONS)
    changes = []
    for entry, graph, env_params, index, last_value, _best, jumps in data.get("regressions", []):
        name, params = split_entry(entry)
        env = env_label(env_params) or "—"  # asv lists the params that differ: none with one environment
        unknown = [after_rev for _before_rev, after_rev, *_values in jumps if after_rev not in source.hash_of_revision]
        if unknown:
            raise BadInput(f"asv regressions file {path} names revision {unknown[0]}, which the site's "
                           f"index.json lacks")
        points = series(source, graph, index)
        for before_rev, after_rev, before, _best_after in jumps:
            last = source.hash_of_revision[after_rev]
            rev_before = before_rev if before_rev is not None else previous_revision(points, after_rev)
            first = source.hash_of_revision.get(rev_before, "") if rev_before is not None else ""
            step = steps.true_step(points, rev_before if rev_before is not None else after_rev - 1,
                                   after_rev, before)
            changes.append(Change(name, params, env, step.before, step.after, first, last,
                                  single_commit=before_rev is None, unit=unit_of(source, name),
                                  latest=last_value, env_params=params_of_graph(graph),
                                  graph=(graph, index, rev_before, after_rev)))
    return changes


def params_of_graph(graph: str) -> dict[str, str]:
    """The parameters in a site's graph path (graphs/arch-x86_64/.../jax-0.4.33/.../NAME.json)."""
    from urllib.parse import unquote

    return dict(unquote(part).split("-", 1) for part in graph.split("/")[1:-1] if "-" in part)


def series(source: Source, graph: str, index: int | None) -> list[tuple[int, float | None]]:
    path = source.html / graph
    try:
        return steps.graph_points(read_json(path, "asv graph file", validate.GRAPH), index)
    except ValueError as error:
        raise BadInput(f"asv graph file has the wrong shape: {path}: {error}") from None


def previous_revision(points: list, revision: int) -> int | None:
    """The last revision before ``revision`` that has a value."""
    earlier = [rev for rev, value in points if rev < revision and value is not None]
    return max(earlier, default=None)


def load_result(source: Source, commit: str):
    from asv import results

    found = []
    folder = source.results / source.machine
    for path in sorted(folder.glob(f"{commit[:8]}-*.json")):
        try:
            validate.stored_file(path, PurePath(source.machine, path.name))
            found.append(results.Results.load(str(path), source.machine))
        except BadInput:
            raise
        except Exception as error:  # noqa: BLE001 - any unreadable results file is bad input
            raise BadInput(f"results file is corrupt: {path} ({error})")
    if not found:
        raise BadInput(f"no results for commit {source.label(commit)} on machine {source.machine!r} in {folder}")
    return found


def compare_changes(source: Source, before_name: str, after_name: str) -> list[Change]:
    before_commit, after_commit = source.resolve(before_name), source.resolve(after_name)
    after_by_env = {r.env_name: r for r in load_result(source, after_commit)}
    changes = []
    for before_result in load_result(source, before_commit):
        after_result = after_by_env.get(before_result.env_name)
        if after_result is None:
            continue
        for name in sorted(set(before_result.get_all_result_keys()) & set(after_result.get_all_result_keys())):
            params = before_result.get_result_params(name)
            if params != after_result.get_result_params(name):
                continue
            before_values = before_result.get_result_value(name, params)
            after_values = after_result.get_result_value(name, params)
            for combo, before, after in zip(itertools.product(*params), before_values, after_values):
                if before is None or after is None or before != before or after != after:
                    continue
                changes.append(Change(name, ", ".join(combo), env_label(before_result.params),
                                      before, after, before_commit, after_commit,
                                      single_commit=is_single_step(source, before_commit, after_commit),
                                      unit=unit_of(source, name), env_params=dict(before_result.params)))
    return changes


def is_single_step(source: Source, before: str, after: str) -> bool:
    revision = {commit: rev for rev, commit in source.hash_of_revision.items()}
    return revision.get(after, -1) - revision.get(before, -2) == 1


def human(value: float, unit: str) -> str:
    from asv import util

    if unit in ("seconds", "bytes"):
        return util.human_value(value, unit)
    if float(value).is_integer():
        return f"{int(value):,} {unit}".strip()
    return f"{value:.4g} {unit}".strip()


def find_command(source: Source, change: Change) -> str | None:
    if change.single_commit or not change.first or source.config is None:
        return None
    regex = "^" + change.benchmark.replace(".", r"\.") + "$"
    return shlex.join([str(VENV / "bin" / "asv"), "find", "--config", str(source.config),
                       "--machine", source.machine, f"{change.first}..{change.last}", regex])


def counted_changes(source: Source, changes: list[Change]) -> list[Change]:
    counted = [c for c in changes if source.thresholds.counts(c)]
    return sorted(counted, key=lambda c: (KINDS.index(c.kind), -c.ratio))


def percent(change: Change) -> str:
    if change.before == 0:
        return "from 0" if change.after else "±0%"
    return f"{change.ratio - 1:+.1%}"


def where(source: Source, change: Change) -> str:
    return source.label(change.last) if change.single_commit or not change.first else \
        f"{source.label(change.first)}..{source.label(change.last)}"


def still_there(change: Change) -> str:
    """How much of a step is left at the newest commit (asv's latest against the level before the step)."""
    if change.latest is None:
        return "—"
    if change.before == 0:
        return f"{human(change.latest, change.unit)}"
    return f"{human(change.latest, change.unit)} ({change.latest / change.before - 1:+.1%} vs before)"


def threshold_text(source: Source, change: Change) -> str:
    if change.kind == metrics.DETERMINISTIC:
        return "any increase"
    if change.kind == metrics.COST:
        return f"+{metrics.COST_FLOOR:.0%} (floor)"
    return f"+{source.thresholds(change):.0%}"


def diagnostics_text(change: Change) -> str:
    return "; ".join(f"{name.rsplit('.', 2)[-2]} {before:,.0f} → {after:,.0f} "
                     f"({(after / before - 1) if before else float('inf'):+.1%})"
                     for name, before, after in change.diagnostics) or "—"


def attach_diagnostics(source: Source, rows: list[Change], changes: list[Change]) -> None:
    """Beside each cost change, its diagnostics (calls, bytecodes) at the same two commits."""
    for row in rows:
        if row.kind != metrics.COST:
            continue
        twin = row.benchmark.rsplit(".", 1)[1]
        for prefix in DIAGNOSTICS:
            name = f"{prefix}.{twin}"
            if row.graph:  # step detection: the diagnostic's own graph, at the step's two revisions
                graph, index, rev_before, rev_after = row.graph
                diagnostic_graph = graph.rsplit("/", 1)[0] + f"/{name}.json"
                if not (source.html / diagnostic_graph).is_file():
                    continue
                points = dict(series(source, diagnostic_graph, index))
                before, after = points.get(rev_before), points.get(rev_after)
            else:
                twin_change = next((c for c in changes if c.benchmark == name and c.params == row.params
                                    and c.env == row.env), None)
                before, after = (twin_change.before, twin_change.after) if twin_change else (None, None)
            if before is not None and after is not None:
                row.diagnostics.append((name, before, after))


def improvements(source: Source, changes: list[Change], compared: bool) -> list[Change]:
    """tree_at's cost at the default depth down by LARGE_IMPROVEMENT or more: every such step, or the comparison."""
    depth = str(params.DEFAULT_DEPTH)
    if compared:
        return [c for c in changes if c.benchmark == metrics.COST_TREE_AT and c.params == depth
                and c.ratio <= 1 - LARGE_IMPROVEMENT]
    listed = source.benchmarks.get(metrics.COST_TREE_AT)
    if not listed or not (source.html / "graphs").is_dir():
        return []
    combos = [", ".join(combo) for combo in itertools.product(*listed.get("params", []))]
    index = combos.index(depth) if depth in combos else None
    if combos and index is None:
        return []
    graphs = {}
    for path in sorted((source.html / "graphs").rglob(f"{metrics.COST_TREE_AT}.json")):
        graph = path.relative_to(source.html).as_posix()
        graph_params = params_of_graph(graph)
        if "summary" not in graph.split("/") and graph_params.get("machine", source.machine) == source.machine:
            graphs[graph] = graph_params
    # Named as asv names an environment in regressions.json: by the parameters that differ between graphs.
    varying = {key for params_ in graphs.values() for key in params_
               if len({p.get(key) for p in graphs.values()}) > 1}
    found = []
    for graph, graph_params in graphs.items():
        env = ", ".join(f"{k} {v}" for k, v in sorted(graph_params.items()) if k in varying) or "—"
        env_params = graph_params
        points = series(source, graph, index)
        present = [value for _rev, value in sorted(points) if value is not None]
        for step in steps.steps(steps.pieces(points)):
            if step.relative <= -LARGE_IMPROVEMENT:
                found.append(Change(metrics.COST_TREE_AT, depth, env, step.before, step.after,
                                    source.hash_of_revision.get(step.rev_before, ""),
                                    source.hash_of_revision[step.rev_after],
                                    single_commit=step.rev_after - step.rev_before == 1,
                                    unit=unit_of(source, metrics.COST_TREE_AT),
                                    latest=present[-1] if present else None, env_params=env_params,
                                    graph=(graph, index, step.rev_before, step.rev_after)))
    return found


def to_explain(counted: list[Change], improved: list[Change]) -> list[Change]:
    """The changes whose cause is profiled: counted deterministic and cost regressions, large improvements."""
    return [c for c in counted if c.kind in (metrics.DETERMINISTIC, metrics.COST)] + improved


def attach_explanations(source: Source, rows: list[Change], cached_only: bool = False) -> list[str]:
    """Profile each row's two commits (explain.explain), once per (environment, commits); the errors met."""
    if source.config is None:
        raise BadInput("--explain needs the asv configuration of the run (--output or --config)")
    errors, done = [], {}
    for row in rows:
        if not row.first:
            continue
        key = (tuple(sorted(row.env_params.items())), row.first, row.last)
        if key not in done:
            try:
                done[key] = explain.explain(source.config, row.env_params, row.first, row.last,
                                            source.asv_dir / "profiles", cached_only=cached_only)
            except Error as error:
                done[key] = None
                errors.append(f"{source.label(row.first)} → {source.label(row.last)}: {error}")
        row.explanation = done[key]
    return errors


def row_cells(source: Source, c: Change) -> str:
    return (f"| {c.kind} | `{c.benchmark}` | {c.params or '—'} | {c.env} | {human(c.before, c.unit)} "
            f"| {human(c.after, c.unit)} | {percent(c)} | {threshold_text(source, c)} | {where(source, c)} "
            f"| {still_there(c)} | {diagnostics_text(c)} |")


def explanations_section(source: Source, rows: list[Change], errors: list[str]) -> list[str]:
    lines = ["", "## What changed in the code that ran", "",
             f"One eager tree_at update (`{explain.PROFILED}`) profiled with `asv profile` in both commits, "
             "each in its own asv environment; the functions whose calls per update changed, largest change of "
             "cumulative time first.", ""]
    seen = set()
    for row in rows:
        e = row.explanation
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        explained = [r for r in rows if r.explanation is e]
        what = ", ".join(f"`{r.benchmark.split('.', 1)[1]}` ({r.params}) {percent(r)}" for r in explained)
        env = f" ({row.env})" if row.env != "—" else ""
        lines += [f"### {source.label(e.before)} → {source.label(e.after)}{env}", "", what, "",
                  *e.markdown(), ""]
    lines += [f"Not profiled: {error}" for error in errors]
    return lines


def report(source: Source, changes: list[Change], mode: str, counted: list[Change] | None = None,
           improved: list[Change] | None = None, explain_errors: list[str] | None = None) -> str:
    """The Markdown report; ``counted`` given: the timing rows among them were confirmed (confirm.py)."""
    confirmed = counted is not None
    counted = counted_changes(source, changes) if counted is None else counted
    improved = improved or []
    timing_rule = ("a timing metric when re-measured side by side and found slower (the suspects below)"
                   if confirmed else "any other metric beyond its threshold (the threshold column)")
    lines = [f"# Benchmark regressions ({mode})", "",
             f"Results: `{source.results}`, machine `{source.machine}`. "
             "Counted: a deterministic metric at any increase, the cost of an update above "
             f"+{metrics.COST_FLOOR:.0%}, {timing_rule}; the "
             "diagnostics (calls, bytecodes) never count on their own, and a cost that went down never counts. "
             + ("Before and after are the levels just before and just after the step; "
                "the newest commit's value says how much of it is still there." if mode == STEP_MODE else ""),
             ""]
    if not counted:
        lines.append("No regression counts.")
    else:
        lines += ["| kind | benchmark | params | environment | before | after | change | threshold | where "
                  "| at the newest commit | diagnostics |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        lines += [row_cells(source, c) for c in counted]
        commands = [cmd for cmd in dict.fromkeys(find_command(source, c) for c in counted) if cmd]
        if commands:
            lines += ["", "To find the first bad commit of a change that spans several commits:", "", "```sh",
                      *commands, "```"]
    if improved:
        lines += ["", f"## Large improvements (tree_at's cost down by {LARGE_IMPROVEMENT:.0%} or more)", "",
                  "| benchmark | params | environment | before | after | change | where | at the newest commit "
                  "| diagnostics |", "|---|---|---|---|---|---|---|---|---|"]
        lines += [f"| `{c.benchmark}` | {c.params} | {c.env} | {human(c.before, c.unit)} | {human(c.after, c.unit)} "
                  f"| {percent(c)} | {where(source, c)} | {still_there(c)} | {diagnostics_text(c)} |"
                  for c in improved]
    explained = to_explain(counted, improved)
    if any(c.explanation for c in explained) or explain_errors:
        lines += explanations_section(source, explained, explain_errors or [])
    return "\n".join(lines) + "\n"


STEP_MODE = "asv step detection"


def changes_of(source: Source, compare: tuple[str, str] | None) -> tuple[list[Change], str]:
    """The changes to judge, and how they were found: step detection, or BEFORE → AFTER."""
    if compare:
        return compare_changes(source, *compare), f"{compare[0]} → {compare[1]}"
    return step_changes(source), STEP_MODE


def judge(location: Location, compare: tuple[str, str] | None = None) -> tuple[Source, str, list[Change]]:
    """The gate as a function: its source, its Markdown report, and the changes that count.

    With ``location.explain``, the counted deterministic and cost regressions
    and the large improvements carry their explanation (explain.py).
    """
    source = Source(location)
    changes, mode = changes_of(source, compare)
    improved = improvements(source, changes, compared=compare is not None)
    if location.confirm:
        found = confirming.verdicts(source.config, confirming.suspects(changes, source.thresholds),
                                    location.max_pairs)
        slower = [v.change for v in found if v.verdict == confirming.SLOWER]
        counted = [c for c in counted_changes(source, changes) if c.kind not in confirming.TIMING_KINDS] + slower
        mode = f"{mode}, timing confirmed"
    else:
        found, counted = None, counted_changes(source, changes)
        mode = f"{mode}, unconfirmed"
    attach_diagnostics(source, counted + improved, changes)
    errors = attach_explanations(source, to_explain(counted, improved)) if location.explain else []
    text = report(source, changes, mode, counted if found is not None else None, improved, errors)
    return source, text + (confirming.render(found, source.label) if found is not None else ""), counted


def main(argv):
    args = parse_args(argv)
    source, text, counted = judge(Location(output=args.output, config=args.config, results=args.results,
                                           html=args.html, machine=args.machine, threshold=args.threshold,
                                           time_threshold=args.time_threshold, explain=args.explain,
                                           confirm=not args.no_confirm, max_pairs=args.confirm_max_pairs),
                                  args.compare)
    print(text, end="")
    if args.bisect:
        for command in dict.fromkeys(find_command(source, c) for c in counted):
            if command:
                print(f"\n$ {command}", flush=True)
                subprocess.run(shlex.split(command), check=False)
    return ExitCode.FOUND if counted else ExitCode.OK
