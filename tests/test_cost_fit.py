"""benchtools/judging/cost_fit.py: the cost fit, on synthetic releases (tests/test_explain.py tests the explanation)."""

import pytest

from benchtools.judging import cost_fit
from tests.helpers import command


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
    with pytest.raises(cost_fit.BadInput):
        cost_fit.fit([cost_fit.Point("a", 1, 10, 1.0), cost_fit.Point("b", 1, 10, 1.1)])


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
