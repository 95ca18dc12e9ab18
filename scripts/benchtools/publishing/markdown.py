"""The report's Markdown as HTML.  Its text carries names read from stored results, which code the nightly ran
could have planted: every tag in it is written as text, a link goes only to an https address, no image is
loaded, and no attribute but a link's comes from it."""

from markdown_it import MarkdownIt

RENDERER = MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")
RENDERER.validateLink = lambda url: url.startswith("https://")


def markdown_html(text: str) -> str:
    """TEXT (Markdown) as HTML; a fenced block's info string, which would become a class, is dropped."""
    tokens = RENDERER.parse(text)
    for token in tokens:
        if token.type == "fence":
            token.info = ""
        # markdown-it asks validateLink only of a destination it read: an empty one (``[x]()``, ``[x]( )``)
        # becomes a link to "", which a browser opens as the page itself.  Such a link is reduced to its text.
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
    return RENDERER.renderer.render(tokens, RENDERER.options, {})
