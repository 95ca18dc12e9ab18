"""benchtools/publishing/operation_history.py: every step of each operation's exact cost lands on the
commit that made it, with its subject, date and pull request; on real upstream commits too."""

import itertools

import pytest

from benchtools import git as git_tool
from benchtools import settings
from benchtools.asvtools import operations
from benchtools.publishing import blocks, build_time, operation_history, operation_markdown
from benchtools.publishing import rows as report_rows
from tests.helpers import ASV_SIDE_ENVS, PRIMARY_JAX, ROOT, bench, squeezed

CONSTRUCTION = operations.OPERATIONS[0].label
CONSTRUCTION_PASSES = operations.OPERATIONS[0].timed[0]


def table_cells(table: str) -> dict[str, dict[str, str]]:
    """A Markdown table as {first cell: {header: cell}}."""
    header, _rule, *rows = ([cell.strip() for cell in line.strip("|").split("|")] for line in table.splitlines())
    return {row[0]: dict(zip(header, row, strict=True)) for row in rows}


def rows_with_costs(costs, subjects):
    """One environment's rows, one per commit, with the generated-__init__ construction cost given."""
    rows = []
    for i, (cost, subject) in enumerate(zip(costs, subjects, strict=True)):
        row = report_rows.CommitFigures(f"c{i}", "Python 3.11, jax 0.4.33", commit=f"{i:040x}")
        row.subject, row.commit_date = subject, f"2026-01-{i + 1:02d}"
        if cost is not None:
            row.operations = {CONSTRUCTION: (cost, 174, None, None)}
        rows.append(row)
    return rows


def test_a_step_lands_on_its_commit_with_its_pull_request_and_a_change_under_the_floor_is_no_step():
    subjects = ["start", "tiny (#1)", "perf: cache names (#1117)", "docs", "Merge pull request #1220 from x/y", "end"]
    rows = rows_with_costs([11328, 11340, 8640, 8640, 8968, 8968], subjects)
    found = operation_history.operation_steps(rows)
    assert list(found) == [CONSTRUCTION]  # only what these rows measured
    first, second = found[CONSTRUCTION]
    assert (first.after.label, first.cost, first.pull_request) == ("c2", (11340, 8640), 1117)
    assert (second.after.label, second.pull_request) == ("c4", 1220)
    assert second.relative == pytest.approx(8968 / 8640 - 1)
    text = squeezed(operation_markdown.markdown(found, "https://github.com/patrick-kidger/equinox"))
    assert "| `c2` | 2026-01-03 | perf: cache names (#1117) " in text
    assert "[#1117](https://github.com/patrick-kidger/equinox/pull/1117)" in text
    assert "11,340 → 8,640 (-23.8%)" in text and "(+3.8%)" in text
    assert "c1" not in text  # +0.1%: under the cost floor
    summary = squeezed(operation_markdown.summary_markdown(found, "https://example.org/p"))
    assert (
        f"| {CONSTRUCTION} | 2 | `c2` 2026-01-03 ([#1117](https://example.org/p/pull/1117)) | -23.8% | not measured |"
        in (summary)
    )


def test_a_commit_without_a_value_is_passed_over_and_a_subject_s_pipe_keeps_the_table_whole():
    rows = rows_with_costs([1000, None, 2000], ["a", "failed | broken", "x | y"])
    [step] = operation_history.operation_steps(rows)[CONSTRUCTION]
    assert step.before.label == "c0" and step.after.label == "c2"
    text = squeezed(operation_markdown.markdown({CONSTRUCTION: [step]}, "https://example.org/p"))
    [line] = [line for line in text.splitlines() if "`c2`" in line]
    assert "x \\| y" in line and "| — |" in line  # no pull request named
    from benchtools.publishing.templating import markdown_html

    steps_table = text.split("| environment | commit |", 1)[1].split("\n\n", 1)[0]
    html = markdown_html("| environment | commit |" + steps_table)
    assert "<td>x | y</td>" in html and html.count("<tr>") == 2


