"""benchtools/judging/cost_fit.py: the cost fit, on synthetic releases (tests/test_explain.py tests the explanation)."""

import dataclasses

import pytest

from benchtools.judging import cost_fit
from tests.helpers import command, track_result


def releases(weight: float, scale: float, noise=()) -> list[cost_fit.Point]:
    """Three code versions whose time is exactly scale x (bytecodes + weight x calls), times (1 + noise)."""
    versions = [(240, 6920), (378, 11183), (396, 6023)]
    points = []
    for i, (calls, bytecodes) in enumerate(versions * 2):
        wobble = noise[i] if i < len(noise) else 0.0
        points.append(cost_fit.Point(f"v{i}", calls, bytecodes, scale * (bytecodes + weight * calls) * (1 + wobble)))
    return points


def test_the_fit_finds_the_weight_the_times_were_made_with():
    result = cost_fit.fit(releases(weight=16, scale=0.00163))
    assert result.best_weight == pytest.approx(16, rel=1e-6)
    assert result.best_error == pytest.approx(0, abs=1e-9)
    assert result.scale == pytest.approx(0.00163)
    assert len(result.versions) == 3 and all(abs(e) < 1e-9 for *_, e in result.versions)
    assert result.bytecodes_error > 0.05 and result.calls_error > 0.05  # neither count alone is the time
    at_its_weight = cost_fit.fit(releases(weight=16, scale=0.00163), weight=16)
    assert all(error == pytest.approx(0, abs=1e-9) for _, error in at_its_weight.points)


def test_two_code_versions_are_enough_to_fit():
    result = cost_fit.fit(releases(weight=16, scale=0.002)[:2], weight=16)
    assert result.best_weight == pytest.approx(16, rel=1e-6) and len(result.versions) == 2


def test_each_version_weighs_once_and_each_release_shows_its_error():
    # Two releases of one version, 4% apart: the version's time is their median, each release keeps its error.
    result = cost_fit.fit(releases(weight=16, scale=0.002, noise=[0.0, 0.0, 0.0, 0.04, 0.0, 0.0]), weight=16)
    errors = {point.label: error for point, error in result.points}
    assert (1 + errors["v0"]) / (1 + errors["v3"]) == pytest.approx(1.04)
    first = result.versions[0]
    assert first[0] == ["v0", "v3"] and first[3] == pytest.approx(0.002 * (6920 + 16 * 240) * 1.02)
    text = cost_fit.markdown(result, "jax 0.4.33")
    assert "With the weight in use, 16:" in text and "| v0 … v3 (2) | 240 | 6,920 | 10,760 |" in text


def test_one_code_version_is_too_few_to_fit():
    with pytest.raises(cost_fit.BadInput, match=r"^1 code version\(s\) with all three metrics: at least 2 are needed"):
        cost_fit.fit([cost_fit.Point("a", 1, 10, 1.0), cost_fit.Point("b", 1, 10, 1.1)])


def test_the_fit_s_page_shows_every_figure():
    point = cost_fit.Point("v1", 200, 6000, 15.0)
    result = cost_fit.Fit(
        weight=16,
        best_weight=15.96,
        best_error=0.0123,
        bytecodes_error=0.25,
        calls_error=0.5,
        scale=0.0012349,
        versions=[(["v1"], 200, 6000, 15.0, -0.02), (["v2", "v3", "v4"], 300, 7000.0, 12.5, 0.031)],
        points=[(point, -0.02)],
    )
    assert cost_fit.markdown(result, "jax 0.4.33") == (
        "## Cost fit: jax 0.4.33\n"
        "\n"
        "Best weight: bytecodes + **16.0** × calls, largest error over the 2 code versions 1.2% "
        "(bytecodes alone 25.0%, calls alone 50.0%).\n"
        "\n"
        "With the weight in use, 16: 1.23 tree_map passes per 1,000 weighted instructions; largest error 3.1% over "
        "the versions, 2.0% over the commits.\n"
        "\n"
        "| code version (commits) | calls | bytecodes | cost | tree_map passes (median) | error |\n"
        "|---|---|---|---|---|---|\n"
        "| v1 | 200 | 6,000 | 9,200 | 15.00 | -2.0% |\n"
        "| v2 … v4 (3) | 300 | 7,000 | 11,800 | 12.50 | +3.1% |\n"
        "\n"
        "| commit | tree_map passes | predicted | error |\n"
        "|---|---|---|---|\n"
        "| v1 | 15.00 | 14.70 | -2.0% |\n"
    )
    assert cost_fit.markdown(result).startswith("## Cost fit\n\nBest weight")
    two = dataclasses.replace(result, points=[(point, -0.02), (cost_fit.Point("v2", 300, 7000, 12.5), 0.005)])
    assert "largest error 3.1% over the versions, 2.0% over the commits." in cost_fit.markdown(two)


def test_fit_cost_reads_an_asv_results_folder(tmp_path):
    from tests.asv_sites import BENCHMARKS, BYTECODES, COUNT, PASSES, make_site

    points = releases(weight=16, scale=0.002)
    config = make_site(
        tmp_path,
        {
            COUNT: [[1, p.calls] for p in points],
            BYTECODES: [[1, p.bytecodes] for p in points],
            PASSES: [[p.passes] for p in points],
        },
    )
    assert config.exists() and BENCHMARKS[COUNT]["params"] == [["1", "4"]]
    done = command("fit-cost", "--results", tmp_path / "results", "--repo", tmp_path / "repo")
    assert done.returncode == 0, done.stderr
    assert "bytecodes + **16.0** × calls" in done.stdout and "| v5 |" in done.stdout


