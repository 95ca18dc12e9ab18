"""The package's layers: each module imports only its own layer or those beneath, and no import cycle.

Read from the source with ``ast``, so the test holds for imports inside
functions too, which a runtime check would miss.
"""

import ast
from pathlib import Path

from tests.helpers import ROOT

PACKAGE = ROOT / "scripts" / "benchtools"
# From the bottom up.  A module's layer is its subpackage's, or its own name's at the top level.
LAYERS = (
    ("project", "errors"),
    ("util", "git", "settings"),
    ("asvtools",),
    ("history",),
    ("judging",),
    ("publishing",),
    ("running",),
    ("trial",),
    ("cli", "commands", "__main__"),
)


def module_name(package: Path, path: Path) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def graph(package: Path) -> dict[str, set[str]]:
    """{module: the package's modules it imports, anywhere in it}, of the package in folder ``package``."""
    modules = {module_name(package, path): path for path in package.rglob("*.py")}
    edges = {}
    for name, path in modules.items():
        here = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                parts = here.split(".")
                base = parts[: len(parts) - node.level + 1] if node.level else []
                module = ".".join(base + ([node.module] if node.module else []))
                # `from pkg import mod` imports the module pkg.mod where there is one.
                found |= {f"{module}.{a.name}" if f"{module}.{a.name}" in modules else module for a in node.names}
        edges[name] = {m for m in found if m in modules and m not in (name, package.name)}
    return edges


def layer(name: str) -> int:
    parts = name.split(".")
    key = parts[1] if len(parts) > 1 else "__init__"
    return next((index for index, members in enumerate(LAYERS) if key in members), -1)


def upward(edges: dict[str, set[str]]) -> list[tuple[str, str]]:
    return sorted((name, other) for name, others in edges.items() for other in others if layer(other) > layer(name))


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    seen, on_path, found = set(), [], []

    def visit(name):
        if name in on_path:
            found.append(on_path[on_path.index(name) :] + [name])
        elif name not in seen:
            seen.add(name)
            on_path.append(name)
            for other in sorted(edges[name]):
                visit(other)
            on_path.pop()

    for name in sorted(edges):
        visit(name)
    return found


def test_every_module_has_a_layer():
    assert [name for name in graph(PACKAGE) if name != "benchtools" and layer(name) < 0] == []


def test_no_module_imports_a_layer_above_its_own():
    assert upward(graph(PACKAGE)) == []


def test_there_is_no_import_cycle():
    assert cycles(graph(PACKAGE)) == []


def test_no_command_imports_another_but_the_shared_options_and_only_the_door_imports_cli():
    for name, others in graph(PACKAGE).items():
        if name.startswith("benchtools.commands."):
            assert {o for o in others if o.startswith("benchtools.commands.")} <= {"benchtools.commands.common_args"}
        if name != "benchtools.__main__":
            assert "benchtools.cli" not in others, name


def test_the_checks_find_an_upward_import_and_a_cycle_inside_a_function(tmp_path):
    assert graph(PACKAGE)["benchtools.commands.regressions"] >= {"benchtools.judging.gate"}
    planted = tmp_path / "benchtools"
    for folder in (planted / "judging", planted / "running"):
        folder.mkdir(parents=True)
        (folder / "__init__.py").write_text("")
    (planted / "__init__.py").write_text("")
    (planted / "judging" / "a.py").write_text("from . import b\n\n\ndef f():\n    from ..running import c\n")
    (planted / "judging" / "b.py").write_text("from benchtools.judging import a\n")
    (planted / "running" / "c.py").write_text("from ..judging import b\n")
    edges = graph(planted)
    assert upward(edges) == [("benchtools.judging.a", "benchtools.running.c")]
    assert cycles(edges) == [["benchtools.judging.a", "benchtools.judging.b", "benchtools.judging.a"]]
