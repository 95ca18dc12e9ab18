"""publishing/rows.py, blocks.py, plots.py and page.py: the overhead report never shows a timing bare (each
comes with its interval), leads with the exact metrics, and with the newest Python and JAX."""

import itertools

import pytest
from asv import results, runner

from benchmarks import metrics, params
from benchtools.judging import explain
from benchtools.publishing import blocks
from benchtools.publishing import plots as report_plots
from benchtools.publishing import rows as report_rows
from benchtools.publishing.operation_history import TREE_AT, OperationStep
from tests.helpers import command, markdown_rows, numbers, track_result


def test_a_timed_benchmark_carries_its_threshold_either_side_as_the_interval_of_one_run():
    result = results.Results(
        {"machine": "m", "python": "3.11", "jax": "0.4.33"}, {"jax": "0.4.33"}, "0" * 40, 0, "3.11", "env", {}
    )
    benchmark = {"name": explain.PROFILED, "params": [], "param_names": [], "unit": "seconds", "type": "time"}
    samples = [[2e-4 * f for f in (0.8, 0.9, 1.0, 1.1, 1.2)]]
    result.add_result(
        {**benchmark, "version": "1"},
        runner.BenchmarkResult(result=[True], samples=samples, number=[1], errcode=0, stderr="", profile=None),
    )
    # The interval a second run's figure can be expected in: the threshold of an absolute time
    # (benchmarks/metrics.py) either side, wider here than asv's 99% confidence interval.
    grown = 1 + metrics.threshold(explain.PROFILED)
    interval = report_rows.row_of(result, "v1").timings[explain.PROFILED, ""]
    assert (interval.value, interval.low, interval.high, interval.source) == pytest.approx(
        (2e-4, 2e-4 / grown, 2e-4 * grown, report_rows.ONE_RUN)
    )


def test_the_overhead_report_leads_with_the_newest_python_and_jax(tmp_path):
    """One commit in three environments: Python 3.13 with JAX 0.12.0.1 comes first, then the older JAX."""
    import json

    from asv import results, runner

    ratio = "bench_overhead.TracingRatio.track_overhead_ratio"
    benchmark = {
        "name": ratio,
        "params": [],
        "param_names": [],
        "unit": "ratio",
        "type": "track",
        "version": "1",
    }
    folder = tmp_path / "results"
    (folder / "m").mkdir(parents=True)
    (folder / "m" / "machine.json").write_text(json.dumps({"machine": "m", "version": 1}))
    (folder / "benchmarks.json").write_text(json.dumps({ratio: benchmark, "version": 2}))
    for python, jax in [("3.11", "0.4.33"), ("3.11", "0.10.2"), ("3.13", "0.12.0.1")]:
        result = results.Results(
            {"machine": "m", "python": python, "jax": jax, "jaxlib": jax},
            {"jax": jax, "jaxlib": jax},
            "a" * 40,
            1_767_225_600_000,
            python,
            f"virtualenv-py{python}-jax{jax}-jaxlib{jax}",
            {},
        )
        result.add_result(
            benchmark,
            runner.BenchmarkResult(result=[1.5], samples=[[1.5]], number=[1], errcode=0, stderr="", profile=None),
        )
        result.save(str(folder))
    printed = command("overhead-report", "--results", folder, "--repo", tmp_path)
    assert printed.returncode == 0, printed.stderr
    envs = [
        f"Python {p}, jax {j}, jaxlib {j}" for p, j in [("3.13", "0.12.0.1"), ("3.11", "0.10.2"), ("3.11", "0.4.33")]
    ]
    # It prints the answer's Markdown: the exact costs' table and the steady one, an environment a row, newest first.
    printed_rows = [line.split("|")[1].strip() for line in printed.stdout.splitlines() if line.startswith("| aaaa")]
    assert printed_rows == [f"aaaaaaaa, {env}" for env in envs] * 2
    # --readme writes each block a file holds: the summary, one row per environment, in the same order.
    readme = tmp_path / "README.md"
    readme.write_text(
        "# Title\n\n<!-- overhead-summary:start -->\n<!-- overhead-summary:end -->\n\n"
        "<!-- operation-history:start -->\n<!-- operation-history:end -->\n\ntext\n"
    )
    written = command("overhead-report", "--results", folder, "--repo", tmp_path, "--readme", readme)
    assert written.returncode == 0, written.stderr
    text = readme.read_text()
    assert text.startswith("# Title\n") and text.endswith("\ntext\n")
    summary = [line for line in text.splitlines() if line.startswith("| aaaaaaaa")]
    assert [line.split("|")[1].strip() for line in summary] == [f"aaaaaaaa, {env}" for env in envs]
    # One commit has no history: the history's block is left as it was, for another results folder to write.
    assert "<!-- operation-history:start -->\n<!-- operation-history:end -->" in text


