#!/usr/bin/env python3
"""The regression gate: report what got worse as Markdown, and fail when it is beyond a threshold.

By default it reads the results of the latest scripts/bench run and the
regressions that asv's step detection found in them (`asv publish` writes
regressions.json into the site).  With --compare A B it compares two commits
or tags instead, benchmark by benchmark.

Three kinds of metric, reported in this order:
  deterministic  Python call counts, jaxpr equations, copied bytes: they
                 cannot be noise, so any increase counts;
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
import json
import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks import metrics

from . import cli
from . import confirm as confirming
from .cli import BadInput, ExitCode
from .project import ROOT, VENV, env_label

ASV_DEFAULT_THRESHOLD = 0.05
KINDS = metrics.KINDS


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

    def __init__(self, regexes: dict, overrides: dict):
        try:
            self.regexes = [(re.compile(regex), float(value)) for regex, value in regexes.items()]
        except (re.error, TypeError, ValueError) as error:
            raise BadInput(f"regressions_thresholds in the asv configuration is invalid: {error}")
        self.overrides = overrides

    def __call__(self, change: Change) -> float:
        if change.kind == metrics.DETERMINISTIC:
            return 0.0
        if self.overrides.get(change.kind) is not None:
            return self.overrides[change.kind]
        # As asv.plugins.regressions.Regressions._get_threshold.
        matching = [value for regex, value in self.regexes if regex.match(change.entry)]
        return max(matching, default=ASV_DEFAULT_THRESHOLD)

    def counts(self, change: Change) -> bool:
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
    confirm: bool = True  # re-measure timing suspects side by side (confirm.py); False: --no-confirm
    max_pairs: int = confirming.MAX_PAIRS
    overrides: dict = field(init=False)

    def __post_init__(self):
        for name in ("threshold", "time_threshold"):
            value = getattr(self, name)
            if value is not None and not value >= 0:
                raise BadInput(f"--{name.replace('_', '-')} {value}: thresholds must not be negative")
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
    parser.add_argument("--threshold", type=float,
                        help="relative worsening of any ratio metric that counts, 0.10 meaning 10%% "
                             "(default: each benchmark's regressions_thresholds in the asv configuration)")
    parser.add_argument("--time-threshold", type=float,
                        help="relative worsening of any absolute time or memory that counts "
                             "(default: each benchmark's regressions_thresholds in the asv configuration)")
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


def read_json(path: Path, what: str):
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise BadInput(f"{what} not found: {path}")
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise BadInput(f"{what} is corrupt: {path} ({error})")


class Source:
    """Where the results and site are, from the latest run, a config, or folders named."""

    def __init__(self, args: Location):
        last_run = {}
        config = args.config
        if config is None and not (args.results and args.html):
            last_run = read_json(args.output / ".asv" / "last-run.json", "the latest scripts/bench run record")
            config = Path(last_run["config"])
        self.config = config
        conf = read_json_with_comments(config) if config else {}
        # scripts/bench writes benchmarks/metrics.py's thresholds into the configurations it derives;
        # a configuration without them (such as asv.conf.json itself) gets them from there too.
        regexes = conf["regressions_thresholds"] if "regressions_thresholds" in conf else metrics.asv_thresholds()
        self.thresholds = Thresholds(regexes, args.overrides)
        self.results = args.results or Path(last_run.get("results_dir") or conf["results_dir"])
        self.html = args.html or Path(last_run.get("html_dir") or conf["html_dir"])
        self.machine = args.machine or last_run.get("machine") or self._only_machine()
        self.index = read_json(self.html / "index.json", "asv site index")
        self.benchmarks = read_json(self.results / "benchmarks.json", "asv benchmark list")
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


def unit_of(source: Source, name: str) -> str:
    return source.benchmarks.get(name, {}).get("unit") or ""


def split_entry(entry: str) -> tuple[str, str]:
    """asv's 'module.Class.method(params)' into the benchmark name and its params."""
    if entry.endswith(")") and "(" in entry:
        name, params = entry.split("(", 1)
        return name, params[:-1]
    return entry, ""


def step_changes(source: Source) -> list[Change]:
    data = read_json(source.html / "regressions.json", "asv regressions file")
    changes = []
    for entry, _graph, env_params, _idx, _last, _best, jumps in data.get("regressions", []):
        name, params = split_entry(entry)
        env = ", ".join(f"{k} {v}" for k, v in sorted(env_params.items())) or "—"  # only one environment
        for before_rev, after_rev, before, after in jumps:
            last = source.hash_of_revision[after_rev]
            first = source.hash_of_revision.get(before_rev, "") if before_rev is not None else \
                source.hash_of_revision.get(after_rev - 1, "")
            changes.append(Change(name, params, env, before, after, first, last,
                                  single_commit=before_rev is None, unit=unit_of(source, name)))
    return changes


