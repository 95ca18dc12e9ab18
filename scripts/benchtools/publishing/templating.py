"""The project's HTML pages, each made from a Jinja2 template in templates/, with autoescape on: a value
reaches a page escaped unless it arrives as Markup (HTML that publishing/markdown.py made safe)."""

from pathlib import Path

import jinja2

ENVIRONMENT = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,  # a value the page names but was not given is an error, not a blank
    keep_trailing_newline=True,
)


def render(template: str, **context) -> str:
    return ENVIRONMENT.get_template(template).render(**context)