def test_a_generated_block_is_rewritten_in_place_and_a_file_without_one_is_left_alone(tmp_path):
    from benchtools.errors import BadInput
    from benchtools.publishing import generated

    page = tmp_path / "page.md"
    page.write_text("# Page\n\n<!-- a:start -->\nold\n<!-- a:end -->\n\nkept\n")
    assert generated.write_blocks(page, {"a": "new", "b": lambda: pytest.fail("b is not in the page")}) == ["a"]
    assert page.read_text() == "# Page\n\n<!-- a:start -->\n\nnew\n\n<!-- a:end -->\n\nkept\n"
    bare = tmp_path / "bare.md"
    bare.write_text("no block\n")
    with pytest.raises(BadInput, match="a:start"):
        generated.write_blocks(bare, {"a": "new"})
    assert bare.read_text() == "no block\n"


def module_operations_result(with_operations: bool):
    """One result holding the Module operations' benchmarks: the real costs, measured here, and times
    chosen by the test (each twin's cost / 1000), so that the table's placement can be checked."""
    import itertools

    from benchmarks import bench_access, bench_construct, bench_flatten, bench_update

    result = results.Results(
        {"machine": "m", "python": "3.11", "jax": "0.4.33"}, {"jax": "0.4.33"}, "0" * 40, 0, "3.11", "env", {}
    )
    classes = (bench_construct, "Construction"), (bench_update, "Update"), (bench_access, "Access")
    classes += ((bench_flatten, "Flatten"),)
    costs = {}
    for module, stem in classes if with_operations else ():
        for cls, kind in (
            (getattr(module, f"{stem}Cost"), "cost"),
            (getattr(module, f"{stem}InTreeMapPasses"), "time"),
        ):
            grid = list(itertools.product(*getattr(cls, "params", [])))
            for method in (name for name in dir(cls) if name.startswith("track_")):
                name = f"{module.__name__.split('.')[-1]}.{cls.__name__}.{method}"
                found = []
                for values in grid:
                    if kind == "time":
                        found.append(len(name) + len(values))  # the test's own value per benchmark and params
                        continue
                    benchmark = cls()
                    try:
                        benchmark.setup(*values)
                    except NotImplementedError:
                        found.append(None)
                        continue
                    found.append(getattr(benchmark, method)(*values))
                    costs[name, tuple(str(v) for v in values)] = found[-1]
                described = {
                    "name": name,
                    "params": [[repr(v) for v in dim] for dim in getattr(cls, "params", [])],
                    "param_names": list(getattr(cls, "param_names", [])),
                    "unit": cls.unit,
                    "type": "track",
                    "version": "1",
                }
                result.add_result(
                    described,
                    track_result(found),
                )
    return result, costs


def test_each_module_operation_is_shown_beside_its_tuple_twin_with_its_exact_cost():
    from benchtools.asvtools import operations

    result, costs = module_operations_result(with_operations=True)
    row = report_rows.row_of(result, "v1")
    assert list(row.operations) == [operation.label for operation in operations.OPERATIONS]
    construction = costs["bench_construct.ConstructionCost.track_module", ("default", "2", "4")]
    tuple_construction = costs["bench_construct.ConstructionCost.track_tuple", ("default", "2", "4")]
    assert row.operations["construction, generated `__init__`"][:2] == (construction, tuple_construction)
    replace = costs["bench_update.UpdateCost.track_update", ("replace", "default", "4")]
    # The times are the test's values: each benchmark's own, at its own params.
    passes = len("bench_update.UpdateInTreeMapPasses.track_update") + 1
    update = row.operations["update one field: `dataclasses.replace`"]
    assert (update[0], *update[2:]) == (replace, passes, passes)


