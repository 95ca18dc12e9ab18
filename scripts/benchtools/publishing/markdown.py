"""The report's own Markdown (headings, pipe tables, bullets, paragraphs, code spans) as HTML, every text escaped.

Not Python-Markdown: it passes raw HTML through, and the report's text
carries names read from stored results (releases, environments, benchmark
parameters), which code that the nightly ran could have planted.
"""

import html
import re

# A link's target: https only, and none of the characters that could leave the attribute or start a script.
LINK = re.compile(r"\[([^\]]+)\]\((https://[A-Za-z0-9./_#%?=~+-]+)\)")


def inline_html(text: str) -> str:
    escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))
    return LINK.sub(r"<a href='\2'>\1</a>", escaped)


def table_cells(line: str) -> list[str]:
    """The cells of a pipe-table row; a cell's own pipe is written ``\\|``."""
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def markdown_html(text: str) -> str:
    """The report's own Markdown (headings, pipe tables, bullets, paragraphs) as HTML."""
    parts, table, bullets = [], [], []

    def flush():
        if table:
            parts.append(table_html(table))
            table.clear()
        if bullets:
            parts.append("<ul>" + "".join(f"<li>{inline_html(b)}</li>" for b in bullets) + "</ul>")
            bullets.clear()

    for line in text.splitlines():
        if line.startswith("|"):
            table.append(line)
            continue
        if line.startswith("- "):
            bullets.append(line[2:])
            continue
        flush()
        heading = re.match(r"^(#{1,6}) (.*)$", line)
        if heading:
            level = len(heading[1])
            parts.append(f"<h{level}>{inline_html(heading[2])}</h{level}>")
        elif line.strip():
            parts.append(f"<p>{inline_html(line)}</p>")
    flush()
    return "\n".join(parts)


def table_html(markdown_table: list[str]) -> str:
    rows = [[inline_html(cell) for cell in table_cells(line)] for line in markdown_table if not line.startswith("|---")]
    head, body = rows[0], rows[1:]
    return (
        "<table><tr>"
        + "".join(f"<th>{c}</th>" for c in head)
        + "</tr>"
        + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in body)
        + "</table>"
    )
