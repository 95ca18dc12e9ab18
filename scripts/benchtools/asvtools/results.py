"""Values read from asv results: one benchmark's values and spreads by parameter combination."""

import itertools


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


def spreads(result, key, scale: float = 1.0):
    """{param tuple: (q_25, q_75) * scale} from asv's stats of a time benchmark; missing ones left out."""
    if key not in result.get_all_result_keys():
        return {}
    params = result.get_result_params(key)
    combos = itertools.product(*[[p.strip("'") for p in dim] for dim in params])
    return {
        combo: (stats["q_25"] * scale, stats["q_75"] * scale)
        for combo, stats in zip(combos, result.get_result_stats(key, params), strict=False)
        if stats and stats.get("q_25") is not None and stats.get("q_75") is not None
    }


def only(mapping):
    """The one value of a benchmark without parameters (``values``), or None."""
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