ENVS = ["Python 3.11, jax 0.4.33", "Python 3.11, jax 0.10.2", "Python 3.13, jax 0.12.0.1"]


def described(name: str, params: list[list], unit: str, kind: str = "track") -> dict:
    return {
        "name": name,
        "params": [[repr(v) for v in dim] for dim in params],
        "param_names": [f"p{i}" for i in range(len(params))],
        "unit": unit,
        "type": kind,
        "version": "1",
    }


def noisy_release(commit: str, rng) -> results.Results:
    """One release of code identical to the others' and the same exact cost, its timings drawn with noise
    that single runs show on unchanged code: two releases'
    tracing ratios apart by up to 44% (their threshold is 50%), their tree_map passes by up to 9% (10%), the answer's
    × by up to 4%, within its processes' interval."""
    from benchmarks import params

    result = results.Results(
        {"machine": "m", "python": "3.11", "jax": "0.4.33"}, {"jax": "0.4.33"}, commit, 0, "3.11", "env", {}
    )
    # The answer's × per wrapping: a median over fresh processes, moving by 2%, within the processes' interval.
    answer = []
    for ratio in (5.5, 1.2, 1.04, 1.05, 1.3):
        median = ratio * rng.uniform(0.98, 1.02)
        answer += [median, median * 0.95, median * 1.05]
    result.add_result(
        described(report_rows.RATIO_BENCHMARK, [params.WRAPPINGS, params.STATISTICS], "ratio"), track_result(answer)
    )
    result.add_result(
        described(report_rows.ANSWER_PROVENANCE, [params.PROVENANCE], "count"), track_result([3, 0.5, 0.5, 80])
    )
    result.add_result(
        described(report_rows.TRACING_BENCHMARK, [], "ratio"), track_result([2.1 * rng.uniform(1 / 1.2, 1.2)])
    )
    result.add_result(
        described(metrics.PASSES_TREE_AT, [], "tree_map passes"), track_result([20.0 * rng.uniform(0.956, 1.045)])
    )
    result.add_result(
        described(metrics.COST_TREE_AT, [list(params.DEPTHS)], "weighted instructions"),
        track_result([3000, 12000, 48000]),
    )
    return result


