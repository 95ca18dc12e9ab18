"""Values read from asv results: one benchmark's values and spreads by parameter combination."""

import itertools

from ..errors import BadInput


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
