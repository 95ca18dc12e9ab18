"""scripts/bench --here: the suite in a user's own Python, through asv's existing-environment mode.

The user's Python is real: a virtualenv made here, with JAX and Equinox installed from the package index by
pip, as a user installs them.  The run itself is offline (no index, no proxy that answers) and finds no
valgrind, and its page is read in a real browser.
"""

import html
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import markdown_it
import pytest

from benchtools.asvtools import device
from benchtools.running import bench, here
from tests.helpers import ROOT, SCRIPTS, command, tool
from tests.test_site import page, serve  # noqa: F401 - the browser fixture, and the server

USER_PACKAGES = ("jax==0.10.2", "jaxlib==0.10.2", "equinox==0.13.8")
# What the test runs: an exact figure that needs valgrind, and the answer (one fresh process in a quick run).
BENCHMARKS = ("bench_instructions", "bench_answer")
# What installs the user's packages, where a user's pip would: .venv's uv, from the cache that scripts/setup filled with
# the same releases, in a second or two where pip took a minute.
UV = str(Path(sys.executable).parent / "uv")


@pytest.fixture(scope="session")
def user_python(tmp_path_factory):
    """A Python as a user has it: a virtualenv of its own, JAX and Equinox installed from PyPI."""
    venv = tmp_path_factory.mktemp("user") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    installed = subprocess.run(
        [UV, "pip", "install", "-q", "--python", str(python), *USER_PACKAGES],
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, installed.stderr
    return python


def offline_without_valgrind(tmp_path) -> dict:
    """The environment of a machine with no package index, no network and no valgrind: PATH holds git alone."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to(subprocess.run(["which", "git"], capture_output=True, text=True).stdout.strip())
    closed = "http://127.0.0.1:9"  # the discard port: nothing answers
    return {
        **os.environ,
        "PATH": str(bin_dir),
        "PIP_NO_INDEX": "1",
        "http_proxy": closed,
        "https_proxy": closed,
        "JAX_PLATFORMS": "cpu",
    }


@pytest.mark.slow(minutes=1.3)
def test_here_measures_the_installed_jax_offline_and_the_page_answers_in_the_user_s_words(
    user_python,
    tmp_path,
    page,  # noqa: F811 - the browser fixture
):
    env_dir = tmp_path / "env"
    # Two pages written from the one run, as the README and docs/here.md are: each with its own blocks and picture.
    readme, record = tmp_path / "README.md", tmp_path / "docs" / "here.md"
    record.parent.mkdir()
    readme.write_text("".join(f"<!-- {b}:start -->\n<!-- {b}:end -->\n" for b in ("here-answer", "here-time")))
    record.write_text("".join(f"<!-- {b}-cpu:start -->\n<!-- {b}-cpu:end -->\n" for b in ("here-answer", "here-time")))
    args = ["--quick", "--output", tmp_path, "--env-dir", env_dir, "--docs", readme, "--docs", record]
    for regex in BENCHMARKS:
        args += ["--bench", regex]
    ran = subprocess.run(
        [*tool("bench"), "--here", str(user_python), *args],
        capture_output=True,
        text=True,
        env=offline_without_valgrind(tmp_path),
        cwd=tmp_path,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr[-3000:]
    assert "Python 3.11, jax 0.10.2, jaxlib 0.10.2, Equinox 0.13.8, on cpu" in ran.stderr
    assert "valgrind is not installed here: the instruction counts (bench_instructions) are skipped" in ran.stderr
    assert not [path for path in env_dir.iterdir() if path.is_dir()]  # no virtualenv was built: the lock alone
    assert " min of wall time, and built no virtualenv: " in ran.stdout  # no scripts/setup needed: none named
    (path,) = (tmp_path / "results" / "here-quick").glob("*-cpu/*-existing-*.json")
    stored = json.loads(path.read_text())
    assert {k: stored["params"][k] for k in ("device", "python", "jax", "jaxlib", "runner")} == {
        device.DEVICE: "cpu",
        "python": "3.11",
        "jax": "0.10.2",
        "jaxlib": "0.10.2",
        device.RUNNER: "asv-0.6.6-asv_runner-0.3.2",  # the lock's, which pyproject.toml pins
    }
    columns = stored["result_columns"]
    instructions = stored["results"]["bench_instructions.Instructions.track_module"][columns.index("result")]
    assert all(value is None or math.isnan(value) for value in instructions)  # skipped, not measured
    assert "instructions are not counted here: valgrind is not installed" in ran.stdout + ran.stderr
    # The site's overhead page opens with the answer on this device: its table, its sweep, nothing n/a.
    server, url = serve(tmp_path / "html" / "here-quick")
    try:
        page.goto(f"{url}/overhead/index.html")
        answer = page.locator("div#answer")
        answer.wait_for()
        text, rows = answer.inner_text(), answer.locator("tr").all_inner_texts()
        note = page.locator("p#device-note").inner_text()
        sweep = page.locator('img[src="sweep.png"]').evaluate("image => image.naturalWidth")
    finally:
        server.shutdown()
        server.server_close()
    assert text.startswith("On CPU, Equinox v0.13.8 with Python 3.11, jax 0.10.2, jaxlib 0.10.2: yes, a step of 8 ")
    steps = [row.split("\t")[0] for row in rows]
    for wrapping in ("eager", "under jax.jit", "under eqx.filter_jit", "inside a jitted lax.scan, per step of 100"):
        assert wrapping in steps
    assert "the median of 1 fresh processes, one after the other, in " in text
    assert "first thing in each of 1 more fresh processes, the median of 3 repeats of timeit's autorange" in text
    short, full = readme.read_text(), record.read_text()
    assert short.split("\n")[2] == full.split("\n")[2] and short.split("\n")[2].startswith("On CPU, Equinox v0.13.8")
    assert "dispatched alone" not in short and "dispatched alone" in full  # a row, or why there is none
    assert (tmp_path / "images" / "here-sweep-cpu.png").is_file() and (
        record.parent / "images" / "here-sweep-cpu.png"
    ).is_file()
    assert "n/a" not in text
    # A quick run says so, with its intervals' true level: the range of 3 pairs holds the median with 1 - 2 * 0.5**3.
    assert "A quick run (--quick): one spell of a few pairs a figure, " in text
    assert "which holds the median with 75% only." in text
    assert note.startswith("Measured on CPU. docs/here.md holds the record of each device measured so far: ")
    assert sweep > 0


def test_here_refuses_what_it_cannot_measure_in_one_line(tmp_path):
    missing = command("bench", "--here", tmp_path / "no-python")
    assert missing.returncode == 2
    assert missing.stderr.strip().splitlines() == [
        f"scripts/bench: --here {tmp_path / 'no-python'}: no such Python (give a path, or a name on PATH)"
    ]
    # -S: a Python with no site-packages, so no JAX and no Equinox.
    bare = tmp_path / "python"
    bare.write_text(f'#!/bin/sh\nexec {sys.executable} -S "$@"\n')
    bare.chmod(0o755)
    without_jax = command("bench", "--here", bare)
    assert without_jax.returncode == 2
    assert "has no jax, jaxlib, equinox installed" in without_jax.stderr
    assert len(without_jax.stderr.strip().splitlines()) == 1
    not_python = command("bench", "--here", "/bin/echo")
    assert (not_python.returncode, not_python.stderr.strip().splitlines()) == (
        2,
        ["scripts/bench: /bin/echo is not a Python: the suite measures in Python 3.10 or later"],
    )
    unparsed = command("bench", "--here", sys.executable, "--bench", "(")
    assert unparsed.returncode == 2 and "'(' is not a regular expression" in unparsed.stderr.splitlines()[-1]
    nothing = command("bench", "--here", sys.executable, "--bench", "^no_such_benchmark", "--output", tmp_path)
    assert nothing.returncode == 2
    assert nothing.stderr.strip().splitlines()[-1] == (
        "scripts/bench: --bench ^no_such_benchmark: selects no benchmark of the suite"
    )
    assert not (tmp_path / "results").exists()  # refused before asv ran


@pytest.mark.parametrize(("output", "said"), [("file", "is a file, not a folder"), ("/proc/nope", "no folder can")])
def test_an_output_that_is_no_folder_is_refused_in_one_sentence_before_anything_runs(output, said, tmp_path):
    """It crashed with a traceback (exit 4) where asv's configuration was written, after the first measurements."""
    (tmp_path / "file").write_text("kept\n")
    output = tmp_path / output if output == "file" else output
    ran = command("bench", "--here", sys.executable, "--output", output)
    assert ran.returncode == 2 and "Traceback" not in ran.stderr, ran.stderr
    assert said in ran.stderr.strip().splitlines()[-1] and (tmp_path / "file").read_text() == "kept\n"


@pytest.mark.parametrize(
    "args",
    [("--releases", "3"), ("--full",), ("--jax-history",), ("--repo", "."), ("--jax", "0.4.33")],
)
def test_here_takes_no_selection_of_releases_repositories_or_environments(args):
    ran = command("bench", "--here", sys.executable, *args)
    assert ran.returncode == 2
    assert ran.stderr.strip().splitlines()[-1].startswith(("scripts/bench: ", "usage:", "scripts/bench: error:"))


@pytest.mark.parametrize("quick", [False, True])
def test_the_selection_a_run_took_keeps_its_regexes_as_typed_in_markdown(quick):
    regexes = [r"^bench_eager\.EagerSurgery\.time_(tree_at|tuple)\(4, [0-9]+\)$", r"^bench_answer\.AnswerDispatch\."]
    words = ["--quick"] * quick + regexes
    options = bench.Options(here="python3", quick=quick, bench=regexes)
    rendered = markdown_it.MarkdownIt().render(f"`scripts/bench --here`{here.selection_markdown(options)} took")
    assert html.unescape(re.sub("<[^>]+>", "", rendered)).strip() == f"scripts/bench --here ({' '.join(words)}) took"
    assert here.selection_markdown(bench.Options(here="python3")) == ""


def documented_tools() -> list[str]:
    """The packages docs/here.md tells a machine without a package index to carry as wheels."""
    text = (ROOT / "docs" / "here.md").read_text()
    command = re.search(r"python3 -m pip download (.*?)\n```", text, re.S)[1].replace("\\\n", " ")
    return [word.strip("'") for word in re.split(r"-d \S+", command, maxsplit=1)[1].split()]


@pytest.mark.slow(minutes=0.5)
def test_without_a_venv_the_documented_tools_on_pythonpath_run_here_in_the_measured_python(user_python, tmp_path):
    """The path docs/here.md gives a GPU machine with no package index, taken on the CPU: the tools' packages
    that the docs list, installed apart (--target, as the wheels are there), on PYTHONPATH, and the
    command run by the measured Python itself, outside .venv."""
    tools = tmp_path / "site"
    installed = subprocess.run(
        [UV, "pip", "install", "-q", "--python", str(user_python), "--no-deps", "--target", str(tools)]
        + documented_tools(),
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, installed.stderr
    # What scripts/door runs with BENCHTOOLS_OUTSIDE_VENV=1 (tests/test_cli.py): PATH here holds no bash.
    env = {**offline_without_valgrind(tmp_path), "PYTHONPATH": os.pathsep.join(map(str, (tools, SCRIPTS, ROOT)))}
    args = ["--here", str(user_python), "--quick", "--bench", "TracingRatio", "--output", tmp_path]
    ran = subprocess.run(
        [str(user_python), "-m", "benchtools", "bench", *map(str, args), "--env-dir", str(tmp_path / "env")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr[-3000:]
    assert "scripts/setup" not in ran.stderr.split("Measuring in")[0]  # no .venv was made or entered
    (path,) = (tmp_path / "results" / "here-quick").glob("*-cpu/*-existing-*.json")
    assert json.loads(path.read_text())["params"]["device"] == "cpu"
    assert (tmp_path / "html" / "here-quick" / "overhead" / "index.html").is_file()


@pytest.fixture(scope="session")
def path_only_python(user_python, tmp_path_factory):
    """A Python whose JAX and Equinox are found on PYTHONPATH alone, as a TPU machine's or a cluster's module system
    provides them: a bare virtualenv, and the user's packages (installed by pip) named on PYTHONPATH."""
    venv = tmp_path_factory.mktemp("path-only") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (site,) = user_python.parents[1].glob("lib/python*/site-packages")
    return venv / "bin" / "python", site


@pytest.mark.slow(minutes=0.5)
def test_a_jax_on_pythonpath_is_measured(path_only_python, tmp_path):
    """asv drops PYTHONPATH from its benchmarks' processes unless ASV_PYTHONPATH is set."""
    python, site = path_only_python
    env = {**offline_without_valgrind(tmp_path), "PYTHONPATH": str(site)}
    args = ["--here", python, "--output", tmp_path, "--env-dir", tmp_path / "env"]
    args += ["--bench", r"^bench_eager\.EagerSurgery\.time_tree_at$"]
    ran = subprocess.run([*tool("bench"), *map(str, args)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr[-3000:]
    (path,) = (tmp_path / "results" / "here").glob("*-cpu/*-existing-*.json")
    stored = json.loads(path.read_text())
    columns = stored["result_columns"]
    found = stored["results"]["bench_eager.EagerSurgery.time_tree_at"]
    assert math.isfinite(found[columns.index("result")][0])
