"""The project's HTML pages, from Jinja2 templates with autoescape on.  The report's Markdown carries names that code
the nightly ran could have planted: markdown_html writes every tag as text, links only to https, loads no image."""

from pathlib import Path

import jinja2
from markdown_it import MarkdownIt
from markupsafe import Markup

ENVIRONMENT = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,  # a value the page names but was not given is an error, not a blank
    keep_trailing_newline=True,
)
RENDERER = MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")
RENDERER.validateLink = lambda url: url.startswith("https://")


def render(template: str, **context) -> str:
    return ENVIRONMENT.get_template(template).render(**context)


def markdown_html(text: str) -> Markup:
    """TEXT (Markdown) as HTML; a fence's info string, which would become a class, is dropped."""
    tokens = RENDERER.parse(text)
    for token in tokens:
        if token.type == "fence":
            token.info = ""
        # markdown-it does not validate an empty destination (``[x]()``), a link to the page itself: kept as text.
        kept, dropping = [], False
        for child in token.children or []:
            if child.type == "link_open" and not RENDERER.validateLink(child.attrGet("href") or ""):
                dropping = True
            elif child.type == "link_close" and dropping:
                dropping = False  # CommonMark links do not nest: this closes the dropped one
            else:
                kept.append(child)
        if token.children:
            token.children = kept
    return Markup(RENDERER.renderer.render(tokens, RENDERER.options, {}))