def drawn_figures(monkeypatch):
    """The matplotlib figures that the report closes, drawn, kept for the test to inspect."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    drawn = []
    monkeypatch.setattr(plt, "close", lambda fig: (drawn.append(fig), fig.canvas.draw()))
    return drawn


def drawn_intervals(ax) -> list[tuple[str, list[tuple[float, float, float]]]]:
    """Each series of a panel's legend with its (value, low, high) per point, read from the figure: a series
    drawn without error bars has no lows and highs, and fails the unpacking."""
    from matplotlib.container import ErrorbarContainer

    found = []
    for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
        assert isinstance(handle, ErrorbarContainer) and handle.has_yerr, f"{label}: drawn without its interval"
        data_line, _caps, (bars,) = handle
        bounds = [(segment[0][1], segment[1][1]) for segment in bars.get_segments()]
        values = list(data_line.get_ydata())
        assert len(bounds) == len(values), label
        found.append((label, [(v, min(b), max(b)) for v, b in zip(values, bounds, strict=True)]))
    return found


def test_three_identical_releases_with_noisy_samples_show_no_change_outside_the_drawn_intervals(tmp_path, monkeypatch):
    import random

    rng = random.Random(31)
    rows = []
    for number in range(3):
        for env in ENVS:
            row = report_rows.row_of(noisy_release(f"{number:040x}", rng), f"v0.13.{6 + number}")
            row.env = env
            rows.append(row)
    drawn = drawn_figures(monkeypatch)
    plots = report_plots.plot(rows, tmp_path)
    history = report_plots.plot_history(rows, report_rows.history(rows, report_rows.investigate(rows, None)), tmp_path)
    assert [p.name for p in plots] == list(report_plots.TIMING_PLOTS)
    assert len(drawn) == len(plots) + len(history) == len(plots) + len(ENVS)
    for image in [*plots, *history]:
        assert image.timing_series > 0 and image.with_interval == image.timing_series, image
    timing_axes = [ax for fig in drawn[: len(plots)] for ax in fig.get_axes()]
    # The history's plot: tree_at's exact cost, and its time on the twin axis (the one with a right-hand scale).
    timing_axes += [
        ax for fig in drawn[len(plots) :] for ax in fig.get_axes() if ax.yaxis.get_label_position() == "right"
    ]
    assert len(timing_axes) == len(plots) * len(ENVS) + len(ENVS)
    for ax in timing_axes:
        low, high = ax.get_ylim()
        series = drawn_intervals(ax)
        assert series, ax.get_title(loc="left")
        for label, points in series:
            assert len(points) == 3, label  # one point per release
            # The axis spans every interval: the noise never fills the panel beyond its bars.
            assert low <= min(p[1] for p in points) and high >= max(p[2] for p in points), (label, low, high)
            # Identical code: each release's figure lies within every other release's interval.
            for value, _, _ in points:
                assert all(p_low <= value <= p_high for _, p_low, p_high in points), (label, points)
    # The ratios of twins: a log axis from 1, where there is no overhead.
    for name, fig in zip(report_plots.TIMING_PLOTS, drawn, strict=False):
        for ax in fig.get_axes():
            assert ax.get_yscale() == "log", name
            assert name not in report_plots.RATIO_PLOTS or ax.get_ylim()[0] <= 1.0, name
    # Every series says where its interval comes from in its legend: the answer's, from its fresh processes.
    ratio_labels = [label for ax in drawn[0].get_axes() for label in ax.get_legend_handles_labels()[1]]
    assert ratio_labels and all("3 fresh processes" in label for label in ratio_labels)


def test_the_plots_give_each_environment_its_panel_with_the_legend_outside_the_data(tmp_path, monkeypatch):
    import random

    import matplotlib.image

    rng = random.Random(1)
    rows = []
    for release, env in itertools.product(("v1", "v2", "v3"), ENVS):
        row = report_rows.row_of(noisy_release(f"{release:0>40}", rng), release)
        row.env = env
        rows.append(row)
    drawn = drawn_figures(monkeypatch)
    plots = report_plots.plot(rows, tmp_path)
    assert [p.panels for p in plots] == [len(ENVS)] * len(report_plots.TIMING_PLOTS)
    for image in plots:
        width, height = matplotlib.image.imread(tmp_path / image.name).shape[1::-1]
        assert width >= report_plots.MIN_PANEL_PX[0] and height / image.panels >= report_plots.MIN_PANEL_PX[1]
    for fig in drawn:
        axes = fig.get_axes()
        assert [ax.get_title(loc="left") for ax in axes] == sorted(ENVS)
        for ax in axes:
            legend = ax.get_legend()
            if legend is None:
                continue
            data, box = ax.get_window_extent(), legend.get_window_extent()
            assert box.x0 >= data.x1, "the legend overlaps the data"
    assert len(drawn) == len(report_plots.TIMING_PLOTS)


def test_the_summary_gives_each_module_operation_s_exact_cost_over_the_tuple_s():
    result, costs = module_operations_result(with_operations=True)
    table = markdown_rows(blocks.summary_markdown([report_rows.row_of(result, "v1")]))
    access = costs["bench_access.AccessCost.track_module", ("4",)]
    tuple_access = costs["bench_access.AccessCost.track_tuple", ("4",)]
    assert numbers(table["attribute access"][1]) == [access, round(access / tuple_access)]
    assert sum(label.startswith("update one field: ") for label in table) == 3
    before, _ = module_operations_result(with_operations=False)
    assert "Module operation" not in blocks.summary_markdown([report_rows.row_of(before, "v0")])


def test_a_time_that_disagrees_with_its_cost_is_never_called_noise_without_evidence():
    """A step not measured side by side states no time at all: its runs' single samples are no evidence."""
    from benchtools.publishing import operation_markdown

    before, after = report_rows.CommitFigures("v0.12.1", "env"), report_rows.CommitFigures("v0.12.2", "env")
    before.tree_map_passes, after.tree_map_passes = (29.6, None), (40.8, None)
    step = OperationStep(TREE_AT, "env", before, after, (17231, 13491))
    assert operation_markdown.agreement(step) is None
    cell = operation_markdown.time_cell(step)
    assert cell == "not measured side by side (scripts/overhead-report --confirm-steps)" and "40.8" not in cell


