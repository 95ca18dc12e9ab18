"""benchtools/errors.py: the exit codes, as docs/exit-codes.md documents them."""

import re

from benchtools.errors import ExitCode
from tests.helpers import ROOT


def test_the_documented_table_is_the_declared_exit_codes():
    documented = (ROOT / "docs" / "exit-codes.md").read_text()
    rows = re.findall(r"^\| (\d) \| ([A-Z_]+) \|", documented, re.M)
    assert [(int(code), name) for code, name in rows] == [(int(c), c.name) for c in ExitCode]
