"""What changed in the code that ran: one call (``PROFILED``) profiled in two commits as ``asv profile`` profiles it,
in environments of the profiles' own (PROFILE_ENVS), so that profiling waits for no scripts/bench run.  Functions are
keyed by module and qualified name, read from the installed source: line numbers move between releases."""

import ast
import contextlib
import copy
import json
import marshal
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from .. import util
from ..asvtools import environments, sides
from ..errors import Failed
from ..project import ROOT
from ..util import markdown_table
from .sources import split_entry

PROFILED = "bench_eager.EagerSurgery.time_tree_at"
PROFILE_ENVS = "profile-env"  # where profiles and counts are made: beside the run's env_dir, as confirm-env
SHOWN = 8  # rows of the table


@dataclass(frozen=True)
class FunctionChange:
    function: str
    calls: tuple[int, int]
    cumulative_us: tuple[float, float]


class ProfileEnv(NamedTuple):  # an environment of the run's, alone in a configuration of its own
    name: str
    config: Path
    root: Path  # where its commits are installed: PROFILE_ENVS, kept as long as the run's environments


def env_config(config: Path, conf: dict, env_params: dict, cache_dir: Path) -> ProfileEnv:
    """asv's environment whose Python and requirements agree with ``env_params``, its configuration kept under
    ``cache_dir``; ``conf`` is ``config`` as loaded at the door."""
    config, out_dir = Path(config).resolve(), Path(cache_dir).resolve() / "configs"  # asv runs from another folder
    environments.setup_pythons_first_on_path()  # asv profile looks for the environment's Python there
    wanted = {key: str(value) for key, value in env_params.items()}
    for name, entry in environments.named_entries(environments.asv_config(conf)):
        described = {**environments.requirements_of(entry), "python": environments.python_of(entry)}
        if all(described.get(key, value) == value for key, value in wanted.items()):
            if missing := environments.setup_python_missing(described["python"]):
                raise Failed(f"cannot profile in {name}: Python {described['python']} environments skipped: {missing}")
            raw = copy.deepcopy(conf)
            # The copy lives elsewhere: its paths are made absolute, as asv read them beside the original.
            for key in ("env_dir", "results_dir", "html_dir", "benchmark_dir", "repo"):
                if (value := raw.get(key)) and not util.is_remote(value) and not Path(value).is_absolute():
                    raw[key] = str((config.parent / value).resolve())
            environments.restrict(raw, entry)
            path = out_dir / f"{name}.conf.json"
            util.write_atomic(path, json.dumps(raw, indent=2).encode())
            return ProfileEnv(name, path, Path(raw.get("env_dir", config.parent / "env")).parent / PROFILE_ENVS)
    raise Failed(f"no environment of {config} has {env_params}")


def module_of(filename: str) -> str:
    """A source file's module: equinox/_tree.py -> equinox._tree (site-packages, the standard library, the suite)."""
    path = Path(filename)
    parts = path.parts
    if "site-packages" in parts:
        relative = parts[parts.index("site-packages") + 1 :]
    elif path.is_relative_to(ROOT):
        relative = path.relative_to(ROOT).parts
    else:
        stdlib = [i for i, part in enumerate(parts) if re.fullmatch(r"python3\.\d+", part)]
        relative = parts[stdlib[-1] + 1 :] if stdlib else (path.name,)
    return re.sub(r"(\.__init__)?\.py$", "", ".".join(relative))


def definitions(node: ast.AST, prefix: str = "") -> Iterator[tuple[int, int, str]]:
    """(first line, last line, qualified name) of every function under ``node``, first lines counting decorators."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield min([child.lineno] + [d.lineno for d in child.decorator_list]), child.end_lineno, prefix + child.name
            yield from definitions(child, f"{prefix}{child.name}.<locals>.")
        else:
            yield from definitions(child, f"{prefix}{child.name}." if isinstance(child, ast.ClassDef) else prefix)


def key_of(filename: str, line: int, name: str, cache: dict) -> str:
    """Module and qualified name of the function that starts at ``line`` or the innermost one around it; ``cache``
    keeps each file's definitions."""
    if filename == "~":  # a C function: "<built-in method builtins.isinstance>", "<method 'append' of ...>"
        return re.sub(r"^<built-in (?:method|function) (.*)>$", r"\1", name)
    if filename not in cache:
        try:
            cache[filename] = list(definitions(ast.parse(Path(filename).read_text(encoding="utf-8"))))
        except (OSError, SyntaxError, ValueError):
            cache[filename] = []
    around = [d for d in cache[filename] if d[0] <= line <= d[1]]
    exact = next((d[2] for d in around if d[0] == line and d[2].rsplit(".", 1)[-1] == name), None)
    return f"{module_of(filename)}.{exact or (max(around)[2] + '.<locals>.' + name if around else name)}"


def merged(entries: Iterable[tuple]) -> dict[str, list[float]]:
    """{function: [calls, cumulative µs, own µs]} of (key, calls, cumulative, own) entries, summed per key without the
    memory addresses that C functions' names carry ("__new__ of type object at 0x7f…")."""
    summary = {}
    for key, *values in entries:
        stable = re.sub(r" at 0x[0-9a-f]+", "", key)
        summary[stable] = [a + b for a, b in zip(summary.get(stable, [0, 0.0, 0.0]), values, strict=True)]
    return summary


