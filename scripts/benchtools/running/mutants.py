"""scripts/mutants' work: mutmut over the verdict modules, one at a time, and a second engine of the slips that mutmut
does not make; equivalent survivors are judged in REASONS."""

import ast
import collections
import contextlib
import copy
import hashlib
import json
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

from .. import util
from ..errors import Failed
from ..project import ROOT, VENV

# mutmut runs in STAGE, where benchtools/ lies at the top; the tests run in STAGE/mutants. Both link every entry of the
# project but its git repository, so that the package's ROOT and the tests' read the project's files, and a mutant that
# runs git where it stands (init, clean -fdx, reset --hard, a history written) finds no repository there, nor above
# STAGE, and can make none: their .git leads where no folder is, which git init cannot make.
STAGE = ROOT / ".cache" / "mutants"
UNLINKED = (".cache", ".git")
NO_REPOSITORY = STAGE / ".no-repository" / "here"
RECORD = ROOT / "docs" / "mutants.json"
REASONS = ROOT / "docs" / "mutants.toml"  # {mutant: why it is equivalent}
BLOCK = "mutants"
# mutmut's statuses (any other is "other"); "not checked": a run stopped before that mutant's turn
COUNTED = ("killed", "survived", "timeout", "no tests", "not checked")
# A worker whose test run raised (a broken stage, not a killed mutant) exits 255, which mutmut files as a time-out.
CRASHED = 255
SLIP_STAGE = STAGE.parent / "slips"  # a copy of the code and the tests, the rest linked, no repository
# Its slips would run git where a dropped call leaves them (docs/mutants.md): mutmut alone mutates it.
SLIPLESS = ("benchtools/history/release_history.py",)
SLIP_SECONDS = 300  # a slip's tests that run longer are a time-out, which kills as mutmut's do


def call_of(node, *names: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names


# The second engine's mutations: the slips a developer makes that mutmut's operators do not (a review found each).
SLIPS = {
    "min ↔ max": lambda n: (
        call_of(n, "min", "max")
        and ast.Call(ast.Name({"min": "max", "max": "min"}[n.func.id], ast.Load()), n.args, n.keywords)
    ),
    "ceil(a / b) → a // b": lambda n: (
        isinstance(n, ast.Call)
        and ast.unparse(n.func) == "math.ceil"
        and isinstance(n.args[0], ast.BinOp)
        and isinstance(n.args[0].op, ast.Div)
        and ast.BinOp(n.args[0].left, ast.FloorDiv(), n.args[0].right)
    ),
    "a call's statement dropped": lambda n: isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and ast.Pass(),
    "two names passed swapped": lambda n: (
        isinstance(n, ast.Call)
        and not call_of(n, "min", "max")  # whose order is no slip
        and len(n.args) == 2
        and all(isinstance(a, ast.Name) for a in n.args)
        and n.args[0].id != n.args[1].id
        and ast.Call(n.func, n.args[::-1], n.keywords)
    ),
    "a pair returned swapped": lambda n: (
        isinstance(n, ast.Return)
        and isinstance(n.value, ast.Tuple)
        and len(n.value.elts) == 2
        and ast.Return(ast.Tuple(n.value.elts[::-1], ast.Load()))
    ),
    "a range's end one further": lambda n: (
        call_of(n, "range") and ast.Call(n.func, [*n.args[:-1], ast.BinOp(n.args[-1], ast.Add(), ast.Constant(1))], [])
    ),
}


class Slip(ast.NodeTransformer):
    """Makes the ``at``-th of the slips ``make`` finds (all are counted in ``found``), and notes where and what."""

    def __init__(self, make, at: int = -1):
        self.make, self.at, self.found, self.where, self.change = make, at, 0, "", ""

    def visit(self, node):
        node, made = self.generic_visit(node), self.make(node)
        self.found += bool(made)
        if not made or self.found - 1 != self.at:
            return node
        self.where, self.change = f"{node.lineno}:{node.col_offset}", f"{ast.unparse(node)} → {ast.unparse(made)}"
        return ast.copy_location(made, node)


def slips(source: str) -> list[tuple[str, str, str, str]]:
    """Each slip of ``source``: (what, its line:column, the code it changes → what it makes, the module with it)."""
    tree, found = ast.parse(source), []
    for what, make in SLIPS.items():
        (counted := Slip(make)).visit(copy.deepcopy(tree))
        for at in range(counted.found):
            mutated = ast.fix_missing_locations((slip := Slip(make, at)).visit(copy.deepcopy(tree)))
            found.append((what, slip.where, slip.change, ast.unparse(mutated)))
    return found


def function_at(tree: ast.Module, line: int, dotted: str) -> str:
    """mutmut's name of the function or method that holds ``line``: its tests are those mutmut found calling it."""
    for node in tree.body:
        methods = node.body if isinstance(node, ast.ClassDef) else [node]
        for method in methods:
            if (
                isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef)
                and method.lineno <= line <= method.end_lineno
            ):
                inside = f"xǁ{node.name}ǁ{method.name}" if method is not node else f"x_{method.name}"
                return f"{dotted}.{inside}"
    return ""