@pytest.mark.slow(minutes=1.3, group=ASV_SIDE_ENVS)
def test_on_real_upstream_commits_a_step_of_the_construction_cost_lands_on_its_commit(upstream, asv_env_dir, tmp_path):
    """Equinox's "perf: cache dataclass field names" made construction cheaper: asv's results over the real
    commits before it place the step there, and the awesome-list commit between is not benchmarked."""
    first_parent = git_tool.out("log", "--first-parent", "--format=%H %s", "v0.13.2..v0.13.3", repo=upstream)
    by_subject = {line.split(" ", 1)[1]: line.split(" ", 1)[0] for line in first_parent.splitlines()}
    cached = by_subject["perf: cache dataclass field names"]
    output = tmp_path / "out"
    ran = bench(
        "--repo", upstream, f"{cached}~3..{cached}", "--bench", "bench_construct.ConstructionCost",
        "--jax", PRIMARY_JAX, "--machine", "history-tests", "--output", output, "--env-dir", asv_env_dir,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    [results] = [p for p in (output / "results").iterdir() if p.is_dir()]
    rows = report_rows.load_rows(results, upstream, "history-tests")
    assert len({row.commit for row in rows}) == 2  # the awesome-list commit changed no package file
    [step] = operation_history.operation_steps(rows)[CONSTRUCTION]
    assert step.after.commit == cached and step.after.subject == "perf: cache dataclass field names"
    assert step.relative < -0.1  # the field names cached: a fifth of the construction's work gone
    # Its cause: one construction profiled at both commits (asv profile of ConstructionTime).
    [config] = (output / ".asv" / "configs").glob("repo-*-1.conf.json")
    found = {CONSTRUCTION: [step]}
    operation_history.explain_steps(found, config, profile=True)
    assert step.explanation is not None and step.explanation.rows, step.not_profiled
    fewer = [row for row in step.explanation.rows if row.calls[1] < row.calls[0]]
    assert any("dataclasses.fields" in row.function for row in fewer), step.explanation.rows
    text = operation_markdown.markdown(found, settings.load().project_url)
    assert f"`{cached[:8]}`" in text and step.after.commit_date in text
    # The cause names the functions whose time changed most: which of those called fewer times come first is a
    # timing (under load, `Module._is_magic`'s change can outweigh `dataclasses.fields`').
    assert step.explanation.sentence("operation") in text and "calls per operation" in text


def test_each_module_speed_pull_request_shows_what_it_did_to_each_operation_nothing_included():
    subjects = ["start", "perf: cache per-class field metadata in _ModuleInfo (#1220)", "later"]
    rows = rows_with_costs([11340, 8640, 8640], subjects)
    for row, cost in zip(rows, (12359, 12359, 12359), strict=True):
        row.cost = cost  # tree_at's own cost: unchanged by this pull request
    found = operation_history.pull_request_effects(rows)
    assert list(found) == list(operation_history.pull_requests().module_speed_ups)
    [effect] = found[1220]
    assert effect.commit.label == "c1"
    assert effect.costs == {operation_history.TREE_AT: (12359, 12359), CONSTRUCTION: (11340, 8640)}
    steps = operation_history.operation_steps(rows)
    upstream_url = "https://github.com/patrick-kidger/equinox"
    text = squeezed(operation_markdown.pull_requests_markdown(found, upstream_url, steps))
    assert "| 12,359 → 12,359 | nothing | not measured: the cost did not move |" in text
    assert "| 11,340 → 8,640 | -23.8% | not measured side by side (scripts/overhead-report --confirm-steps) |" in text
    # The step its commit made, measured side by side: the pull request's time, beside its cost.
    from benchtools.judging import pairs

    steps[CONSTRUCTION][0].measured = pairs.Interval(0.05, 0.02, 0.08, 12, 0.01, 0.99)
    measured = squeezed(operation_markdown.pull_requests_markdown(found, "u", steps))
    assert "| 11,340 → 8,640 | -23.8% | +5.0% (+2.0% to +8.0%, 99.0% interval, 12 pairs): **contradicts**" in measured
    assert "[#994](https://github.com/patrick-kidger/equinox/pull/994): no commit here carries it" in text
    assert "[#1117](https://github.com/patrick-kidger/equinox/pull/1117): still open upstream" in text


def test_a_rebased_pull_request_is_known_by_its_commit_s_subject():
    assert operation_history.pull_request_of("perf: code generation") == 1119
    assert operation_history.pull_request_of("Update to new docs (#982)") == 982
    assert operation_history.pull_request_of("perf: code generation, again") is None
    rows = rows_with_costs([16499, 12359], ["start", "perf: code generation"])
    [effect] = operation_history.pull_request_effects(rows)[1119]
    assert effect.costs[CONSTRUCTION] == (16499, 12359)
    # A move under the floor of a step is no step, so nothing was measured at it, and the table says why.
    rows = rows_with_costs([16499, 16550], ["start", "perf: code generation"])
    found = operation_history.pull_request_effects(rows)
    text = squeezed(operation_markdown.pull_requests_markdown(found, "u", operation_history.operation_steps(rows)))
    assert "| 16,499 → 16,550 | +0.3% | not measured: under the 1% floor of a step |" in text


def test_each_operation_s_step_is_profiled_by_its_own_one_call_and_measured_by_its_own_time(monkeypatch, tmp_path):
    from benchtools.errors import Failed
    from benchtools.judging import confirm, explain, pairs

    rows = rows_with_costs([11340, 8640], ["start", "perf: cache dataclass field names"])
    rows[0].operations = {CONSTRUCTION: (11340, 174, 30.0, 0.5), "attribute access": (64, 67, 1.0, 1.0)}
    rows[1].operations = {CONSTRUCTION: (8640, 174, 24.0, 0.5), "attribute access": (1069, 67, 9.0, 1.0)}
    found = operation_history.operation_steps(rows)
    profiled, measured_steps, calls = [], [], []

    def profile(env, before, after, cache, cached_only, profiled_benchmark):
        profiled.append((before, after, profiled_benchmark, cached_only))
        if cached_only:
            return None  # nothing cached
        raise Failed("asv profile exited 1")

    monkeypatch.setattr(
        explain, "explain", lambda *args, **kwargs: profile(*args, kwargs["cached_only"], kwargs["profiled"])
    )
    installs = []

    def profile_commits(env, wanted, cache):
        installs.append(wanted)
        raise Failed("cannot install")

    monkeypatch.setattr(explain, "profile_commits", profile_commits)
    monkeypatch.setattr(explain, "env_config", lambda config, conf, env_params, cache: ("env", config))
    (tmp_path / "conf.json").write_text("{}")

    def confirmations(config, conf, changes, max_pairs, measured):
        calls.append(len(changes))
        found = []
        for change in changes:
            interval = pairs.Interval(-0.01, -0.03, 0.01, 12, 0.02, 0.99)
            found.append(confirm.Confirmation(change, pairs.SAME, interval, 1.0))
            measured_steps.append((change.benchmark, change.params, change.before, change.after))
            measured(found[-1])
        return found

    monkeypatch.setattr(confirm, "confirmations", confirmations)
    operation_history.explain_steps(found, tmp_path / "conf.json", profile=True)
    operation_history.confirm_steps(found, tmp_path / "conf.json", 12)
    # The largest step first (access's +1,570%), so that a campaign stopped early has the largest.
    # Both operations that step at this pair are profiled together, each commit installed once; the pair
    # failed to install, so each step reads only the cache rather than installing it again.
    assert profiled == [
        (rows[0].commit, rows[1].commit, "bench_access.AccessTime.time_module", True),
        (rows[0].commit, rows[1].commit, "bench_construct.ConstructionTime.time_module('default')", True),
    ]
    both = {"bench_access.AccessTime.time_module", "bench_construct.ConstructionTime.time_module('default')"}
    assert installs == [{rows[0].commit: both, rows[1].commit: both}]
    assert measured_steps == [
        ("bench_access.AccessInTreeMapPasses.track_module", "", 1.0, 9.0),
        ("bench_construct.ConstructionInTreeMapPasses.track_module", "'default'", 30.0, 24.0),
    ]
    assert calls == [2]  # one commit pair: its two steps measured in one pair of environments
    text = operation_markdown.markdown(found, "https://example.org/p")
    assert text.count("not profiled (cannot install)") == 2 and "asv profile exited" not in text
    assert "-1.0% (-3.0% to +1.0%, 99.0% interval, 12 pairs, load " in text and "): no change resolved" in text
    # A time that moves the cost's way by much less than the cost says so, and which one is right.
    step = found[CONSTRUCTION][0]
    assert step.relative == pytest.approx(-0.238, abs=5e-4)
    for measured, agrees in (
        (pairs.Interval(-0.05, -0.08, -0.02, 12, 0.02, 0.99), operation_markdown.LESS),
        (pairs.Interval(-0.05, -0.40, 0.10, 12, 0.2, 0.99), operation_markdown.UNDECIDED),
        (pairs.Interval(-0.01, -0.05, 0.02, 12, 0.02, 0.99), operation_markdown.NO_CHANGE),
    ):
        step.measured = measured
        assert operation_markdown.agreement(step) == agrees
        # The cell gives the measured interval and sets the cost's step beside it.
        assert operation_markdown.time_cell(step).startswith(f"{measured.estimate:+.1%} ({measured.low:+.1%} to ")
        assert f"{step.relative:+.1%}" in operation_markdown.time_cell(step)
    assert "the time is right about the time" in operation_markdown.markdown(found, "u")  # and why, once
    # Each operation's measured steps counted by how they stand to the cost, as data and in the table.
    access = found["attribute access"][0]
    access.measured = pairs.Interval(7.4, 7.0, 7.9, 12, 0.05, 0.99)  # +740% against the cost's +1,570%
    assert operation_markdown.agreement(access) == operation_markdown.LESS
    tracked = table_cells(operation_markdown.tracking_markdown(found))
    ratio = "time change ÷ cost change, median (range)"
    for operation, agrees, median in (
        (CONSTRUCTION, operation_markdown.NO_CHANGE, "0.04"),
        ("attribute access", operation_markdown.LESS, "0.47"),
    ):
        row = tracked[operation]
        assert (row["steps"], row["measured side by side"]) == ("1", "1")
        assert {kind: row[kind] for kind in operation_markdown.AGREEMENTS} == {
            kind: "1" if kind == agrees else "0" for kind in operation_markdown.AGREEMENTS
        }
        assert row[ratio] == f"{median} ({median} to {median})"


def test_a_confirm_run_stopped_halfway_keeps_each_step_measured_before_it(monkeypatch, tmp_path):
    from benchtools.judging import confirm, pairs

    rows = rows_with_costs([11340, 8640], ["start", "perf: cache dataclass field names"])
    rows[0].operations = {CONSTRUCTION: (11340, 174, 30.0, 0.5), "attribute access": (64, 67, 1.0, 1.0)}
    rows[1].operations = {CONSTRUCTION: (8640, 174, 24.0, 0.5), "attribute access": (1069, 67, 9.0, 1.0)}
    found = operation_history.operation_steps(rows)
    access, construction = "bench_access.AccessInTreeMapPasses.track_module", CONSTRUCTION_PASSES
    asked = []

    def killed_after_the_first(config, conf, changes, max_pairs, measured):
        asked.append([change.benchmark for change in changes])
        interval = pairs.Interval(8.0, 7.0, 9.0, 12, 0.1, 0.99)
        measured(confirm.Confirmation(changes[0], pairs.SLOWER, interval, 1.0))
        raise KeyboardInterrupt  # while the pair's second step is measured

    monkeypatch.setattr(confirm, "confirmations", killed_after_the_first)
    config = tmp_path / "conf.json"
    config.write_text("{}")
    with pytest.raises(KeyboardInterrupt):
        operation_history.confirm_steps(found, config, 12)
    assert asked == [[access, construction]]

    def the_rest(config, conf, changes, max_pairs, measured):
        asked.append([change.benchmark for change in changes])
        interval = pairs.Interval(-0.2, -0.25, -0.15, 12, 0.05, 0.99)
        measured(confirm.Confirmation(changes[0], pairs.SAME, interval, 1.0))

    monkeypatch.setattr(confirm, "confirmations", the_rest)
    operation_history.confirm_steps(found, config, 12)
    assert asked[1:] == [[construction]]  # only the step that the stopped run had not kept
    estimates = {step.operation: step.measured.estimate for step in itertools.chain(*found.values())}
    assert estimates == {"attribute access": 8.0, CONSTRUCTION: -0.2}
    assert all(len(step.measured_load) == 2 for step in itertools.chain(*found.values()))


def test_step_times_kept_in_a_file_of_their_own_are_read_without_the_run_s_configuration(monkeypatch, tmp_path):
    from benchtools.errors import BadInput
    from benchtools.judging import confirm, pairs

    rows = rows_with_costs([11340, 8640], ["start", "perf: cache dataclass field names"])
    rows[0].operations = {CONSTRUCTION: (11340, 174, 30.0, 0.5)}
    rows[1].operations = {CONSTRUCTION: (8640, 174, 24.0, 0.5)}
    kept = tmp_path / "docs" / "commit-history-times.json"

    def measured(config, conf, changes, max_pairs, measured):
        interval = pairs.Interval(-0.2, -0.25, -0.15, 12, 0.05, 0.99)
        measured(confirm.Confirmation(changes[0], pairs.SAME, interval, 1.0))

    monkeypatch.setattr(confirm, "confirmations", measured)
    found = operation_history.operation_steps(rows)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "conf.json").write_text("{}")
    operation_history.confirm_steps(found, tmp_path / "out" / "conf.json", 12, kept)
    assert not (tmp_path / "out" / ".asv").exists()  # nothing kept beside the run: all in the file
    # Another machine, without the run's configuration or its .asv folder: the page shows what was kept.
    monkeypatch.setattr(confirm, "confirmations", lambda *args, **kwargs: pytest.fail("measured again"))
    [step] = report_rows.investigate(rows, None, step_times=kept)[CONSTRUCTION]
    assert step.measured.estimate == -0.2 and len(step.measured_load) == 2
    for bad, named in (
        ("{", "kept step times is corrupt"),
        ('{"k": {"interval": null}}', "k: the key 'load' is missing"),
    ):
        kept.write_text(bad)
        with pytest.raises(BadInput, match=named):
            operation_history.confirm_steps(found, tmp_path / "conf.json", None, kept)


