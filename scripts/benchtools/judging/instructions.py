"""Instruction counts at a commit, with the functions they are spent in: a step's cause in C and in Python."""

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from benchmarks import callgrind

from .. import util
from ..asvtools import sides
from ..errors import Failed
from ..util import markdown_table
from . import explain as explain_module

BENCHMARK = "bench_instructions.Instructions"  # track_module and track_tuple, params (operation,)
SHOWN = 3  # functions named in a cause
BUILTIN_SHARE = 0.01  # a builtin is named when its C work moved by this share of the operation's count
ENVIRONMENT_SUFFIX = ".environment.json"  # the counting environment (callgrind.environment), kept beside its count


def kept(env: explain_module.ProfileEnv, commit: str, names: list[str]) -> Path:
    """The file that keeps the count of ``names`` at ``commit`` in ``env``."""
    recipe = hashlib.sha256("\n".join(sorted(names)).encode()).hexdigest()[:12]
    return env.root / "instructions" / env.name / f"{commit}-{recipe}.json"


def pair_names(env: explain_module.ProfileEnv, commits: tuple[str, str], names: list[str]) -> list[str]:
    """The operations to count both ``commits`` with: a set kept at both that holds ``names``, else ``names``.  A
    count depends a little on what else its process built (the allocator's state), so both sides share one set."""
    for path in sorted(kept(env, commits[0], names).parent.glob(f"{commits[0]}-*.json")):
        held = [] if path.name.endswith(ENVIRONMENT_SUFFIX) else sorted(json.loads(path.read_text()))
        if held and set(names) <= set(held) and kept(env, commits[1], held).is_file():
            return held
    return names


def counts_at(env: explain_module.ProfileEnv, commit: str, names: list[str]) -> tuple[dict, dict | None]:
    """The counts of ``names`` at ``commit`` and their environment; a count depends a little on the other ``names``."""
    path = kept(env, commit, names)
    environment = path.with_suffix(ENVIRONMENT_SUFFIX)
    if not path.is_file():
        sides.log(f"counting instructions at {commit[:8]} in {env.name}: {', '.join(sorted(names))}")
        failure = f"cannot install {commit[:8]} in {env.name} to count instructions"
        with sides.installed(env.config, "counted", commit, [], env.root, failure=failure) as side:
            python = side.env.find_executable("python")
            try:
                counted = callgrind.count(sorted(names), python=python)
                counted_in = callgrind.environment(python)
            except callgrind.Unavailable as error:
                raise Failed(f"cannot count instructions here: {error}") from None
            except RuntimeError as error:
                raise Failed(f"counting instructions at {commit[:8]} failed: {error}") from None
        util.write_atomic(environment, json.dumps(counted_in, sort_keys=True).encode())
        util.write_atomic(path, json.dumps(counted, indent=0, sort_keys=True).encode())
    return json.loads(path.read_text()), json.loads(environment.read_text()) if environment.is_file() else None


def function_changes(before: dict, after: dict) -> list[tuple[str, float | None, float | None]]:
    """(function, before, after) own instructions per call, largest change first; None where a side did not keep it."""
    (b, floor_b), (a, floor_a) = ((side["functions"], least_kept(side)) for side in (before, after))
    moved = {name: abs(a.get(name, floor_a) - b.get(name, floor_b)) for name in b.keys() | a.keys()}
    return [(name, b.get(name), a.get(name)) for name in sorted(moved, key=lambda name: (-moved[name], name))]


def builtin_changes(before: dict, after: dict) -> list[tuple[str, float, float]]:
    """(builtin, before, after) instructions per call, all its C work included, that moved by BUILTIN_SHARE."""
    b, a = before.get("builtins", {}), after.get("builtins", {})
    found = [(name, b.get(name, 0.0), a.get(name, 0.0)) for name in b.keys() | a.keys()]
    moved = [row for row in found if abs(row[2] - row[1]) >= BUILTIN_SHARE * before["instructions"]]
    return sorted(moved, key=lambda row: (-abs(row[2] - row[1]), row[0]))


def least_kept(side: dict) -> float:
    return min(side["functions"].values(), default=0.0)


def moved(before: dict, after: dict, functions: int) -> list[tuple[str, str]]:
    """(what, "before → after"): each builtin whose C work moved, then the first ``functions`` that moved."""

    def amount(value: float | None, side: dict) -> str:
        return f"{value:,.0f}" if value is not None else f"under {least_kept(side):,.0f}"

    rows = [(f"`{name}` with all it called", f"{b:,.0f} → {a:,.0f}") for name, b, a in builtin_changes(before, after)]
    changed = function_changes(before, after)[:functions]
    return rows + [(f"`{name}`", f"{amount(b, before)} → {amount(a, after)}") for name, b, a in changed]


def cause(before: dict, after: dict, per: str = "call", shown: int = SHOWN) -> str:
    """The work that moved, in words ("`builtin_dir` with all it called: 69,012 → 0 instructions per call; ...")."""
    functions = max(shown - len(builtin_changes(before, after)), 1)
    return "; ".join(f"{what}: {amounts} instructions per {per}" for what, amounts in moved(before, after, functions))


@dataclass
class Explanation:
    env_name: str
    before: str
    after: str
    operation: str
    twin: str
    counts: tuple[dict, dict]  # the twin's counts at before and after

    method = (
        "Instructions per call counted under callgrind at both commits (benchmarks/callgrind.py), each function's "
        "own instructions, C and Python, largest change first."
    )

    def markdown(self, shown: int = 8) -> list[str]:
        before, after = self.counts
        title = (
            f"Instructions per call of `{self.operation}` ({self.twin}): {before['instructions']:,.0f} → "
            f"{after['instructions']:,.0f}."
        )
        rows = moved(before, after, shown)
        return [title, "", *markdown_table(["function", "own instructions per call"], rows).splitlines()]

    def sentence(self, per: str = "call") -> str:
        return cause(*self.counts, per=per)


def explain(
    env: explain_module.ProfileEnv, before: str, after: str, operation: str, twin: str, names: list[str]
) -> Explanation:
    """The step of ``operation``'s ``twin`` from ``before`` to ``after``, counted with ``names`` (every operation
    explained with it: one process a commit) or read from a kept count of both that holds them (``pair_names``)."""
    names = pair_names(env, (before, after), names)
    counts = tuple(counts_at(env, commit, names)[0][operation][twin] for commit in (before, after))
    return Explanation(env.name, before, after, operation, twin, counts)
