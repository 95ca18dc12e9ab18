"""scripts/mutants' work: mutmut over the verdict modules, one at a time; equivalent survivors are judged in REASONS."""

import collections
import contextlib
import json
import os
import shutil
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


def markdown(record: dict, why: dict[str, str]) -> str:
    rows = [
        [f"`{module}`", *(entry.get(name, 0) for name in ("made", *COUNTED, "other")), f"{score(entry, why):.0%}"]
        for module, entry in record["modules"].items()
    ]
    header = [
        "module",
        "mutants",
        "killed",
        "survived",
        "timed out",
        "no test ran it",
        "not run",
        "crashed or other",
        "killed of the non-equivalent",
    ]
    survivors = [
        [f"`{name.removeprefix(module.removesuffix('.py').replace('/', '.') + '.')}`", f"`{mutation}`"]
        + [why.get(name, "**not judged**: a hole, or equivalent")]
        for module, entry in record["modules"].items()
        for name, mutation in entry["survivors"].items()
    ]
    survived = util.markdown_table(["mutant", "mutation", "why it survives"], survivors) if survivors else "None."
    return f"{util.markdown_table(header, rows)}\n\nEvery mutant a test did not kill:\n\n{survived}"


def read(path: Path) -> dict:
    return json.loads(path.read_text()) if path.is_file() else {"modules": {}}