def test_the_build_time_adds_each_commit_s_time_to_the_next_and_leaves_a_stopped_campaign_s_gap_out():
    spans = [
        ("a", "env", 0.0, 15.0),
        ("b", "env", 20.0, 38.0),
        ("c", "env", 2000.0, 2012.0),
        ("d", "env", 2030.0, 2041.0),
    ]
    found = build_time.build_time(spans)
    # a: 20 s (to b's start); b: 18 s (its own run: the campaign stopped after it); c: 30 s; d: 11 s, its run.
    assert (found.commits, found.seconds, found.stops) == (4, 79.0, 1)
    assert found.per_commit == 19.0 and found.sharded(4) == 19.0 and found.sharded(3) == 38.0
    described = build_time.markdown(found, "x")
    assert all(figure in described for figure in ("4 results", "19 s per commit", "1 stop(s)")), described
    assert build_time.build_time([]) is None


def test_two_shards_run_side_by_side_are_timed_each_on_its_own():
    # Shard A runs a then c, shard B runs b then d, interleaved in time.
    spans = [("a", "env", 0.0, 15.0), ("b", "env", 5.0, 22.0), ("c", "env", 20.0, 33.0), ("d", "env", 25.0, 40.0)]
    assert [[span[0] for span in chain] for chain in build_time.chains(spans)] == [["a", "c"], ["b", "d"]]
    found = build_time.build_time(spans)
    assert (found.seconds, found.stops) == (20.0 + 13.0 + 20.0 + 15.0, 0)