def slip_stage() -> None:
    shutil.rmtree(SLIP_STAGE, ignore_errors=True)
    SLIP_STAGE.mkdir(parents=True)
    for entry in ROOT.iterdir():
        if entry.name in ("scripts", "benchmarks", "tests"):
            shutil.copytree(entry, SLIP_STAGE / entry.name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        elif entry.name not in UNLINKED:
            (SLIP_STAGE / entry.name).symlink_to(entry)
    (SLIP_STAGE / ".git").symlink_to(NO_REPOSITORY)


def run_slips(module: str) -> dict:
    """Each slip of ``module`` in SLIP_STAGE, against the fast tests that mutmut found calling its function, quickest
    first: the same counts and survivors as ``counted``'s."""
    stats_path = STAGE / "mutants" / "mutmut-stats.json"
    if not stats_path.is_file():
        raise Failed(f"{stats_path}: no mutmut run here to say which tests call each function (run scripts/mutants)")
    stats = json.loads(stats_path.read_text())
    path = SLIP_STAGE / ("scripts" if module.startswith("benchtools/") else "") / module
    source, counts, survivors = path.read_text(), collections.Counter(), {}
    dotted = module.removesuffix(".py").replace("/", ".")
    by_function = stats["tests_by_mangled_function_name"]
    # mutmut traces no decorated function (a property, a cached one) and no module-level code: every test that calls
    # the module runs theirs
    of_module = {test for name, tests in by_function.items() if name.startswith(f"{dotted}.") for test in tests}
    try:
        for what, where, change, mutated in slips(source):
            function = function_at(ast.parse(source), int(where.split(":")[0]), dotted)
            tests = sorted(by_function.get(function) or of_module, key=stats["duration_by_test"].get)
            name = f"{dotted}.{where}: {what}"
            if not tests:
                counts["no tests"] += 1
                continue
            path.write_text(mutated)
            command = [VENV / "bin" / "python", "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
            try:
                ran = subprocess.run(
                    command, cwd=SLIP_STAGE, env=environment(), capture_output=True, timeout=SLIP_SECONDS
                )
            except subprocess.TimeoutExpired:
                counts["timeout"] += 1
                continue
            status = "survived" if ran.returncode == 0 else "killed" if ran.returncode == 1 else "other"
            counts[status] += 1
            survivors |= {name: change} if status == "survived" else {}
    finally:
        path.write_text(source)
    found = {"made": sum(counts.values()), **{key: counts[key] for key in (*COUNTED, "other")}, "survivors": survivors}
    return found | {"source": hashlib.sha256(source.encode()).hexdigest()}


def source_digest(module: str) -> str | None:
    """The digest of ``module``'s code as it is now, which a run records of the code it mutated; None where it is
    gone."""
    path = ROOT / ("scripts" if module.startswith("benchtools/") else "") / module
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def modules() -> list[str]:
    """The modules mutated, as STAGE names them (benchtools/judging/bisect.py), in [tool.mutmut]'s order."""
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]["only_mutate"]
    wanted = [ROOT / "scripts" / name if name.startswith("benchtools/") else ROOT / name for name in patterns]
    found = [path for pattern in wanted for path in sorted(pattern.parent.glob(pattern.name))]
    return [stage_name(path) for path in found if path.suffix == ".py" and path.name != "__init__.py"]


def stage_name(path: Path) -> str:
    return str(path.resolve()).removeprefix(f"{ROOT}/").removeprefix("scripts/")


def stage() -> None:
    # asv's linked configuration puts environments in the project's .asv: the stage links it even before a run makes it
    (ROOT / ".asv").mkdir(exist_ok=True)
    links = {entry.name: entry for entry in ROOT.iterdir() if entry.name not in UNLINKED}
    made_by_mutmut = {"tests", "benchmarks", "pyproject.toml"}  # copied into STAGE/mutants, mutated or not
    for folder, names in ((STAGE, {*links, "benchtools"}), (STAGE / "mutants", set(links) - made_by_mutmut)):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / ".git").unlink(missing_ok=True)  # made anew: an earlier stage linked the project's
        (folder / ".git").symlink_to(NO_REPOSITORY)
        for name in names - {path.name for path in folder.iterdir()}:
            (folder / name).symlink_to(links.get(name, ROOT / "scripts" / "benchtools"))
    # mutmut copies what it finds once and never removes a copy: a module the project deleted would still be
    # imported, and a data file it changed (benchmarks/instruction_spread.json) read as it was.
    for copied, source in (("benchtools", ROOT / "scripts" / "benchtools"), ("benchmarks", ROOT / "benchmarks")):
        for path in (STAGE / "mutants" / copied).rglob("*.py"):
            if not (source / path.relative_to(STAGE / "mutants" / copied)).exists():
                path.unlink()
        for path in source.rglob("*"):
            staged = STAGE / "mutants" / copied / path.relative_to(source)
            if path.is_file() and path.suffix not in (".py", ".pyc") and staged.parent.is_dir():
                shutil.copyfile(path, staged)


