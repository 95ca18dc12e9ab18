"""The generated blocks of Markdown files: what a measuring script writes, between its two markers.

A block named NAME lies between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->``,
each on a line of its own; the script that measures its figures rewrites it
(README.md's summary, docs/answer.md, docs/cost-metric.md, docs/detector.md),
so that no measured figure is typed by hand.
"""

import re
from pathlib import Path

from .. import util
from ..errors import BadInput


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def check_holds(path: Path, name: str) -> None:
    """BadInput unless PATH holds the block NAME: checked before a long run that will write it."""
    if not path.is_file():
        raise BadInput(f"{path}: no such file")
    start, end = markers(name)
    if not re.search(re.escape(start) + ".*?" + re.escape(end), path.read_text(encoding="utf-8"), re.S):
        raise BadInput(f"{path} has no block to write: it needs {start} ... {end}")


def write_blocks(path: Path, bodies: dict[str, object]) -> list[str]:
    """Rewrite each block of ``bodies`` (name: text, or a function giving it) that PATH holds; the names written.

    BadInput, PATH unchanged, when it holds none of them.
    """
    if not path.is_file():
        raise BadInput(f"{path}: no such file")
    text = path.read_text(encoding="utf-8")
    written = []
    for name, body in bodies.items():
        start, end = markers(name)
        found = re.search(re.escape(start) + ".*?" + re.escape(end), text, re.S)
        if found:
            content = body() if callable(body) else body
            text = text[: found.start()] + f"{start}\n\n{content.strip()}\n\n{end}" + text[found.end() :]
            written.append(name)
    if not written:
        wanted = " or ".join(f"{markers(name)[0]} ... {markers(name)[1]}" for name in bodies)
        raise BadInput(f"{path} has no block to write: it needs {wanted}")
    util.write_atomic(path, text.encode("utf-8"))
    return written