def test_a_step_s_time_measured_side_by_side_replaces_the_single_samples(monkeypatch, tmp_path):
    from benchtools.judging import confirm, explain, pairs
    from benchtools.publishing import operation_history, operation_markdown

    env = "Python 3.11, jax 0.4.33"
    rows = []
    for i, (label, cost, passes) in enumerate([("v0.12.1", 17231, 29.6), ("v0.12.2", 13491, 40.8)]):
        row = report_rows.CommitFigures(label, env, commit="ba"[i] * 40)
        row.cost, row.tree_map_passes = cost, (passes, 0.05)
        rows.append(row)
    asked = []

    def measured(config, conf, changes, max_pairs, measured):
        asked.extend((c.benchmark, c.params, c.good, c.bad, c.env, c.before, c.after, max_pairs) for c in changes)
        found = [
            confirm.Confirmation(c, pairs.SLOWER, pairs.Interval(-0.19, -0.23, -0.15, 22, 0.05, 0.995), 1.0)
            for c in changes
        ]
        for confirmation in found:
            measured(confirmation)
        return found

    monkeypatch.setattr(confirm, "confirmations", measured)
    monkeypatch.setattr(explain, "explain", lambda *args, **kwargs: None)  # no profile cached
    monkeypatch.setattr(explain, "env_config", lambda config, conf, env_params, cache: ("env", config))
    (tmp_path / "conf.json").write_text("{}")
    by_operation = report_rows.investigate(rows, tmp_path / "conf.json", confirm_pairs=22)
    found = report_rows.history(rows, by_operation)
    # tree_at's step is measured once, for its operation's history and for the tree_at history alike.
    assert asked == [(metrics.PASSES_TREE_AT, "", "b" * 40, "a" * 40, env, 29.6, 40.8, 22)]
    [faster] = found[env]
    [operation_step] = by_operation[operation_history.TREE_AT]
    assert faster.measured is operation_step.measured
    cell = operation_markdown.time_cell(faster)
    assert (faster.measured.estimate, faster.measured.low, faster.measured.high) == (-0.19, -0.23, -0.15)
    assert all(figure in cell for figure in ("22 pairs", "-19.0%", "-23.0%", "-15.0%"))
    assert "contradicts" not in cell and "40.8" not in cell
    assert operation_markdown.agreement(operation_step) == operation_markdown.AS_COST
    # Kept: a rerun measures nothing.
    monkeypatch.setattr(confirm, "confirmations", lambda *args: pytest.fail("measured again"))
    [again] = report_rows.investigate(rows, tmp_path / "conf.json", confirm_pairs=22)[operation_history.TREE_AT]
    assert again.measured == operation_step.measured and again.measured_load == operation_step.measured_load
    slower = OperationStep(TREE_AT, env, rows[1], rows[0], (13491, 16499))
    slower.measured = pairs.Interval(0.12, 0.02, 0.2, 32, 0.1, 0.995)
    assert "contradicts" not in operation_markdown.time_cell(slower)  # +2% to +20%: slower, as the cost says
    faster.measured = operation_step.measured = pairs.Interval(0.3, 0.2, 0.4, 32, 0.1, 0.995)
    assert "**contradicts** the cost's -21.7%" in operation_markdown.time_cell(faster)
    assert operation_markdown.agreement(operation_step) == operation_markdown.CONTRADICTS


