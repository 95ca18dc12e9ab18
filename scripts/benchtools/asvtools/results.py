"""Values read from asv results: one benchmark's values and spreads by parameter combination."""

import itertools
import json
import math
from pathlib import Path, PurePath

from ..errors import BadInput
from . import publishable


def combinations(result, key, *, plain: bool = True) -> list[tuple[tuple, float | None, dict | None]]:
    """(params, value, stats) of each combination of one benchmark's params: plain ("jit"), or asv's ("'jit'")."""
    if key not in result.get_all_result_keys():
        return []
    params = result.get_result_params(key)
    combos = itertools.product(*([p.strip("'") for p in dim] if plain else dim for dim in params))
    return list(zip(combos, result.get_result_value(key, params), result.get_result_stats(key, params), strict=True))


def _known(value) -> float | None:
    return None if value is None or math.isnan(value) else value


def values(result, key) -> dict[tuple, float | None]:
    return {combo: _known(value) for combo, value, _ in combinations(result, key)}


def stat_pairs(result, key, low: str, high: str, scale: float = 1.0):
    """{param tuple: (stats[low], stats[high]) * scale}, as ("q_25", "q_75"): asv keeps them for times only."""
    return {
        combo: (stats[low] * scale, stats[high] * scale)
        for combo, _, stats in combinations(result, key)
        if stats and stats.get(low) is not None and stats.get(high) is not None
    }


def entries(result) -> dict[tuple[str, tuple], float | None]:
    """{(benchmark, its params as asv names them): value} of one result's every benchmark; NaN as None."""
    return {
        (key, combo): _known(value)
        for key in result.get_all_result_keys()
        for combo, value, _ in combinations(result, key, plain=False)
    }


def only(mapping):
    """The one value of a benchmark without parameters (``values``), or None; BadInput where it has several."""
    if len(mapping) > 1:
        raise BadInput(
            f"one value expected, of a benchmark without parameters; found {len(mapping)}: {sorted(mapping)}"
        )
    return next(iter(mapping.values()), None)


def failed_benchmarks(result) -> list[str]:
    return [
        key
        for key in sorted(result.get_all_result_keys())
        if all(value is None for _, value, _ in combinations(result, key))
    ]


def spans(results_dir, machine: str | None = None) -> list[tuple[str, str, float, float]]:
    """(commit, environment, start, end) of each stored result, in epoch seconds, earliest first."""
    found = []
    for result in stored(results_dir, machine):
        if started := result.started_at:
            ends = [started[key] / 1000 + (result.duration.get(key) or 0) for key in started]
            found.append((result.commit_hash, result.env_name, min(started.values()) / 1000, max(ends)))
    return sorted(found, key=lambda span: span[2])


def stored(results_dir, machine: str | None = None) -> list:
    """Oldest first."""
    from asv import results as asv_results

    found = [r for r in asv_results.iter_results(str(results_dir)) if machine in (None, r.params.get("machine"))]
    return sorted(found, key=lambda r: r.date or 0)


def load_file(path: Path, machine: str | None = None):
    """One results file under MACHINE (by default the machine it names)."""
    from asv import results as asv_results

    return asv_results.Results.load(str(path), machine or json.loads(path.read_text())["params"]["machine"])


def of_commit(results_dir: Path, machine: str, commit: str) -> list:
    """The asv results of one commit on ``machine``, each file checked as publishable.stored_file checks it."""
    found = []
    for path in sorted((results_dir / machine).glob(f"{commit[:8]}-*.json")):
        publishable.stored_file(path, PurePath(machine, path.name))
        result = load_file(path, machine)
        if result.commit_hash == commit:  # another commit's file may share the name's 8 digits
            found.append(result)
    return found


def human_value(value: float, unit: str) -> str:
    """A value in asv's words: "1.23ms", "4.5k" bytes."""
    from asv import util

    return util.human_value(value, unit)


def detect_steps(values: list) -> list[tuple]:
    """asv's step detection over a series, as publish runs it: (left, right, level, min, error) of each piece."""
    from asv import step_detect

    return step_detect.detect_steps(values)