def summarize(profile: bytes) -> dict[str, list[float]]:
    """A cProfile dump summarized; the dump is its stats dict marshalled, as pstats.Stats reads it."""
    sources = {}
    return merged(
        (key_of(filename, line, name, sources), calls, cumulative * 1e6, own * 1e6)
        for (filename, line, name), (_primitive, calls, own, cumulative, _) in marshal.loads(profile).items()
    )


def cached_profile(cache_dir: Path, env_name: str, commit: str, profiled: str) -> Path:
    if profiled == PROFILED:
        return cache_dir / env_name / f"{commit}.json"
    return cache_dir / env_name / re.sub(r"[^\w.-]+", "_", profiled).strip("_") / f"{commit}.json"


def profile_commits(env: ProfileEnv, wanted: dict[str, set[str]], cache_dir: Path) -> None:
    """Profile in ``env`` what ``wanted`` ({commit: benchmarks}) names and the cache lacks: each commit installed once,
    each benchmark called in a fresh process."""
    for commit, names in wanted.items():
        if not (missing := [n for n in sorted(names) if not cached_profile(cache_dir, env.name, commit, n).is_file()]):
            continue
        sides.log(f"profiling {commit[:8]} in {env.name}: {', '.join(missing)}")
        benchmarks = sorted({split_entry(n)[0] for n in missing})
        failure = f"cannot install {commit[:8]} in {env.name} to profile it"
        with sides.installed(env.config, "profiled", commit, benchmarks, env.root, failure=failure) as side:
            with contextlib.closing(side):
                side.open()
                # The environment's files are this commit's until the next install: summarized at once.
                for name in missing:
                    benchmark, params = split_entry(name)
                    if benchmark not in side.benchmarks:
                        raise Failed(f"{benchmark} is not in the suite at {commit[:8]}, so it cannot be profiled")
                    if (index := sides.param_index(side.benchmarks[benchmark], params)) == -1:
                        raise Failed(f"{benchmark} has no params ({params}) in the suite, so it cannot be profiled")
                    summary = json.dumps(summarize(side.profile(benchmark, index)), indent=0, sort_keys=True)
                    util.write_atomic(cached_profile(cache_dir, env.name, commit, name), summary.encode())


def diff(before: dict, after: dict) -> list[FunctionChange]:
    rows = []
    for key in before.keys() | after.keys():
        b, a = before.get(key, [0, 0.0, 0.0]), after.get(key, [0, 0.0, 0.0])
        if int(b[0]) != int(a[0]):
            rows.append(FunctionChange(key, (int(b[0]), int(a[0])), (b[1], a[1])))
    rows.sort(key=lambda r: (-abs(r.cumulative_us[1] - r.cumulative_us[0]), -abs(r.calls[1] - r.calls[0]), r.function))
    return rows


@dataclass
class Explanation:
    env_name: str
    before: str
    after: str
    rows: list[FunctionChange]
    before_summary: dict
    after_summary: dict

    method = ""  # how it was found, when not as the report's section says (instructions.Explanation)

    def markdown(self, shown: int = SHOWN) -> list[str]:
        calls = [int(sum(entry[0] for entry in side.values())) for side in (self.before_summary, self.after_summary)]
        lines = [f"Function calls per update, all functions: {calls[0]:,} → {calls[1]:,}.", ""]
        if not self.rows:
            return lines + ["No function's number of calls changed."]
        if len(self.rows) > shown:
            lines[0] += f" {len(self.rows)} functions changed; the {shown} with the largest change of time:"
        table = markdown_table(
            ["function", "calls per update", "cumulative µs per update (cProfile)"],
            (
                [f"`{r.function}`", f"{r.calls[0]:,} → {r.calls[1]:,}"]
                + [f"{r.cumulative_us[0]:.0f} → {r.cumulative_us[1]:.0f}"]
                for r in self.rows[:shown]
            ),
        )
        return lines + table.splitlines()

    def sentence(self, per: str = "update", most: int = 3) -> str:
        """The largest changes in plain words, then a function that vanished and one that appeared with as many calls
        (a rename or a move); ``per`` names what was profiled once (an update, or a call of another operation)."""
        appeared, pairs = [r for r in self.rows if r.calls[0] == 0], []
        for gone in (r for r in self.rows if r.calls[1] == 0):
            if (new := next((r for r in appeared if r.calls[1] == gone.calls[0]), None)) is not None:
                appeared.remove(new)
                pairs.append((gone, new))
        moved = {id(r) for pair in pairs for r in pair}
        changed = [r for r in self.rows if id(r) not in moved]
        words = [f"`{r.function}`: {r.calls[0]:,} → {r.calls[1]:,} calls per {per}" for r in changed[:most]]
        words += [
            f"`{gone.function}` replaced by `{new.function}` ({gone.calls[0]:,} calls)"
            for gone, new in pairs[: max(1, most - len(words))]
        ]
        return "; ".join(words)


def explain(
    env: ProfileEnv, before: str, after: str, cache_dir: Path, cached_only=False, profiled=PROFILED
) -> Explanation | None:
    """One call of ``profiled`` profiled in ``env`` at ``before`` and at ``after``, compared; None when
    ``cached_only`` and not cached."""
    paths = [cached_profile(cache_dir, env.name, commit, profiled) for commit in (before, after)]
    if cached_only and not all(path.is_file() for path in paths):
        return None
    profile_commits(env, {before: {profiled}, after: {profiled}}, cache_dir)
    summaries = [merged((key, *values) for key, values in json.loads(path.read_text()).items()) for path in paths]
    return Explanation(env.name, before, after, diff(*summaries), *summaries)