def test_the_operations_plot_gives_each_operation_a_panel_and_marks_each_step_with_its_commit(tmp_path):
    import matplotlib.image

    from benchtools.asvtools import operations
    from benchtools.publishing import operation_history

    construction, access = operations.OPERATIONS[0].label, "attribute access"
    rows = []
    for i, (built, read) in enumerate([(11340, 64), (8640, 64), (8640, 1069)]):
        row = report_rows.CommitFigures(f"c{i}", "Python 3.11, jax 0.4.33", commit=f"{i:040x}")
        row.operations = {construction: (built, 174, None, None), access: (read, 67, None, None)}
        rows.append(row)
    [image] = report_plots.plot_operations(rows, operation_history.operation_steps(rows), tmp_path)
    assert image.panels == 2
    width, height = matplotlib.image.imread(tmp_path / image.name).shape[1::-1]
    assert width >= report_plots.MIN_PANEL_PX[0] and height / image.panels >= report_plots.MIN_PANEL_PX[1]
    assert (
        report_plots.plot_operations(rows[:1], operation_history.operation_steps(rows[:1]), tmp_path / "none") == []
    )  # one commit: no history to draw


def test_commits_are_ordered_as_asv_orders_them_parents_first_whatever_their_dates(tmp_path):
    import os
    import subprocess

    from benchtools import git

    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    hashes = []
    for date in ("2024-01-02T00:00:00", "2024-01-01T00:00:00"):  # the child is dated before its parent (a rebase)
        env = {**os.environ, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date}
        commit = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q"]
        subprocess.run([*commit, "--allow-empty", "-m", date], check=True, env=env)
        hashes.append(git.out("rev-parse", "HEAD", repo=repo).strip())
    order = git.topological_order(repo)
    assert order[hashes[0]] < order[hashes[1]]
    assert git.commit_subjects(repo)[hashes[1]][1] < git.commit_subjects(repo)[hashes[0]][1]


def one_run(value: float) -> report_rows.Interval:
    return report_rows.Interval(value, value / 2, value * 2, report_rows.ONE_RUN)


def answer_row(on: str = "tpu-TPU-v5-lite") -> report_rows.CommitFigures:
    """A row whose answer was taken on a stand-in device by three fresh processes: each figure at its median and its
    range's ends, as bench_answer hands them to asv."""
    row = report_rows.CommitFigures("v0.13.8", f"Python 3.11, device {on}, jax 0.10.2")
    row.env_params = {"python": "3.11", "device": on, "jax": "0.10.2", "runner": "asv-0.6.6-asv_runner-0.3.2"}

    def taken(benchmark: str, at: str, tuple_seconds: float, ratio: float) -> None:
        for side, value in (("tuple", tuple_seconds), ("ratio", ratio), ("tree_at", tuple_seconds * ratio)):
            for statistic, factor in zip(params.STATISTICS, (1.0, 0.9, 1.2), strict=True):
                row.timings[benchmark + side, f"{at}, {statistic!r}"] = one_run(value * factor)

    taken(report_rows.ANSWER_STEP, "'eager'", 40e-6, 11.5)
    taken(report_rows.ANSWER_STEP, "'jit'", 20e-6, 1.5)
    taken(report_rows.ANSWER_STEP, "'jit_scan'", 100e-6, 2.0)  # a scan of 100 steps: 1 µs a step
    taken(report_rows.ANSWER_DISPATCH, "'jit'", 10e-6, 4.0)
    # The sweep: under jit the ratio dips below 1.05 at 10**4, rises again, and is below at 10**6, the largest.
    for size, ratio in zip(params.SWEEP_SIZES, [1.9, 1.8, 1.5, 1.2, 1.04, 1.2, 1.03], strict=True):
        taken(report_rows.ANSWER_SWEEP, f"'jit', {size}", 1e-5, ratio)
        taken(report_rows.ANSWER_SWEEP, f"'jit_scan', {size}", 1e-5, 1.0)
    for wrapping in params.WRAPPINGS:
        row.exact[report_rows.ANSWER_JAXPRS, repr(wrapping)] = 0.0
    # Taken on a TPU: no processes under another dispatch; a jitted call alone returned before ready, filter_jit not.
    run = (3, 0, 0.9649, 0, 0.25, 1.5, 95, 0.9, 0.1)  # off a CPU no spell says what the machine took
    for what, value in zip(params.PROVENANCE[: len(run)], run, strict=True):
        row.exact[report_rows.ANSWER_PROVENANCE, repr(what)] = value
    return row


