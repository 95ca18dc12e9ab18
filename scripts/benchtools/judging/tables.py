"""The one way judging writes a Markdown table."""

from collections.abc import Iterable, Sequence


def table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    """A Markdown table's lines, each cell as given.  Not tabulate's: it pads every cell to its column's widest,
    which would multiply a pull request comment's bytes (a cause's cell runs to pr_render.CELL characters)."""
    return [line(header), "|" + "---|" * len(header), *map(line, rows)]


def line(cells: Sequence[object]) -> str:
    return "| " + " | ".join(map(str, cells)) + " |"