def run(module: str, max_children: int, names: list[str] | None = None) -> dict:
    """Mutate ``module`` (or only the mutants ``names``) and run the tests: its counts, and each survivor's mutation."""
    names = names or [module.removesuffix(".py").replace("/", ".") + ".*"]
    command = [VENV / "bin" / "mutmut", "run", "--max-children", str(max_children), *names]
    if (done := util.run(command, cwd=STAGE, env=environment())).returncode != 0:
        raise Failed(f"mutmut run {' '.join(names)} exited {done.returncode}")
    return counted(module)


def environment() -> dict[str, str]:
    """mutmut's: git, wherever a mutant runs it in the stage, looks for no repository above STAGE."""
    return {**os.environ, "GIT_CEILING_DIRECTORIES": str(STAGE.parent)}


def counted(module: str) -> dict:
    from mutmut.mutation.diff_apply import get_diff_for_mutant
    from mutmut.stats import status_by_exit_code

    codes = json.loads((STAGE / "mutants" / f"{module}.meta").read_text())["exit_code_by_key"]
    status = {name: "crashed" if code == CRASHED else status_by_exit_code[code] for name, code in codes.items()}
    counts = collections.Counter(found if found in COUNTED else "other" for found in status.values())
    with contextlib.chdir(STAGE):  # where mutmut finds mutants/
        diffs = {name: get_diff_for_mutant(name, path=module) for name in status if status[name] == "survived"}
    survivors = {name: one_line(diff) for name, diff in sorted(diffs.items())}
    return {"made": len(status), **{name: counts[name] for name in (*COUNTED, "other")}, "survivors": survivors}