def provenance(row: report_rows.CommitFigures, changed: dict) -> report_rows.CommitFigures:
    for what, value in changed.items():
        row.exact[report_rows.ANSWER_PROVENANCE, repr(what)] = value
    return row


def test_the_answer_is_a_table_whose_microseconds_divide_to_its_ratio_on_the_device_named():
    text = blocks.here_answer(answer_row())
    first, table = text.split("\n\n")[:2]
    assert first.startswith("On TPU v5 lite, Equinox v0.13.8 with Python 3.11, jax 0.10.2: yes, a step of 8 ")
    assert "costs 11.5× the same step on a tuple when run eagerly, and 1.50× under jax.jit" in first
    cells = {
        first_cell: rest for first_cell, *rest in markdown_rows(table).values() if first_cell != "how the step runs"
    }
    # The interval is the processes' range; tree_at's µs over the tuple's is the × printed beside them.
    assert cells["under jax.jit"] == ["30 (27–36) µs", "20 (18–24) µs", "1.50 (1.35–1.80)×", "yes"]
    assert cells["eager"][2:] == ["11.50 (10.35–13.80)×", "not traced"]
    assert cells["inside a jitted lax.scan, per step of 100"][:2] == ["2 (1.8–2.4) µs", "1 (0.9–1.2) µs"]
    for tree_at, tuple_, ratio, _ in cells.values():
        assert numbers(tree_at)[0] / numbers(tuple_)[0] == pytest.approx(numbers(ratio)[0], rel=0.1)
    # Only what was taken: no filter_jit step, no scan without jit, and a dispatch alone with no wait beside it.
    assert set(cells) == {"eager", "under jax.jit", "inside a jitted lax.scan, per step of 100"}
    assert "| under jax.jit, dispatched alone | 40 (36–48) µs | 10 (9–12) µs | 4.00 (3.60–4.80)× |" in text
    assert "waited for" not in text and "n/a" not in text
    assert "below 1.05× under jax.jit from 1,000,000 elements per leaf on; " in text
    # Below at the smallest size already: every size, not "from 1 elements per leaf on".
    assert "inside a jitted lax.scan at every size measured, from 1 to 1,000,000 elements per leaf" in text
    assert "the median of 3 fresh processes, one after the other, in 95 s" in text
    assert "from the lowest to the highest of the spells' intervals of their medians (each at least 96.5%)" in text
    assert "Load average 0.25 before and 1.50 after." in text
    # A call alone times dispatch only where most of its calls returned before their result was ready.
    assert "No row times a call dispatched alone under eqx.filter_jit: here at most 10% of its calls " in text
    assert "quick" not in text and "synchronous" not in text


def test_on_a_cpu_the_answer_states_what_a_user_s_timeit_reads_under_jax_s_own_dispatch():
    row = provenance(answer_row("cpu"), {"default-dispatch processes": 3, "jit returned before ready": 0.02})
    for wrapping, seconds in (("'eager'", 80e-6), ("'jit'", 30e-6)):
        for side, value in (("tuple", seconds), ("ratio", 2.0), ("tree_at", seconds * 2)):
            for statistic, factor in zip(params.STATISTICS, (1.0, 0.5, 2.0), strict=True):
                row.timings[report_rows.ANSWER_DEFAULT + side, f"{wrapping}, {statistic!r}"] = one_run(value * factor)
    text = blocks.here_answer(row)
    own = markdown_rows(text.split("\n\n")[2])
    assert [cells[0] for cells in own.values()] == ["a call under JAX's own dispatch", "eager", "under jax.jit"]
    assert "| under jax.jit | 60 (30–120) µs | 30 (15–60) µs | 2.00 (1.00–4.00)× |" in text
    assert "No row times a call dispatched alone under jax.jit or under eqx.filter_jit: here at most 10% " in text
    assert "first thing in each of 3 more fresh processes, the median of 3 repeats of timeit's autorange" in text
    assert "JAX's CPU dispatch made synchronous there" in text
    # The README's answer (no calls alone) still states the user's timeit, without the sentence on calls alone.
    short = blocks.here_answer(row, dispatch=False)
    assert "| under jax.jit | 60 (30–120) µs |" in short and "dispatched alone" not in short


