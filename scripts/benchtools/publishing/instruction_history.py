"""How each operation's instruction count stands to its time on the history's steps (docs/instructions.md)."""

import dataclasses
import functools
import itertools
from dataclasses import dataclass
from pathlib import Path

from benchmarks import metrics
from benchmarks.instruction_ops import OPERATIONS as COUNTED
from benchmarks.instruction_ops import TWINS

from .. import git, settings, util
from ..asvtools.results import stored, values
from ..judging import explain, instructions, pairs
from ..util import markdown_table
from . import operation_history, operation_markdown

METRIC = "instructions"
BLOCK = "instruction-history"  # docs/instructions.md
TRACKING_BLOCK = "instruction-tracking"  # docs/commit-history.md
# {entry of the benchmark that times an operation: its label in the operation history}
LABELS = {metrics.entry(*tracked.timed): tracked.label for tracked in operation_history.TRACKED}
# {entry of the benchmark that times an operation's Module side: the counted operation}
COUNTED_BY_TIME = {metrics.entry(*op.timed[0]): name for name, op in COUNTED.items() if op.timed}


@dataclass
class InstructionStep:
    environment: str
    operation: str  # the operation history's label
    counted: str  # instruction_ops' name
    before: str  # commit
    after: str
    instructions: tuple[float, float]
    time: pairs.Interval
    cause: str
    subject: str = ""  # the after commit's
    date: str = ""

    @property
    def measured(self) -> pairs.Interval:
        return self.time

    @property
    def relative(self) -> float:
        return self.instructions[1] / self.instructions[0] - 1


def env_params(label: str) -> dict:
    """The environment's parameters from its label: "Python 3.11, jax 0.4.33" -> {python: 3.11, jax: 0.4.33}."""
    return {name.lower(): version for name, version in (part.strip().split(" ", 1) for part in label.split(","))}


def steps(kept: dict, config: Path, cache_dir: Path) -> dict[str, list[InstructionStep]]:
    # Both sides of a step count the same operations (instructions.counts_at).
    timed = sorted(set(COUNTED_BY_TIME.values()))

    @functools.cache
    def environment(env: str) -> explain.ProfileEnv:
        return explain.env_config(config, util.load_asv_config(config), env_params(env), cache_dir)

    @functools.cache
    def module_counts(env: str, commit: str) -> dict:
        return instructions.counts_at(environment(env), commit, timed)[0]

    found = {}
    for key, value in kept.items():
        env, entry, before, after = (part.strip() for part in key.split("|"))
        if entry not in COUNTED_BY_TIME or value.get("interval") is None:
            continue
        name = COUNTED_BY_TIME[entry]
        b, a = (module_counts(env, commit)[name]["module"] for commit in (before, after))
        cause = instructions.cause(b, a, "update" if name.startswith(("update", "tree_at")) else "call")
        counted, measured = (b["instructions"], a["instructions"]), pairs.Interval(**value["interval"])
        step = InstructionStep(env, LABELS[entry], name, before, after, counted, measured, cause)
        found.setdefault(step.operation, []).append(step)
    return found


def data(found: dict[str, list[InstructionStep]], repo: Path) -> list[dict]:
    """The steps as ``--data`` keeps them beside the docs, with their commits' subjects."""
    subjects = git.commit_subjects(repo)
    rows = []
    for step in itertools.chain(*found.values()):
        subject, date = subjects.get(step.after, ("", ""))
        rows.append(dataclasses.asdict(dataclasses.replace(step, subject=subject, date=date)))
    return rows


def from_data(rows: list[dict]) -> dict[str, list[InstructionStep]]:
    found = {}
    for row in rows:
        time = pairs.Interval(**row["time"])
        step = InstructionStep(**{**row, "instructions": tuple(row["instructions"]), "time": time})
        found.setdefault(step.operation, []).append(step)
    return found


