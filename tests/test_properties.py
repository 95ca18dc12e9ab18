"""Property-based tests (Hypothesis): merge-results and the gate fed generated malformed and adversarial input.

The properties, whatever the input:
  - nothing crashes: every outcome is a verdict (0, 1) or a one-line refusal (2), never exit 4;
  - merge-results is all or nothing: with any invalid file among the sources it writes nothing,
    otherwise every valid file ends in DEST, byte for byte, and nothing already in DEST changes;
  - no invalid file is ever accepted;
  - the gate reads any site or results file of any shape as a verdict or as exit 2 naming the file.

They run in process (``cli.run``, the runner every command goes through), so
that hundreds of cases take seconds; the number of cases of each is below
(docs/exit-codes.md, "Bad input, and what each gets").
"""

import contextlib
import io
import json
import math
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from benchtools import cli
from tests.asv_sites import COUNT, ENV, MACHINE, TIMING, make_site
from tests.helpers import asv_layout

CASES = {"merge": 300, "places": 200, "gate": 200}
SETTINGS = settings(
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)


def run(command, argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.run(command, argv)
    return code, out.getvalue(), err.getvalue()


def good_result(machine: str, hash8: str, env: str, value: float) -> dict:
    return {
        "commit_hash": hash8 * 5,
        "env_name": env,
        "date": 1767225600000,
        "params": {"machine": machine, "python": "3.11"},
        "python": "3.11",
        "requirements": {},
        "env_vars": {},
        "result_columns": ["result", "params", "version"],
        "results": {"bench_x.T.track_x": [[value], [], "1"]},
        "durations": {},
        "version": 2,
    }


json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)
hash8 = st.text("0123456789abcdef", min_size=8, max_size=8)
# Text holding at least one character that the site could read as markup (or that no stored text holds).
markup = st.builds(
    lambda before, bad, after: before + bad + after,
    st.text(max_size=6),
    st.sampled_from(["<", ">", "&", '"', "\\", "\n", "`", "<img src=x onerror=alert(1)>", "<script>"]),
    st.text(max_size=6),
)
ASV_COLUMNS = list(asv_layout()["result_columns"])
env = st.sampled_from(["env", "virtualenv-py3.11-jax0.4.33"])


