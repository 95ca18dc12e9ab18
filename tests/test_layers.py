"""The package's import contracts (pyproject.toml's [tool.importlinter], run by scripts/lint): kept by the
package, and each broken by an import planted in a copy of it, so that none of them holds vacuously."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(package_parent: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(package_parent)}
    return subprocess.run(
        [LINT_IMPORTS, "--config", ROOT / "pyproject.toml", "--no-cache"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
    )


def test_the_package_keeps_every_contract():
    result = lint_imports(ROOT / "scripts")
    assert result.returncode == 0, result.stdout
    assert "4 kept, 0 broken" in result.stdout


PLANTED = {
    "Each layer imports only the layers beneath it": {
        "judging/planted.py": "def f():\n    from ..running import bench\n"
    },
    "asv is imported only under benchtools.asvtools": {"publishing/planted.py": "def f():\n    import asv.util\n"},
    "No command imports another": {"commands/planted.py": "from . import bench\n"},
    "No import cycle among the modules of a package": {
        "judging/planted_a.py": "from . import planted_b\n",
        "judging/planted_b.py": "def f():\n    from . import planted_a\n",
    },
}


@pytest.mark.parametrize("contract", PLANTED)
def test_a_planted_import_breaks_its_contract(tmp_path, contract):
    shutil.copytree(
        ROOT / "scripts" / "benchtools", tmp_path / "benchtools", ignore=shutil.ignore_patterns("__pycache__")
    )
    for name, source in PLANTED[contract].items():
        (tmp_path / "benchtools" / name).write_text(source)
    result = lint_imports(tmp_path)
    broken = [line for line in result.stdout.splitlines() if " BROKEN" in line]
    assert result.returncode == 1
    # An upward import between packages is also a cycle between them wherever the upper imports the lower.
    assert any(line.startswith(contract) for line in broken), result.stdout