def test_results_with_a_history_write_the_history_s_blocks(tmp_path):
    rows = rows_with_costs([11340, 8640], ["start", "perf: cache dataclass field names"])
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- operation-history:start -->\n<!-- operation-history:end -->\n"
        "<!-- operation-history-summary:start -->\n<!-- operation-history-summary:end -->\n"
        "<!-- overhead-summary:start -->\nthe newest release's\n<!-- overhead-summary:end -->\n"
    )
    # The newest commit is no release: the newest release's summary, which the README has, is left alone.
    assert blocks.update_markdown(page, rows, operation_history.operation_steps(rows), None) == [
        "operation-history",
        "operation-history-summary",
    ]
    assert "\nthe newest release's\n" in page.read_text()
    rows[-1].release = True
    assert blocks.update_markdown(page, rows, operation_history.operation_steps(rows), None) == [
        "overhead-summary",
        "operation-history",
        "operation-history-summary",
    ]
    text = squeezed(page.read_text())
    assert "the newest release's" not in text
    assert "perf: cache dataclass field names" in text and f"| {CONSTRUCTION} | 1 | `c1` 2026-01-02" in text


def test_the_kept_step_times_name_real_upstream_commit_pairs_and_the_benchmarks_that_time_them(upstream):
    """docs/commit-history-times.json, committed so that its hours of quiet measurement outlive a machine,
    is read as the report reads it, and each of its steps is a pair of commits of upstream's real history
    (the bundle's hashes), the earlier an ancestor of the later, timed by an operation's own benchmark."""
    from benchmarks import metrics

    kept = operation_history.read_kept(ROOT / "docs" / "commit-history-times.json")
    assert kept
    timed = {metrics.entry(*tracked.timed) for tracked in operation_history.TRACKED}
    for key in kept:
        env, benchmark, before, after = key.split(" | ")
        assert env.startswith("Python ") and benchmark in timed, key
        # Checked: an unknown commit fails here, with git's message naming it.
        git_tool.run("merge-base", "--is-ancestor", before, after, repo=upstream)
        assert before != after, key
