"""The generated blocks of Markdown files: written by the script that measures their figures."""

import re
from pathlib import Path

from .. import util
from ..errors import BadInput


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def write_blocks(path: Path, bodies: dict[str, object], write: bool = True) -> list[str]:
    """Rewrite each block of BODIES (name: text, or a function) that PATH holds; WRITE false only checks."""
    if not path.is_file():
        raise BadInput(f"{path}: no such file")
    text = path.read_text(encoding="utf-8")
    written = []
    for name, body in bodies.items():
        start, end = markers(name)
        found = re.search(re.escape(start) + ".*?" + re.escape(end), text, re.S)
        written += [name] if found else []
        if found and write:
            content = (body() if callable(body) else body).strip()
            text = text[: found.start()] + f"{start}\n\n{content}\n\n{end}" + text[found.end() :]
    if not written:
        wanted = " or ".join(" ... ".join(markers(name)) for name in bodies)
        raise BadInput(f"{path} has no block to write: it needs {wanted}")
    if write:
        util.write_atomic(path, text.encode("utf-8"))
    return written