def load_result(source: Source, commit: str):
    from asv import results

    found = []
    folder = source.results / source.machine
    for path in sorted(folder.glob(f"{commit[:8]}-*.json")):
        try:
            found.append(results.Results.load(str(path), source.machine))
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
                changes.append(Change(name, ", ".join(combo), env_label(before_result),
                                      before, after, before_commit, after_commit,
                                      single_commit=is_single_step(source, before_commit, after_commit),
                                      unit=unit_of(source, name)))
    return changes


def is_single_step(source: Source, before: str, after: str) -> bool:
    revision = {commit: rev for rev, commit in source.hash_of_revision.items()}
    return revision.get(after, -1) - revision.get(before, -2) == 1


def human(value: float, unit: str) -> str:
    from asv import util

    if unit in ("seconds", "bytes"):
        return util.human_value(value, unit)
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


def report(source: Source, changes: list[Change], mode: str, counted: list[Change] | None = None) -> str:
    confirmed = counted is not None
    counted = counted_changes(source, changes) if counted is None else counted
    rule = ("a timing metric when re-measured side by side and found slower (the suspects below)" if confirmed
            else "any other metric beyond its threshold (the threshold column)")
    lines = [f"# Benchmark regressions ({mode})", "",
             f"Results: `{source.results}`, machine `{source.machine}`. "
             f"Counted: a deterministic metric at any increase, {rule}.",
             ""]
    if not counted:
        lines.append("No regression counts.")
        return "\n".join(lines) + "\n"
    lines += ["| kind | benchmark | params | environment | before | after | ratio | threshold | first changed in |",
              "|---|---|---|---|---|---|---|---|---|"]
    for c in counted:
        span = source.label(c.last) if c.single_commit or not c.first else \
            f"{source.label(c.first)}..{source.label(c.last)}"
        threshold = "any increase" if c.kind == "deterministic" else f"+{source.thresholds(c):.0%}"
        lines.append(f"| {c.kind} | `{c.benchmark}` | {c.params or '—'} | {c.env} | {human(c.before, c.unit)} "
                     f"| {human(c.after, c.unit)} | {c.ratio:.2f} | {threshold} | {span} |")
    commands = [cmd for cmd in dict.fromkeys(find_command(source, c) for c in counted) if cmd]
    if commands:
        lines += ["", "To find the first bad commit of a change that spans several commits:", "", "```sh",
                  *commands, "```"]
    return "\n".join(lines) + "\n"


def changes_of(source: Source, compare: tuple[str, str] | None) -> tuple[list[Change], str]:
    """The changes to judge, and how they were found: step detection, or BEFORE → AFTER."""
    if compare:
        return compare_changes(source, *compare), f"{compare[0]} → {compare[1]}"
    return step_changes(source), "asv step detection"


def judge(location: Location, compare: tuple[str, str] | None = None) -> tuple[Source, str, list[Change]]:
    """The gate as a function: its source, its Markdown report, and the changes that count."""
    source = Source(location)
    changes, mode = changes_of(source, compare)
    if not location.confirm:
        return source, report(source, changes, f"{mode}, unconfirmed"), counted_changes(source, changes)
    found = confirming.verdicts(source.config, confirming.suspects(changes, source.thresholds), location.max_pairs)
    slower = [v.change for v in found if v.verdict == confirming.SLOWER]
    counted = [c for c in counted_changes(source, changes) if c.kind == metrics.DETERMINISTIC] + slower
    text = report(source, changes, f"{mode}, timing confirmed", counted) + confirming.render(found, source.label)
    return source, text, counted


def main(argv):
    args = parse_args(argv)
    source, text, counted = judge(Location(output=args.output, config=args.config, results=args.results,
                                           html=args.html, machine=args.machine, threshold=args.threshold,
                                           time_threshold=args.time_threshold, confirm=not args.no_confirm,
                                           max_pairs=args.confirm_max_pairs), args.compare)
    print(text, end="")
    if args.bisect:
        for command in dict.fromkeys(find_command(source, c) for c in counted):
            if command:
                print(f"\n$ {command}", flush=True)
                subprocess.run(shlex.split(command), check=False)
    return ExitCode.FOUND if counted else ExitCode.OK