def test_on_a_cpu_each_step_says_what_the_machine_took_and_one_it_took_too_much_from_is_marked():
    quiet = {"eager taken": 0.31, "eager quiet spells": 0, "jit taken": 0.02, "jit quiet spells": 5}
    text = blocks.here_answer(
        provenance(answer_row("cpu"), quiet | {"jit_scan taken": 0.01, "jit_scan quiet spells": 6})
    )
    cells = {first: rest for first, *rest in markdown_rows(text.split("\n\n")[1]).values()}
    assert cells["how the step runs"][-1] == "time the machine took"
    assert cells["eager"][-1] == "31%, **too busy**: all 6 spells above"
    assert cells["under jax.jit"][-1] == "2%, 5 of 6 spells kept"
    assert cells["inside a jitted lax.scan, per step of 100"][-1] == "1%, 6 of 6 spells kept"
    assert "The machine was too busy for the figures marked below: they are not to be trusted." in text
    row = provenance(answer_row("cpu"), quiet | {"default-dispatch processes": 3})
    for side, value in (("tuple", 80e-6), ("ratio", 2.0), ("tree_at", 160e-6)):
        for statistic in params.STATISTICS:
            row.timings[report_rows.ANSWER_DEFAULT + side, f"'eager', {statistic!r}"] = one_run(value)
    own = blocks.here_answer(row).split("| a call under JAX's own dispatch |")[1]
    assert "\n\n**too busy**: these were timed in the same run, on the same busy machine, and are not to be " in own
    assert "a spell of which the machine took more than 10% is left out of its figure" in text
    calm = blocks.here_answer(provenance(answer_row("cpu"), quiet | {"eager quiet spells": 6}))
    assert "| 31%, 6 of 6 spells kept |" in calm and "was too busy" not in calm and "same busy machine" not in calm
    # A run from before the spells said it, or one off a CPU: no column, no sentence.
    assert "time the machine took" not in blocks.here_answer(answer_row("cpu"))


def test_a_quick_answer_says_so_and_states_its_intervals_true_level():
    text = blocks.here_answer(provenance(answer_row(), {"quick": 1.0, "level": 0.75}))
    assert "A quick run (--quick): one spell of a few pairs a figure, so that each interval in brackets is the " in text
    assert "which holds the median with 75% only." in text and "at least" not in text


def test_the_device_note_names_the_device_and_the_records_of_the_others():
    note = blocks.device_note([answer_row()])
    assert note.startswith("Measured on TPU v5 lite. docs/here.md holds the record of each device measured so far: ")
    recorded = note.split("so far: ")[1].split(". To take yours")[0].split(", ")
    assert "CPU" in recorded and "TPU v5 lite" not in recorded  # the records of docs/here.md
    on_cpu = blocks.device_note([answer_row("cpu")])
    assert on_cpu.startswith("Measured on CPU. ") and "CPU" not in on_cpu.split("so far: ")[1]


def test_a_result_without_the_answer_gets_no_answer_rather_than_a_sentence_that_it_was_not_taken():
    row = report_rows.CommitFigures(
        "v0.13.8", "Python 3.11, jax 0.10.2", env_params={"python": "3.11", "jax": "0.10.2"}
    )
    assert blocks.here_answer(row) is None
    assert blocks.answer_markdown([row]).startswith("| environment |")