def rerun(entry: dict, again: dict) -> dict:
    """A module's ``entry`` with its survivors' new results from ``again``, a run of them alone: mutmut counts every
    other mutant of a fresh stage "not checked"."""
    merged = {name: entry.get(name, 0) + again.get(name, 0) for name in (*COUNTED, "other") if name != "not checked"}
    merged["survived"] -= len(entry["survivors"])
    return entry | merged | {"survivors": again["survivors"]}


def one_line(diff: str) -> str:
    lines = diff.splitlines()[2:]  # past the diff's two file names
    changed = [" ".join(line[1:].split()).replace("|", "\\|") for line in lines if line[:1] in "-+"]
    return " → ".join(changed) or "no line changed"


def score(entry: dict, reasons: dict[str, str]) -> float:
    """The share of the mutants run and not judged equivalent that a test killed (a time-out kills)."""
    judged = entry["made"] - entry.get("not checked", 0) - sum(name in reasons for name in entry["survivors"])
    return (entry["killed"] + entry["timeout"]) / judged if judged else 1.0


def reasons() -> dict[str, str]:
    return tomllib.loads(REASONS.read_text()) if REASONS.is_file() else {}


EARLIER = " (earlier code)"  # a row of a run of other code than today's, or of one that recorded none
EQUIVALENT_MARK = "pytest.mark.equivalent"  # a test's mark naming the judged mutants it shows equivalent


def shown(tests: Path = ROOT / "tests") -> dict[str, str]:
    """Each judged mutant's test that shows it equivalent (``@pytest.mark.equivalent(NAME, ...)``), by its name."""
    found = {}
    for path in sorted(tests.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            marks = getattr(node, "decorator_list", []) if isinstance(node, ast.FunctionDef) else []
            for mark in (mark for mark in marks if isinstance(mark, ast.Call)):
                if ast.unparse(mark.func) != EQUIVALENT_MARK:
                    continue
                if not all(isinstance(arg, ast.Constant) and isinstance(arg.value, str) for arg in mark.args):
                    raise Failed(f"{path}: {node.name}'s {EQUIVALENT_MARK} names a mutant by no literal string")
                found |= {arg.value: f"{tests.name}/{path.name}::{node.name}" for arg in mark.args}
    return found


ENGINES = {"modules": "mutmut", "slips": "The second engine: a developer's slips (SLIPS in running/mutants.py)"}


def markdown(record: dict, why: dict[str, str], tests: dict[str, str]) -> str:
    return "\n\n".join(
        f"### {title}\n\n{engine_markdown(record[key], why, tests)}"
        for key, title in ENGINES.items()
        if record.get(key)
    )


def engine_markdown(modules: dict, why: dict[str, str], tests: dict[str, str]) -> str:
    rows = [
        [f"`{module}`" + EARLIER * (entry.get("source") != source_digest(module))]
        + [*(entry.get(name, 0) for name in ("made", *COUNTED, "other")), f"{score(entry, why):.0%}"]
        for module, entry in modules.items()
    ]
    header = ["module", "mutants", "killed", "survived", "timed out", "no test ran it", "not run", "crashed or other"]
    survivors = [
        [f"`{name.removeprefix(module.removesuffix('.py').replace('/', '.') + '.')}`", f"`{mutation}`"]
        + [f"{why[name]}; shown by `{tests[name]}`" if name in tests else why.get(name, "**not judged**: a hole")]
        for module, entry in modules.items()
        for name, mutation in entry["survivors"].items()
    ]
    survived = util.markdown_table(["mutant", "mutation", "why it survives"], survivors) if survivors else "None."
    table = util.markdown_table([*header, "killed of the non-equivalent"], rows)
    judged = [name for entry in modules.values() for name in entry["survivors"] if name in why]
    evidence = f"{sum(name in tests for name in judged)} of the {len(judged)} judged equivalent are shown by a test"
    return f"{table}\n\nEvery mutant a test did not kill ({evidence}):\n\n{survived}"


def read(path: Path) -> dict:
    return json.loads(path.read_text()) if path.is_file() else {"modules": {}}