def markdown(found: dict[str, list[InstructionStep]], project_url: str) -> str:
    rows = []
    for operation, found_steps in found.items():
        for step in sorted(found_steps, key=lambda s: s.date):
            pull = operation_history.pull_request_of(step.subject)
            commit = operation_markdown.commit_cell(step.after[:8], step.date, pull, project_url)
            change = operation_markdown.change_text(*step.instructions)
            time = operation_markdown.interval_text(step.measured)
            agreement = operation_markdown.agreement_label(operation_markdown.agreement(step), METRIC)
            rows.append([commit, operation, change, time, agreement, step.cause.replace("|", "\\|")])
    header = ["commit", "operation", "instructions per call (exact)", "time, side by side", "agreement"]
    cause = "cause: own instructions per call of the functions that moved most"
    intro = "How each operation's instruction-count steps stand to its time measured side by side:"
    return "\n".join([intro, "", tracking_markdown(found), "", markdown_table([*header, cause], rows)])


def tracking_markdown(found: dict[str, list[InstructionStep]]) -> str:
    everything = list(itertools.chain(*found.values()))
    decided = [s for s in everything if s.measured.low > 0 or s.measured.high < 0]
    same_way = [s for s in decided if (s.measured.estimate > 0) == (s.relative > 0)]
    return (
        f"Of the {len(everything)} steps, {len(decided)} have a time decided either way (its interval excludes "
        f"no change); {len(same_way)} of those move the way their instruction count does.\n\n"
        + operation_markdown.tracking_markdown(found, metric=METRIC)
    )


def marked_table(header: list[str], floors: dict, rows) -> str:
    """ROWS ((group, leading cells, counts)) as a table, each change past its floor in ``floors`` marked."""
    previous, table = {}, []
    for group, leading, counts in rows:
        before = previous.setdefault(group, {})
        cells = []
        for key, floor in floors.items():
            value, last = counts.get(key), before.get(key)
            cells.append("—" if value is None else f"{value:,.0f}")
            if value is not None and last and abs(value / last - 1) > floor:
                cells[-1] += f" ({value / last - 1:+.1%})"
            if value is not None:
                before[key] = value
        table.append([*leading, *cells])
    return markdown_table(header, table)


JAX_BLOCK = "instruction-jax-history"  # the operations JAX's C++ serves (docs/instructions.md)
JAX_OPERATIONS = ("flatten", "unflatten", "dispatch(jit)", "dispatch(filter_jit)")


def jax_history(results: Path, repo: Path) -> list[tuple[str, str, dict]]:
    order, tags = git.topological_order(repo), git.tag_of_commit(repo)
    found = []
    for result in sorted(stored(results), key=lambda r: (order.get(r.commit_hash, len(order)), r.env_name)):
        counts = {
            (operation, twin): value
            for twin in TWINS
            for (operation,), value in values(result, f"{instructions.BENCHMARK}.track_{twin}").items()
            if operation in JAX_OPERATIONS and value is not None
        }
        if counts:
            release = tags.get(result.commit_hash) or result.commit_hash[:8]
            found.append((release, f"Python {result.params.get('python', '?')}", counts))
    return found


def jax_markdown(found: list[tuple[str, str, dict]]) -> str:
    floors = {
        (op, twin): metrics.threshold(metrics.entry(f"{instructions.BENCHMARK}.track_{twin}", repr(op)))
        for op in JAX_OPERATIONS
        for twin in TWINS
    }
    header = ["environment", "JAX", *(f"{op}, {twin}" for op in JAX_OPERATIONS for twin in ("Module", "tuple"))]
    table = marked_table(header, floors, [(env, [env, release], counts) for release, env, counts in found])
    return (
        f"Instructions per call, Equinox {settings.load().reference_equinox} (the Module twin, then the tuple twin); "
        "a change from the release before beyond its floor (twice its measured spread, "
        "benchmarks/instruction_spread.json) is given in brackets.\n\n" + table
    )
