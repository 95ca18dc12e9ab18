"""Values read from asv results: one benchmark's values and spreads by parameter combination."""

import itertools
from pathlib import Path, PurePath

from ..errors import BadInput
from . import publishable


def values(result, key):
    """{param tuple: value} of one benchmark, with parameters as plain strings; NaN and None as None."""
    if key not in result.get_all_result_keys():
        return {}
    params = result.get_result_params(key)
    combos = itertools.product(*[[p.strip("'") for p in dim] for dim in params])
    return {
        combo: (None if value is None or value != value else value)
        for combo, value in zip(combos, result.get_result_value(key, params), strict=False)
    }


def stat_pairs(result, key, low: str, high: str, scale: float = 1.0):
    """{param tuple: (stats[low], stats[high]) * scale} from asv's stats of a time benchmark; missing ones left out.

    asv keeps stats only for time benchmarks, from their samples; a track benchmark's value has none.
    """
    if key not in result.get_all_result_keys():
        return {}
    params = result.get_result_params(key)
    combos = itertools.product(*[[p.strip("'") for p in dim] for dim in params])
    return {
        combo: (stats[low] * scale, stats[high] * scale)
        for combo, stats in zip(combos, result.get_result_stats(key, params), strict=False)
        if stats and stats.get(low) is not None and stats.get(high) is not None
    }


def spreads(result, key, scale: float = 1.0):
    """{param tuple: (q_25, q_75) * scale}: the interquartile range of the run's samples (``stat_pairs``)."""
    return stat_pairs(result, key, "q_25", "q_75", scale)


def confidence_intervals(result, key, scale: float = 1.0):
    """{param tuple: (ci_99_a, ci_99_b) * scale}: asv's 99% confidence interval of the median (``stat_pairs``)."""
    return stat_pairs(result, key, "ci_99_a", "ci_99_b", scale)


def entries(result) -> dict[tuple[str, str], float | None]:
    """{(benchmark, its params as asv names them, a tuple such as ("'jit'", "4")): value} of one result's
    every benchmark; NaN and None as None."""
    found = {}
    for key in result.get_all_result_keys():
        params = result.get_result_params(key)
        value = result.get_result_value(key, params)
        for combo, one in zip(itertools.product(*params), value if isinstance(value, list) else [value], strict=False):
            found[key, combo] = None if one is None or one != one else one
    return found


def only(mapping):
    """The one value of a benchmark without parameters (``values``), or None when it has none; BadInput naming
    the parameter combinations when it has several (a benchmark with parameters, read as if it had none)."""
    if len(mapping) > 1:
        raise BadInput(
            f"one value expected, of a benchmark without parameters; found {len(mapping)}: {sorted(mapping)}"
        )
    return next(iter(mapping.values()), None)


def failed_benchmarks(result) -> list[str]:
    """The benchmarks of one asv result that failed: asv stored no value (None) for any of their params."""
    failed = []
    for key in sorted(result.get_all_result_keys()):
        found = result.get_result_value(key, result.get_result_params(key))
        if all(value is None for value in (found if isinstance(found, list) else [found])):
            failed.append(key)
    return failed


def spans(results_dir, machine: str | None = None) -> list[tuple[str, str, float, float]]:
    """(commit, environment, first benchmark's start, last benchmark's end) of each stored result, in seconds
    since the epoch, from asv's own stamps, earliest first."""
    from asv import results as asv_results

    found = []
    for result in asv_results.iter_results(str(results_dir)):
        if machine is not None and result.params.get("machine") != machine:
            continue
        started = result.started_at
        if not started:
            continue
        ends = [started[key] / 1000 + (result.duration.get(key) or 0) for key in started]
        found.append((result.commit_hash, result.env_name, min(started.values()) / 1000, max(ends)))
    return sorted(found, key=lambda span: span[2])


def stored(results_dir, machine: str | None = None) -> list:
    """Every asv result stored in ``results_dir`` (of ``machine`` only, when named), oldest first."""
    from asv import results as asv_results

    found = [r for r in asv_results.iter_results(str(results_dir)) if machine in (None, r.params.get("machine"))]
    return sorted(found, key=lambda r: r.date or 0)


def of_commit(results_dir: Path, machine: str, commit: str) -> list:
    """The asv results of one commit on ``machine``, each file checked as publishable.stored_file checks it;
    BadInput for a corrupt file."""
    from asv import results as asv_results

    found = []
    folder = results_dir / machine
    for path in sorted(folder.glob(f"{commit[:8]}-*.json")):
        try:
            publishable.stored_file(path, PurePath(machine, path.name))
            result = asv_results.Results.load(str(path), machine)
        except BadInput:
            raise
        except Exception as error:  # noqa: BLE001 - any unreadable results file is bad input
            raise BadInput(f"results file is corrupt: {path} ({error})") from None
        # The name holds 8 hex digits of the hash, the file the whole: another commit's file shares a prefix.
        if result.commit_hash == commit:
            found.append(result)
    return found


def human_value(value: float, unit: str) -> str:
    """A value in asv's words: "1.23ms", "4.5k" bytes (asv.util.human_value)."""
    from asv import util

    return util.human_value(value, unit)


def detect_steps(values: list) -> list[tuple]:
    """asv's step detection over a series (asv.step_detect.detect_steps, what asv publish runs for
    regressions.json): (left, right, level, min, error) of each constant piece."""
    from asv import step_detect

    return step_detect.detect_steps(values)