@st.composite
def mutated_result(draw) -> tuple[str, bytes, bool]:
    """(file name, content, whether it is valid): a good results file, or one broken in one drawn way."""
    h, e = draw(hash8), draw(env)
    good = good_result("m", h, e, draw(st.floats(0, 1e6)))
    how = draw(
        st.sampled_from(
            [
                "valid",
                "truncate",
                "nest",
                "any json",
                "drop key",
                "retype key",
                "commit",
                "machine",
                "env",
                "name",
                "value",
                "skipped",
                "non-finite",
                "column",
                "markup",
                "machine markup",
                "bytes",
                "link",
                "dangling link",
            ]
        )
    )
    name = f"{h}-{e}.json"
    event(f"file: {how}")
    if how == "valid":
        return name, json.dumps(good).encode(), True
    if how in ("link", "dangling link"):  # a valid file, reached through a link the merge must not follow
        return name, LINK + (json.dumps(good).encode() if how == "link" else b""), False
    if how == "truncate":
        text = json.dumps(good)
        return name, text[: draw(st.integers(0, len(text) - 1))].encode(), False
    if how == "nest":
        depth = draw(st.integers(2_000, 60_000))
        return name, ("[" * depth + "]" * depth).encode(), False
    if how == "any json":
        value = draw(json_value)
        return name, json.dumps(value).encode(), False
    if how == "drop key":
        key = draw(
            st.sampled_from(
                [
                    "commit_hash",
                    "env_name",
                    "params",
                    "results",
                    "result_columns",
                    "version",
                    "python",
                    "date",
                    "requirements",
                ]
            )
        )
        return name, json.dumps({k: v for k, v in good.items() if k != key}).encode(), False
    if how == "retype key":
        key = draw(st.sampled_from(["commit_hash", "env_name", "params", "results", "result_columns", "date"]))
        replacement = draw(json_value.filter(lambda v: type(v) is not type(good[key])))
        return name, json.dumps({**good, key: replacement}).encode(), False
    if how == "commit":
        other = draw(st.text("0123456789abcdefg", min_size=0, max_size=41).filter(lambda c: c != good["commit_hash"]))
        return name, json.dumps({**good, "commit_hash": other}).encode(), False
    if how == "machine":
        return (
            name,
            json.dumps({**good, "params": {"machine": draw(st.text(max_size=5).filter(lambda m: m != "m"))}}).encode(),
            False,
        )
    if how == "env":
        return (
            name,
            json.dumps({**good, "env_name": draw(st.text(max_size=12).filter(lambda x: x != e))}).encode(),
            False,
        )
    if how == "name":
        bad_name = draw(
            st.one_of(
                st.text(string.ascii_letters + string.digits + "-_.", min_size=1, max_size=20),
                st.just(f"{h.upper()}-{e}.json"),
                st.just(f"{h}.json"),
                st.just(f"{h}-{e}.txt"),
            )
        )
        if bad_name == name:
            bad_name = "x" + bad_name
        return bad_name, json.dumps(good).encode(), False
    if how == "value":
        bad = draw(st.one_of(st.text(max_size=4), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)))
        return name, json.dumps({**good, "results": {"bench_x.T.track_x": [[bad], [], "1"]}}).encode(), False
    if how == "skipped":  # asv's own mark of a skipped benchmark: valid
        return name, json.dumps({**good, "results": {"bench_x.T.track_x": [[math.nan], [], "1"]}}).encode(), True
    if how == "non-finite":
        spelling = draw(st.sampled_from(["Infinity", "-Infinity", "1e400", "-1e999", "NaN", "true", "1e101"]))
        where = draw(st.sampled_from(["result", "date", "started_at", "duration", "stats_q_25", "samples", "param"]))
        row = {
            "result": f"[[{spelling}], [], null]",
            "started_at": f"[[1.0], [], null, {spelling}]",
            "duration": f"[[1.0], [], null, null, {spelling}]",
            "stats_q_25": f"[[1.0], [], null, null, null, null, null, [{spelling}]]",
            "samples": f"[[1.0], [], null, null, null, null, null, null, null, null, null, [[1.0, {spelling}]]]",
        }.get(where, "[[1.0], [], null]")
        data = {**good, "result_columns": ASV_COLUMNS, "results": {"bench_x.T.track_x": "ROW"}}
        if where in ("date", "param"):
            data["date" if where == "date" else "params"] = "VALUE"
        text = json.dumps(data).replace('"ROW"', row)
        text = text.replace('"VALUE"', spelling if where == "date" else f'{{"machine": "m", "ram": {spelling}}}')
        if spelling == "NaN" and where == "result":  # NaN in a result is asv's skipped mark
            return name, text.encode(), True
        return name, text.encode(), False
    if how == "column":
        column = draw(st.sampled_from(ASV_COLUMNS))
        bad = draw(
            st.sampled_from(
                {
                    "result": [[True], ["1"], [[1.0]], {}, [1.0, 2.0]],
                    "params": [None, [[1]], [["<"]], "x"],
                    "version": [1, [], True],
                    "started_at": ["x", True, []],
                    "duration": ["x", [1.0]],
                    "samples": ["x", [1.0], [["x"]]],
                    "profile": [1, "<b>", []],
                }.get(column, ["x", [True], [math.nan], ["1"], [1.0, 2.0], {}])
            )
        )
        row = [[1.0], [], "1"] + [None] * (len(ASV_COLUMNS) - 3)
        row[ASV_COLUMNS.index(column)] = bad
        return (
            name,
            json.dumps({**good, "result_columns": ASV_COLUMNS, "results": {"bench_x.T.track_x": row}}).encode(),
            False,
        )
    if how == "markup":
        text = draw(markup)
        where = draw(st.sampled_from(["benchmark", "param value", "machine param", "env var", "python"]))
        if where == "benchmark":
            data = {**good, "results": {f"bench_x.T.{text}": good["results"]["bench_x.T.track_x"]}}
        elif where == "param value":
            data = {**good, "results": {"bench_x.T.track_x": [[1.0], [[text]], "1"]}}
        elif where == "machine param":
            data = {**good, "params": {"machine": "m", draw(st.sampled_from(["cpu", text])): text}}
        elif where == "env var":
            data = {**good, "env_vars": {"X": text}}
        else:
            data = {**good, "python": text}
        return name, json.dumps(data).encode(), False
    if how == "machine markup":
        field = draw(st.sampled_from(["machine", "os", "cpu", "arch", "num_cpu", "ram", "planted"]))
        return (
            "machine.json",
            json.dumps({"machine": "m", "cpu": "x", field: draw(markup), "version": 1}).encode(),
            False,
        )
    return name, draw(st.binary(max_size=64)), False


LINK = b"\0link\0"  # content that ``plant`` writes as a link to a file that holds the rest (none: dangling)


