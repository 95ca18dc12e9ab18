"""The project's HTML pages, each made from a Jinja2 template in templates/, with autoescape on: a value
reaches a page escaped unless it arrives as Markup (HTML that publishing/markdown.py made safe)."""

import functools
from pathlib import Path

import jinja2

TEMPLATES = Path(__file__).parent / "templates"


@functools.cache
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,  # a value the page names but was not given is an error, not a blank
        keep_trailing_newline=True,
    )


def render(template: str, **context) -> str:
    return environment().get_template(template).render(**context)
