"""Every module, name and file that the code's comments and docstrings cite is there.

A citation is a dotted name under one of the project's packages or asv's
(``benchtools.judging.gate``, ``benchmarks.metrics.CALL_WEIGHT``,
``asv.runner.get_spawner``), a benchmark of the suite (``bench_counts.PythonCost``),
or a path of the repository (``publishing/page.py``, ``docs/gate.md``),
which may start at the repository, at ``scripts/`` or at
``scripts/benchtools/`` (or, for ``asv/``, at asv's install).  The tools' and
the suite's other strings are read too (a page's script carries a comment);
the tests' are their data.  The project's names are found in the source with
``ast`` (nothing is imported, so the suite needs no JAX here); asv's by
importing them.  A part in capitals (``commands.NAME``) is a placeholder.
"""

import ast
import functools
import importlib
import io
import re
import tokenize
from pathlib import Path

import asv
import pytest

from tests.helpers import ROOT

SOURCES = sorted(
    path
    for folder in ("scripts/benchtools", "benchmarks", "tests")
    for path in (ROOT / folder).rglob("*.py")
    if "__pycache__" not in path.parts
)
OWN = ("benchtools", "benchmarks", "tests")
DOTTED = re.compile(r"(?<![\w./-])((?:benchtools|benchmarks|tests|asv|asv_runner)(?:\.\w+)+|bench_\w+(?:\.\w+)+)")
PATH = re.compile(r"(?<![\w./{-])((?:[\w-]+/)+[\w-]+\.(?:py|md|c))\b")
# File names that look dotted: asv's configurations and benchmarks.json.
FILE_SUFFIX = re.compile(r"\.(json|py|md|c|txt|yml|yaml|html|xml|toml|lock|log)$")
# Paths of other repositories: Equinox's sources, and what an asv environment or a pull request holds.
FOREIGN = ("equinox/", "jax/", "site-packages/")
PATH_ROOTS = (ROOT, ROOT / "scripts", ROOT / "scripts" / "benchtools", Path(asv.__file__).parents[1])
PLACEHOLDER = re.compile(r"(^|[./])[A-Z][A-Z_]*([./]|$)")


def texts(path: Path):
    """(line, text) of every comment and docstring of a source file, and of the tools' and the suite's other
    string constants; f-strings' pieces are left out."""
    source = path.read_text(encoding="utf-8")
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    tree = ast.parse(source, str(path))
    documented = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, documented) and node.body and isinstance(node.body[0], ast.Expr)
    }
    pieces = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    every_string = not path.is_relative_to(ROOT / "tests")
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in pieces:
            if every_string or id(node) in docstrings:
                yield node.lineno, node.value


@functools.cache
def module_file(dotted: str) -> Path | None:
    """The source file of one of the project's modules or packages, by its dotted name."""
    base = ROOT / "scripts" if dotted.split(".")[0] == "benchtools" else ROOT
    parts = dotted.split(".")
    for candidate in (base.joinpath(*parts).with_suffix(".py"), base.joinpath(*parts, "__init__.py")):
        if candidate.is_file():
            return candidate
    return None


@functools.cache
def defined(path: Path) -> dict[str, set[str]]:
    """{name defined at the top of a module: the names defined in it, for a class}."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = {}

    def names_of(body) -> dict[str, ast.AST | None]:
        names = {}
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names[node.name] = node
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name):
                            names[name.id] = None
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    names[(alias.asname or alias.name).split(".")[0]] = None
            elif isinstance(node, (ast.If, ast.Try, ast.With)):
                names.update(names_of(node.body))
        return names

    for name, node in names_of(tree.body).items():
        members = set()
        if isinstance(node, ast.ClassDef):
            members = set(names_of(node.body))
            for base in node.bases:  # a benchmark class inherits its parent's methods, in the same module
                if isinstance(base, ast.Name):
                    members |= {"*"}
        found[name] = members
    return found


def own_name_resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        path = module_file(".".join(parts[:cut]))
        if path is None:
            continue
        rest = parts[cut:]
        if not rest:
            return True
        names = defined(path)
        if rest[0].startswith("__"):  # a module's own attribute (__path__, __doc__)
            return True
        if rest[0] not in names:
            return module_file(".".join(parts[: cut + 1])) is not None
        return len(rest) == 1 or "*" in names[rest[0]] or rest[1] in names[rest[0]]
    return False


def foreign_name_resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            if isinstance(found, type) and part.startswith("_"):  # a private method: in the class's source
                return any(part in vars(klass) for klass in found.__mro__)
            if not hasattr(found, part):
                try:
                    found = importlib.import_module(f"{found.__name__}.{part}")
                except (ImportError, AttributeError):
                    return False
            else:
                found = getattr(found, part)
        return True
    return False


def resolves(citation: str) -> bool:
    if "/" in citation:
        return any((base / citation).exists() for base in PATH_ROOTS)
    if citation.startswith("bench_"):
        return own_name_resolves(f"benchmarks.{citation}")
    if citation.split(".")[0] in OWN:
        return own_name_resolves(citation)
    return foreign_name_resolves(citation)


def citations(path: Path):
    for line, text in texts(path):
        for match in DOTTED.finditer(text):
            name = match[1].rstrip(".")
            if not FILE_SUFFIX.search(name) and not PLACEHOLDER.search(name):
                yield line, name
        for match in PATH.finditer(text):
            if not match[1].startswith(FOREIGN) and not PLACEHOLDER.search(match[1]):
                yield line, match[1]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_citation_resolves(path):
    stale = [f"{path.relative_to(ROOT)}:{line}: {cited}" for line, cited in citations(path) if not resolves(cited)]
    assert stale == []


@pytest.mark.parametrize(
    "cited, there",
    [
        ("benchtools.judging.gate", True),
        ("benchtools.judging.gate.no_such_function", False),
        ("benchtools.site", False),
        ("benchmarks.metrics.CALL_WEIGHT", True),
        ("bench_counts.PythonCost", True),
        ("bench_counts.NoSuchBenchmark", False),
        ("asv.runner.get_spawner", True),
        ("asv.runner.no_such_function", False),
        ("asv.plugins.regressions._GraphDataFilter._get_threshold", True),
        ("asv.plugins.regressions.Regressions._get_threshold", False),
        ("benchmarks.__path__", True),
        ("asv/main.py", True),
        ("publishing/page.py", True),
        ("benchtools/site.py", False),
        ("docs/gate.md", True),
    ],
)
def test_a_citation_resolves_only_when_it_is_there(cited, there):
    assert resolves(cited) is there
