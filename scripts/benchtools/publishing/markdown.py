"""The report's Markdown as HTML: markdown-it-py, CommonMark with pipe tables, raw HTML off.

The report's text carries names read from stored results (releases,
environments, benchmark parameters), which code that the nightly ran could
have planted: every tag in it is written as text, a link goes only to an
https address, no image is loaded, and no attribute but a link's comes from it.
"""

from markdown_it import MarkdownIt

RENDERER = MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")
RENDERER.validateLink = lambda url: url.startswith("https://")


def markdown_html(text: str) -> str:
    """TEXT (Markdown) as HTML; a fenced block's info string, which would become a class, is dropped."""
    tokens = RENDERER.parse(text)
    for token in tokens:
        if token.type == "fence":
            token.info = ""
    return RENDERER.renderer.render(tokens, RENDERER.options, {})


def table_html(lines: list[str]) -> str:
    """A pipe table, given as its lines, as HTML."""
    return markdown_html("\n".join(lines))