def test_the_weight_is_checked_on_each_module_operation_against_tree_at_s_own_scale(tmp_path):
    """tree_at: 12,000 weighted instructions in 18 passes.  Construction: cost 8,000, so 12 passes predicted;
    measured 10, the weight overstates it by 20%."""
    import json

    from asv import results

    from benchmarks import metrics

    def described(name, params, names, unit):
        return {"name": name, "params": params, "param_names": names, "unit": unit, "type": "track", "version": "1"}

    inits, grid = ["'default'", "'custom'"], [["'default'", "'custom'"], ["2", "8", "32"], ["1", "4", "16"]]
    construction = [8000 if (i, f, d) == (0, 0, 1) else None for i in range(2) for f in range(3) for d in range(3)]
    stored = {
        metrics.COST_TREE_AT: (described(metrics.COST_TREE_AT, [["1", "4", "16"]], ["depth"], "w"), [1, 12000, 1]),
        cost_fit.PASSES: (described(cost_fit.PASSES, [], [], "tree_map passes"), [18.0]),
        cost_fit.CALLS: (described(cost_fit.CALLS, [["1", "4", "16"]], ["depth"], "calls"), [1, 250, 1]),
        cost_fit.BYTECODES: (described(cost_fit.BYTECODES, [["1", "4", "16"]], ["depth"], "bytecodes"), [1, 8000, 1]),
        "bench_construct.ConstructionCost.track_module": (
            described("bench_construct.ConstructionCost.track_module", grid, ["init", "n_fields", "depth"], "w"),
            construction,
        ),
        "bench_construct.ConstructionInTreeMapPasses.track_module": (
            described("bench_construct.ConstructionInTreeMapPasses.track_module", [inits], ["init"], "passes"),
            [10.0, 7.0],
        ),
    }
    folder = tmp_path / "results"
    for machine, commit in [("m", "a"), ("other", "b")]:  # another machine's result is not read
        (folder / machine).mkdir(parents=True)
        (folder / machine / "machine.json").write_text(json.dumps({"machine": machine, "version": 1}))
        result = results.Results(
            {"machine": machine, "python": "3.11", "jax": "0.4.33"}, {"jax": "0.4.33"}, commit * 40, 1, "3.11", "e", {}
        )
        for benchmark, found in stored.values():
            result.add_result(benchmark, track_result(found))
        result.save(str(folder))
    (folder / "benchmarks.json").write_text(json.dumps({name: d for name, (d, _) in stored.items()} | {"version": 2}))
    (tmp_path / "repo").mkdir()
    points, by_env = cost_fit.read(folder, tmp_path / "repo", "m")
    assert points == {"Python 3.11, jax 0.4.33": [cost_fit.Point("aaaaaaaa", 250, 8000, 18.0)]}
    [(label, checks)] = by_env["Python 3.11, jax 0.4.33"]
    [check] = checks  # the custom __init__ has a time but no cost: not checked
    assert label == "aaaaaaaa" and check.label.startswith("construction, generated")
    assert check.predicted == pytest.approx(12.0) and check.error == pytest.approx(0.2)
    text = cost_fit.operations_markdown(by_env)
    assert "| 8,000 | 10.00 | 12.00 | +20% |" in text and "Largest error over the 1 commit(s): 20%" in text


def test_each_environment_s_operations_are_checked_on_its_last_commit_with_the_worst_named():
    check = cost_fit.OperationCheck
    by_env = {
        "jax 0.4.33": [("v1", [check("flatten", 900, 2.0, 2.6)]), ("v2", [check("flatten", 1000, 2.0, 2.2)])],
        "jax 0.5.0": [("v3", [check("unflatten", 2000, 4.0, 3.0)])],
    }
    assert cost_fit.operations_markdown(by_env) == (
        "## The weight on the Module's operations\n"
        "\n"
        "Each operation's time (tree_map passes, one run) against its cost × tree_at's passes per weighted "
        "instruction in the same result, CALL_WEIGHT = 16:\n"
        "\n"
        "### jax 0.4.33, v2\n"
        "\n"
        "| operation | cost | tree_map passes | predicted | error |\n"
        "|---|---|---|---|---|\n"
        "| flatten | 1,000 | 2.00 | 2.20 | +10% |\n"
        "\n"
        "Largest error over the 2 commit(s): 30% (flatten, v1).\n"
        "\n"
        "### jax 0.5.0, v3\n"
        "\n"
        "| operation | cost | tree_map passes | predicted | error |\n"
        "|---|---|---|---|---|\n"
        "| unflatten | 2,000 | 4.00 | 3.00 | -25% |\n"
        "\n"
        "Largest error over the 1 commit(s): 25% (unflatten, v3).\n"
    )


def test_a_missing_results_folder_is_named(tmp_path):
    with pytest.raises(cost_fit.BadInput, match=f"^no results directory at {tmp_path / 'nope'}$"):
        cost_fit.read(tmp_path / "nope", tmp_path)
