"""How each operation's instruction count stands to its time, on every step of the commit-level history
whose time was measured side by side (docs/commit-history-times.json).

Each kept step names an environment, the benchmark that times the operation (in tree_map passes) and
two commits.  Both commits' instructions are counted (judging/instructions.py, cached) and the step's
instruction change is set beside its time change, in the words and the agreement classes that the
operation history uses for the Python cost (operation_markdown.agreement), with the C and Python
functions whose instructions moved most.
"""

from dataclasses import dataclass
from pathlib import Path

from benchmarks import metrics
from benchmarks.instruction_ops import OPERATIONS as COUNTED

from .. import git, settings
from ..asvtools import operations
from ..asvtools.results import stored, values
from ..judging import instructions, pairs
from ..util import markdown_table
from . import operation_history, operation_markdown

METRIC = "instructions"  # how the tables name the metric
BLOCK = "instruction-history"  # the steps and their agreement table (docs/instructions.md)
TRACKING_BLOCK = "instruction-tracking"  # the agreement table alone, beside the cost's (docs/commit-history.md)


def _labels() -> dict[str, str]:
    """{entry of the benchmark that times an operation: the operation's label in the operation history}."""
    found = {metrics.entry(*operation.timed): operation.label for operation in operations.OPERATIONS}
    found[metrics.PASSES_TREE_AT] = operation_history.TREE_AT
    return found


LABELS = _labels()
# {entry of the benchmark that times an operation's Module side: the counted operation}
COUNTED_BY_TIME = {metrics.entry(*op.timed[0]): name for name, op in COUNTED.items() if op.timed}


@dataclass
class InstructionStep:
    env: str
    operation: str  # the operation history's label
    counted: str  # instruction_ops' name
    before: str  # commit
    after: str
    instructions: tuple[float, float]
    measured: pairs.Interval
    cause: str

    @property
    def relative(self) -> float:
        return self.instructions[1] / self.instructions[0] - 1


def env_params(label: str) -> dict:
    """The environment's parameters from its label: "Python 3.11, jax 0.4.33" -> {python: 3.11, jax: 0.4.33}."""
    return {name.lower(): version for name, version in (part.strip().split(" ", 1) for part in label.split(","))}


def steps(kept: dict, config: Path, cache_dir: Path) -> dict[str, list[InstructionStep]]:
    """{operation label: its measured steps with their instruction counts}, counting what the cache lacks."""
    commits = {}
    for key in kept:
        env, entry, before, after = (part.strip() for part in key.split("|"))
        if entry in COUNTED_BY_TIME:
            commits.update(dict.fromkeys([(env, before), (env, after)]))
    # Every commit counts the same operations, those that are timed: both sides of a step share one recipe.
    timed = sorted(set(COUNTED_BY_TIME.values()))
    counts = {
        (env, commit): instructions.counts_at(config, env_params(env), commit, timed, cache_dir)
        for env, commit in commits
    }
    found = {}
    for key, value in kept.items():
        env, entry, before, after = (part.strip() for part in key.split("|"))
        if entry not in COUNTED_BY_TIME or value.get("interval") is None:
            continue
        name = COUNTED_BY_TIME[entry]
        b, a = counts[(env, before)][name]["module"], counts[(env, after)][name]["module"]
        per = "update" if name.startswith(("update", "tree_at")) else "call"
        found.setdefault(LABELS[entry], []).append(
            InstructionStep(
                env,
                LABELS[entry],
                name,
                before,
                after,
                (b["instructions"], a["instructions"]),
                pairs.Interval(**value["interval"]),
                instructions.cause(b, a, per),
            )
        )
    return found


def data(found: dict[str, list[InstructionStep]], repo: Path) -> list[dict]:
    """What the tables are made from, without the counts' cache or the history's repository: each step's counts,
    cause and time, and its commit's subject and date (``--data``, committed beside the docs)."""
    subjects = git.commit_subjects(repo)
    return [
        {
            "environment": step.env,
            "operation": step.operation,
            "counted": step.counted,
            "before": step.before,
            "after": step.after,
            "instructions": list(step.instructions),
            "time": vars(step.measured),
            "cause": step.cause,
            "subject": subjects.get(step.after, ("", ""))[0],
            "date": subjects.get(step.after, ("", ""))[1],
        }
        for found_steps in found.values()
        for step in found_steps
    ]


def from_data(rows: list[dict]) -> tuple[dict[str, list[InstructionStep]], dict[str, tuple[str, str]]]:
    """``data``'s steps again, by operation, with the subjects and dates of their commits."""
    found, subjects = {}, {}
    for row in rows:
        step = InstructionStep(
            row["environment"],
            row["operation"],
            row["counted"],
            row["before"],
            row["after"],
            tuple(row["instructions"]),
            pairs.Interval(**row["time"]),
            row["cause"],
        )
        found.setdefault(step.operation, []).append(step)
        subjects[step.after] = (row["subject"], row["date"])
    return found, subjects


