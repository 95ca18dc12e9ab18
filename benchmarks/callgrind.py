"""Instruction counts under valgrind's callgrind: the exact metric that sees C work too (docs/instructions.md).

One valgrind process counts every operation of ``instruction_ops.OPERATIONS``, so that JAX's import (half a minute
under valgrind) is paid once: ``python -m benchmarks.callgrind OUT NAME...`` builds and warms every twin, then counts
WINDOWS empty windows and WINDOWS windows of ``calls`` calls through ``callgrind_shim.c``.  One call's count is (the
median full window - the median empty one) / ``calls``: a window's own cost, and a rare event that falls in one window,
drop out.  docs/instructions.md lists the noise the process removes, and the allocator's that remains.

No JAX at import time: asv and the tools read this module.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from .params import OPERATIONS_VARIABLE

SHIM_SOURCE = Path(__file__).with_name("callgrind_shim.c")
VALGRIND_OPTIONS = (
    "--tool=callgrind",
    "--instr-atstart=no",
    "--separate-threads=yes",
    "--compress-strings=no",
    "--compress-pos=no",
)
# The counting process's whole environment: its strings sit in the process's memory and shift its layout, so
# a variable that differs between runs (a job id, the caller's own settings) would move the counts.
PROCESS_ENVIRONMENT = {
    "PYTHONHASHSEED": "0",
    "JAX_PLATFORMS": "cpu",
    "OMP_NUM_THREADS": "1",
    "LC_ALL": "C.UTF-8",
    "PATH": "/usr/bin:/bin",
    # A .pyc written by one process and read by the next moved construction's count by 1.2% (compile_suite).
    "PYTHONDONTWRITEBYTECODE": "1",
}
SHIM_VARIABLE = "EQXB_CALLGRIND_SHIM"  # tells the counting process where the built shim is
MAIN_THREAD = "01"
WINDOWS = 5  # of each size, per twin: the median drops the rare events
TOP_FUNCTIONS = 40  # the functions kept per twin, by their own instructions per call: a step's cause


class Unavailable(Exception):
    """Instructions cannot be counted on this machine; the message says why."""


class Killed(RuntimeError):
    """The counting process was stopped from outside (a signal to stop it): nothing about the code counted."""


class CrashedAfterCounting(RuntimeError):
    """The counting process failed after every window was counted and kept (``counts``): at its teardown."""

    def __init__(self, message: str, counts: dict):
        super().__init__(message)
        self.counts = counts


STOPPING_SIGNALS = (signal.SIGTERM, signal.SIGKILL, signal.SIGINT, signal.SIGHUP)


def cache_dir() -> Path:
    """The project's per-machine cache, where the shim is built and scripts/setup builds CPython 3.13."""
    if "EQXB_CACHE" in os.environ:
        return Path(os.environ["EQXB_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or (Path.home() / ".cache")
    return Path(base) / "equinox-benchmarks"


def shim_library() -> Path:
    """The shim, compiled once per source text: ``cc -O2 -shared -fPIC``."""
    source = SHIM_SOURCE.read_bytes()
    library = cache_dir() / f"callgrind-shim-{hashlib.sha256(source).hexdigest()[:16]}.so"
    if library.exists():
        return library
    compiler = shutil.which(os.environ.get("CC", "cc"))
    if compiler is None:
        raise Unavailable("no C compiler (cc) to build benchmarks/callgrind_shim.c")
    library.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=library.parent) as work:
        built = Path(work) / library.name
        compiled = subprocess.run(
            [compiler, "-O2", "-shared", "-fPIC", "-o", built, SHIM_SOURCE], capture_output=True, text=True
        )
        if compiled.returncode != 0:
            raise Unavailable(
                f"cannot build {SHIM_SOURCE.name} (is valgrind's callgrind.h installed?): {compiled.stderr.strip()}"
            )
        built.replace(library)
    return library


def valgrind() -> str:
    found = shutil.which("valgrind")
    if found is None:
        raise Unavailable("valgrind is not installed (scripts/setup installs Debian's package)")
    return found


# The interpreter's build as it reports it: a patch release or another build of one moves every count.
INTERPRETER = "import platform, sys; print(sys.version.replace(chr(10), ' '), platform.libc_ver()[1])"


def described(path: str, key: str, separator: str) -> str:
    """The value of the first ``key`` line of a ``key<separator>value`` file, "" where there is none."""
    text = Path(path).read_text() if Path(path).is_file() else ""
    found = (line.split(separator, 1)[1] for line in text.splitlines() if line.startswith(key))
    return next(found, "").strip().strip('"')


def environment(python: str = sys.executable) -> dict[str, str]:
    """What a count depends on besides the code that ran (docs/instructions.md): the interpreter's build, the
    valgrind that counted, the CPU model (glibc picks its string functions per CPU) and the machine's image."""
    ran = subprocess.run([python, "-c", INTERPRETER], capture_output=True, text=True, env=PROCESS_ENVIRONMENT)
    interpreter, _, libc = ran.stdout.strip().rpartition(" ")
    counted_by = subprocess.run([valgrind(), "--version"], capture_output=True, text=True).stdout.strip()
    cpu = described("/proc/cpuinfo", "model name", ":")
    image = described("/etc/os-release", "PRETTY_NAME=", "=")
    # GitHub's hosted runners name their image's version (ImageOS, ImageVersion): the same Ubuntu moves weekly.
    runner = " ".join(os.environ[name] for name in ("ImageOS", "ImageVersion") if os.environ.get(name))
    return {
        "python": f"Python {interpreter}" if ran.returncode == 0 else f"{python}: {ran.stderr.strip()}",
        "glibc": libc,
        "valgrind": counted_by,
        "cpu": cpu,
        "image": f"{image} ({runner})" if runner else image,
    }


def compile_suite(python: str) -> None:
    """The suite's .pyc files, written as every import would; a read-only folder is no failure: every counting
    process then compiles the same sources alike."""
    subprocess.run([python, "-m", "compileall", "-q", str(Path(__file__).parent)], capture_output=True)


def under_valgrind(
    python: str, out: Path, arguments: list[str], path=(), timeout: float = 1800, variables=None, cwd=None, options=()
) -> subprocess.CompletedProcess:
    """``python arguments`` counted by callgrind, with its ``options`` too, in the counting process's environment
    (its windows dump into ``out``), importing the suite, and ``path`` before it.  Raises ``Killed`` where it was
    stopped from outside."""
    compile_suite(python)
    no_aslr = [shutil.which("setarch"), platform.machine(), "-R"] if shutil.which("setarch") else []
    suite_parent = str(Path(__file__).resolve().parent.parent)
    environment = {**PROCESS_ENVIRONMENT, "PYTHONPATH": os.pathsep.join([*path, suite_parent]), **(variables or {})}
    ran = subprocess.run(
        [
            *no_aslr,
            valgrind(),
            *VALGRIND_OPTIONS,
            *options,
            f"--callgrind-out-file={out}/callgrind.out",
            python,
            *arguments,
        ],
        capture_output=True,
        text=True,
        env=environment,
        timeout=timeout,
        cwd=cwd,
    )
    if -ran.returncode in STOPPING_SIGNALS:
        raise Killed(f"the callgrind process was stopped by signal {-ran.returncode}")
    return ran


def count(names: list[str], python: str = sys.executable, timeout: float = 1800, path: list[str] = ()) -> dict:
    """``{name: {twin: {"instructions": per call, "functions": {function: its own per call}, "builtins":
    {builtin: per call with its callees}}}}``, or ``{name: {"failed": why}}``.  ``path``: folders imported before
    the process's own site-packages (a bisection's jax and Equinox, history/probes.py)."""
    library = shim_library()
    with tempfile.TemporaryDirectory(prefix="eqxb-callgrind-") as work:
        out = Path(work)
        arguments = ["-m", "benchmarks.callgrind", str(out), *selected(names)]
        ran = under_valgrind(python, out, arguments, path, timeout, {SHIM_VARIABLE: str(library)})
        failure = f"the callgrind process exited {ran.returncode}:\n{ran.stderr[-4000:]}"
        if ran.returncode != 0 and not (out / "windows.json").is_file():
            raise RuntimeError(failure)
        windows = json.loads((out / "windows.json").read_text())
        counts = per_call(windows["windows"], {dump.desc: dump for dump in dumps(out)})
        counts.update({name: {"failed": why} for name, why in windows["failed"].items()})
        if ran.returncode != 0:
            raise CrashedAfterCounting(failure, counts)
        return counts


def selected(names: list[str]) -> list[str]:
    """``names`` as an asv run that selected some operations counts them (params.OPERATIONS_VARIABLE)."""
    chosen = os.environ.get(OPERATIONS_VARIABLE)
    return [name for name in names if name in json.loads(chosen)] if chosen else names


OPERATOR = re.compile(r"\boperator\s*(?:\(\)|<=>|<<=?|>>=?|[<>]=?|->\*?)")  # its brackets name it
BUILTIN = "builtin_"  # CPython's C functions behind Python's builtins (dir, getattr, isinstance, ...)


# KCachegrind's cycle estimate, the one that callgrind's users share (CodSpeed does not publish its weights): an
# instruction a cycle, a first-level miss 10 more and a last-level miss 100 more.
CYCLES = {"Ir": 1, "I1mr": 10, "D1mr": 10, "D1mw": 10, "ILmr": 100, "DLmr": 100, "DLmw": 100}


class Dump:
    """One callgrind dump of the main thread: its window's name, its total instructions (and with --cache-sim=yes,
    its estimated cycles, CYCLES), each function's own count, and each Python builtin's count with all the C work
    it called (``builtin_dir`` with the MRO walk and the sort)."""

    def __init__(self, path: Path):
        self.desc, self.total, self.cycles, self.functions, self.builtins = None, None, None, Counter(), Counter()
        function, after_call, events = None, False, ["Ir"]
        for line in path.read_text().splitlines():
            if line.startswith("desc: Trigger: Client Request: "):
                self.desc = line.split(": ", 3)[3]
            elif line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith(("totals:", "summary:")):
                totals = dict(zip(events, map(int, line.split()[1:]), strict=False))
                self.total = totals["Ir"]
                self.cycles = (
                    sum(CYCLES[name] * totals[name] for name in CYCLES) if CYCLES.keys() <= totals.keys() else None
                )
            elif line.startswith("fn="):
                function = function_name(line[3:])
            elif line.startswith("calls="):
                after_call = True  # the next cost line is the call's inclusive cost
            elif line[:1].isdigit():
                cost = int(line.split()[1])
                if not after_call:
                    self.functions[function] += cost
                if function.startswith(BUILTIN):
                    self.builtins[function] += cost
                after_call = False
        if self.desc is None or self.total is None:
            raise RuntimeError(f"{path} is not a callgrind dump of a window (no desc or totals line)")


def function_name(symbol: str) -> str:
    """A function as the cause names it: without callgrind's recursion level (``'2``) or its C++ parameters, which
    open at the first parenthesis outside a template's or a lambda's brackets, ``(anonymous namespace)`` and an
    operator's own brackets (``operator()``)."""
    symbol, depth = re.sub(r"'\d+$", "", symbol), 0
    for index, char in enumerate(OPERATOR.sub(lambda found: "o" * len(found[0]), symbol)):
        depth = max(0, depth + (char in "<{") - (char in ">}"))
        if char == "(" and depth == 0 and index and not symbol.startswith("(anonymous namespace)", index):
            return symbol[:index]
    return symbol


def dumps(out: Path, prefix: str = "eqxb:") -> list[Dump]:
    """The windows' dumps of the main thread (``callgrind.out.N-01``) whose name starts with ``prefix``; the final
    dump at exit is not one."""
    pattern = re.compile(rf"callgrind\.out\.\d+-{MAIN_THREAD}$")
    found = [Dump(path) for path in sorted(out.iterdir()) if pattern.search(path.name)]
    return [dump for dump in found if dump.desc.startswith(prefix)]


def window_name(name: str, twin: str, calls: int, number: int) -> str:
    return f"eqxb:{name}:{twin}:{calls}:{number}"


def median_dump(found: list[Dump]) -> Dump:
    return sorted(found, key=lambda dump: dump.total)[len(found) // 2]


def per_call(windows: dict, by_desc: dict[str, Dump]) -> dict:
    """Each twin's count of one call, from its median full and empty windows (``difference``)."""
    counts = {}
    for name, calls in windows.items():
        counts[name] = {}
        for twin in ("module", "tuple"):
            empty, full = (
                median_dump([by_desc[window_name(name, twin, n, number)] for number in range(WINDOWS)])
                for n in (0, calls)
            )
            counts[name][twin] = difference(full, empty, calls)
    return counts


def difference(full: Dump, empty: Dump, calls: int) -> dict:
    """One call's count from a window of ``calls`` calls and an empty one, in all and per function."""
    functions = Counter({f: (full.functions[f] - empty.functions[f]) / calls for f in full.functions})
    builtins = {f: (full.builtins[f] - empty.builtins[f]) / calls for f in full.builtins}
    return {
        "instructions": (full.total - empty.total) / calls,
        "functions": dict(functions.most_common(TOP_FUNCTIONS)),
        "builtins": {f: count for f, count in builtins.items() if count > 0},
    }


WARM_CALLS = 10  # Python 3.11 specializes a function's bytecode after its eighth call


def warm(twins: dict) -> dict:
    """``twins`` called until caches, lazy imports, a jitted call's compile and specialization settle."""
    for _ in range(WARM_CALLS):
        for call in twins.values():
            call()
    return twins


def repeat(call, times: int) -> None:
    """A window's calls, each result released inside it as a caller's loop releases it."""
    for _ in range(times):
        call()


def run_windows(out: Path, names: list[str]) -> None:
    """Inside valgrind: build and warm every twin, then count each one's two windows."""
    import gc

    from .instruction_ops import OPERATIONS, TWINS, build

    shim = ctypes.CDLL(os.environ[SHIM_VARIABLE])
    if not shim.eqxb_on_valgrind():
        raise SystemExit("benchmarks.callgrind counts only under valgrind (see benchmarks.callgrind.count)")
    operations, failed = {}, {}
    for name in names:
        try:
            twins = warm(build(name))
        except Exception as error:  # an operation this commit cannot run fails alone, as asv's benchmarks do
            failed[name] = f"{type(error).__name__}: {error}"
        else:
            operations[name] = twins
    gc.collect()
    gc.disable()
    shim.eqxb_instrument()
    for name, twins in operations.items():
        calls = OPERATIONS[name].calls
        for twin in TWINS:
            call = twins[twin]
            for number in range(WINDOWS):
                for n in (0, calls):
                    label = window_name(name, twin, n, number).encode()
                    shim.eqxb_zero()
                    repeat(call, n)
                    shim.eqxb_dump(label)
    windows = {name: OPERATIONS[name].calls for name in operations}
    (out / "windows.json").write_text(json.dumps({"windows": windows, "failed": failed}))


if __name__ == "__main__":
    run_windows(Path(sys.argv[1]), sys.argv[2:])