def plant(path: Path, content: bytes) -> None:
    """CONTENT at PATH; with the LINK prefix, a link to a file outside the sources that holds the rest."""
    if not content.startswith(LINK):
        path.write_bytes(content)
        return
    target = path.parents[3] / "elsewhere" / path.name
    if content[len(LINK) :]:
        target.parent.mkdir(exist_ok=True)
        target.write_bytes(content[len(LINK) :])
    path.symlink_to(target)


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@settings(SETTINGS, max_examples=CASES["merge"])
@given(
    files=st.lists(mutated_result(), min_size=1, max_size=5, unique_by=lambda f: f[0]),
    existing=st.lists(st.tuples(hash8, st.floats(0, 10)), max_size=2, unique_by=lambda f: f[0]),
)
def test_merge_results_is_all_or_nothing_and_never_crashes(tmp_path_factory, files, existing):
    base = tmp_path_factory.mktemp("merge")
    src, dest = base / "src", base / "dest"
    (src / "upstream" / "m").mkdir(parents=True)
    (dest / "upstream" / "m").mkdir(parents=True)
    for name, content, _valid in files:
        plant(src / "upstream" / "m" / name, content)
    for h, value in existing:
        (dest / "upstream" / "m" / f"{h}-env.json").write_text(json.dumps(good_result("m", h, "env", value)))
    before = tree(dest)
    code, out, err = run("merge-results", [str(src), str(dest)])
    event(f"merge exit {code}")
    assert code in (0, 1, 2), err
    assert "Traceback" not in err
    if any(not valid for _name, _content, valid in files):
        assert code == 2, (files, out, err)
        assert len(err.strip().splitlines()) == 1
        assert tree(dest) == before, "an invalid file in the sources must stop the whole merge"
    else:
        after = tree(dest)
        assert {k: v for k, v in after.items() if k in before} == before, "a stored file changed"
        for name, content, _valid in files:
            assert after[f"upstream/m/{name}"] == (before.get(f"upstream/m/{name}") or content)
        assert code == (
            1 if any(f"upstream/m/{n}" in before and before[f"upstream/m/{n}"] != c for n, c, _ in files) else 0
        ), err


@settings(SETTINGS, max_examples=CASES["places"])
@given(
    relative=st.lists(
        st.text(string.ascii_letters + string.digits + "-_.~ ", min_size=1, max_size=10), min_size=1, max_size=5
    ),
    content=json_value,
)
def test_merge_results_accepts_nothing_but_asv_files_in_their_places(tmp_path_factory, relative, content):
    base = tmp_path_factory.mktemp("places")
    src, dest = base / "src", base / "dest"
    path = src.joinpath(*relative)
    if any(part in (".", "..") for part in relative):
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(content))
    code, _out, err = run("merge-results", [str(src), str(dest)])
    event(f"place exit {code}")
    assert code in (0, 2), err
    if code == 0:  # only a hidden file is left out; nothing else passes
        assert any(part.startswith(".") for part in relative), (relative, content)
        assert not dest.exists() or tree(dest) == {}


# The gate over one real published site, each file in turn replaced by generated JSON.


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("site")
    config = make_site(base, {TIMING: [[1.0e-3, 2.0e-3]] * 3 + [[1.6e-3, 2.0e-3]] * 3, COUNT: [[100, 400]] * 6})
    return config


GATE_FILES = [
    "html/index.json",
    "html/regressions.json",
    "results/benchmarks.json",
    "asv.conf.json",
    f"results/{MACHINE}/LAST-{ENV}.json",
]


@settings(SETTINGS, max_examples=CASES["gate"])
@given(
    which=st.sampled_from(GATE_FILES),
    content=st.one_of(
        json_value.map(json.dumps),
        st.text(max_size=30),
        st.integers(1_000, 30_000).map(lambda n: "[" * n + "]" * n),
        st.integers(1_000, 30_000).map(lambda n: '{"a":' * n + "1" + "}" * n),
    ),
)
def test_the_gate_gives_a_verdict_or_names_the_bad_file(site, which, content):
    base = site.parent
    if "LAST" in which:
        last = [
            line.split()[0]
            for line in json.loads((base / "html" / "index.json").read_text())["revision_to_hash"].values()
        ][-1]
        which = which.replace("LAST", last[:8])
    event(f"gate file: {'a results file' if which.startswith('results/' + MACHINE) else which}")
    path = base / which
    original = path.read_bytes()
    try:
        path.write_text(content)
        for compare in ([], ["--compare", "v0", "v5"]):
            # Reading and judging the files is what is tried here; the confirm step, which would
            # re-measure the site's timing change in real environments, has tests of its own.
            code, _out, err = run(
                "regressions", ["--config", str(site), "--machine", MACHINE, "--no-confirm", *compare]
            )
            event(f"gate exit {code}")
            assert code in (0, 1, 2), err
            if code == 2:
                assert path.name in err or "asv configuration" in err, err
                assert len(err.strip().splitlines()) == 1, err
    finally:
        path.write_bytes(original)