def markdown(found: dict[str, list[InstructionStep]], subjects: dict[str, tuple[str, str]], project_url: str) -> str:
    """The agreement table, then every step: its commit, instruction change, time and cause; ``subjects``:
    {commit: (subject, date)}, git.commit_subjects of the history's repository."""
    rows = []
    for operation, found_steps in found.items():
        for step in sorted(found_steps, key=lambda s: subjects.get(s.after, ("", ""))[1]):
            subject, date = subjects.get(step.after, ("", ""))
            pull = operation_markdown.pull_link(operation_history.pull_request_of(subject), project_url, "")
            rows.append(
                [
                    f"`{step.after[:8]}` {date}" + (f" ({pull})" if pull else ""),
                    operation,
                    f"{step.instructions[0]:,.0f} → {step.instructions[1]:,.0f} ({step.relative:+.1%})",
                    operation_markdown.interval_text(step.measured),
                    operation_markdown.agreement_label(operation_markdown.agreement(step), METRIC),
                    step.cause.replace("|", "\\|"),
                ]
            )
    header = ["commit", "operation", "instructions per call (exact)", "time, side by side", "agreement"]
    cause = "cause: own instructions per call of the functions that moved most"
    intro = "How each operation's instruction-count steps stand to its time measured side by side:"
    return "\n".join([intro, "", tracking_markdown(found), "", markdown_table([*header, cause], rows)])


def tracking_markdown(found: dict[str, list[InstructionStep]]) -> str:
    """The agreement table, after how many steps whose time is decided move the way their count does."""
    everything = [step for found_steps in found.values() for step in found_steps]
    decided = [s for s in everything if s.measured.low > 0 or s.measured.high < 0]
    same_way = [s for s in decided if (s.measured.estimate > 0) == (s.relative > 0)]
    return (
        f"Of the {len(everything)} steps, {len(decided)} have a time decided either way (its interval excludes "
        f"no change); {len(same_way)} of those move the way their instruction count does.\n\n"
        + operation_markdown.tracking_markdown(found, metric=METRIC)
    )


JAX_BLOCK = "instruction-jax-history"  # the operations JAX's C++ serves, release by release (docs/instructions.md)
JAX_OPERATIONS = ("flatten", "unflatten", "dispatch(jit)", "dispatch(filter_jit)")
INSTRUCTIONS = "bench_instructions.Instructions"


def jax_history(results: Path, repo: Path) -> list[tuple[str, str, dict]]:
    """(JAX release, environment, {(operation, twin): instructions per call}) of each result of a JAX history
    (scripts/bench --jax-history), in the history's order."""
    order, tags = git.topological_order(repo), git.tag_of_commit(repo)
    found = []
    for result in stored(results):
        counts = {
            (operation, twin): value
            for twin in ("module", "tuple")
            for (operation,), value in values(result, f"{INSTRUCTIONS}.track_{twin}").items()
            if operation in JAX_OPERATIONS and value is not None
        }
        if counts:
            found.append((order.get(result.commit_hash, len(order)), tags.get(result.commit_hash), result, counts))
    found.sort(key=lambda item: (item[0], item[2].env_name))
    return [(tag or result.commit_hash[:8], env_label(result.params), counts) for _, tag, result, counts in found]


def env_label(params: dict) -> str:
    return f"Python {params.get('python', '?')}"


def jax_markdown(found: list[tuple[str, str, dict]]) -> str:
    """Per environment, each release's instructions per call of the operations JAX's pytree and dispatch code
    serves, Module and tuple twins, with the change from the release before wherever it passes the floor."""
    rows, previous = [], {}
    for release, env, counts in found:
        cells = [env, release]
        for key in ((op, twin) for op in JAX_OPERATIONS for twin in ("module", "tuple")):
            value, before = counts.get(key), previous.get((env, key))
            cell = "—" if value is None else f"{value:,.0f}"
            floor = metrics.threshold(metrics.entry(f"{INSTRUCTIONS}.track_{key[1]}", repr(key[0])))
            if value is not None and before and abs(value / before - 1) > floor:
                cell += f" ({value / before - 1:+.1%})"
            cells.append(cell)
            if value is not None:
                previous[(env, key)] = value
        rows.append(cells)
    header = ["environment", "JAX", *(f"{op}, {twin}" for op in JAX_OPERATIONS for twin in ("Module", "tuple"))]
    return (
        f"Instructions per call, Equinox {settings.load().reference_equinox} (the Module twin, then the tuple twin); "
        "a change from the release before beyond its floor (twice its measured spread, "
        "benchmarks/instruction_spread.json) is given in brackets.\n\n" + markdown_table(header, rows)
    )
