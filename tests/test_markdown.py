"""benchtools/publishing/templating.py: the report's Markdown as HTML, with no tag, script or link planted in its text.

The HTML is read back with the standard library's parser, so the checks are
of the elements and attributes a browser would build, not of the wording.
"""

from html.parser import HTMLParser

from hypothesis import example, given, settings
from hypothesis import strategies as st

from benchtools.publishing.templating import markdown_html
from benchtools.util import markdown_table

# The elements the report's Markdown makes: headings, paragraphs, lists, pipe tables, code spans, links.
ALLOWED = {"h1", "h2", "h3", "h4", "h5", "h6", "p", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td"}
ALLOWED |= {"code", "a", "em", "strong", "pre", "blockquote", "hr", "br"}
PLANTED = [
    "<script>window.__pwned=1</script>",
    '<img src=x onerror="window.__pwned=1">',
    "<a href='javascript:alert(1)'>x</a>",
    "[x](javascript:alert(1))",
    "[x](http://example.org)",
    "[x]()",
    "[ ]( )",
    "[x][empty]\n\n[empty]: <>",
    "[x](data:text/html,<script>alert(1)</script>)",
    "![x](https://example.org/pixel.png)",
    "<https://example.org>",
    '"><svg onload=alert(1)>',
    "```<script>window.__pwned=1</script>\ncode\n```",
]


class Elements(HTMLParser):
    """Every element of a piece of HTML, as (tag, {attribute: value}), and its text."""

    def __init__(self, text: str):
        super().__init__()
        self.found, self.text = [], []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def tags(self) -> list[str]:
        return [tag for tag, _ in self.found]


def assert_safe(html: str) -> Elements:
    parsed = Elements(html)
    assert set(parsed.tags()) <= ALLOWED, parsed.found
    for tag, attrs in parsed.found:
        assert set(attrs) <= ({"href"} if tag == "a" else {"style"} if tag in ("th", "td") else set()), (tag, attrs)
        assert tag != "a" or attrs["href"].startswith("https://"), attrs
    return parsed


def test_the_report_s_markdown_becomes_its_elements():
    parsed = assert_safe(
        markdown_html(
            "# Title\n\nA paragraph with `code` and [a link](https://github.com/patrick-kidger/equinox/pull/1).\n\n"
            "- one\n- two\n\n| a | b |\n|---|---|\n| x \\| y | 2 |\n"
        )
    )
    assert parsed.tags() == ["h1", "p", "code", "a", "ul", "li", "li", "table", "thead", "tr", "th", "th"] + [
        "tbody",
        "tr",
        "td",
        "td",
    ]
    assert ("a", {"href": "https://github.com/patrick-kidger/equinox/pull/1"}) in parsed.found
    assert "x | y" in parsed.text  # a cell's own pipe stays in its cell


def test_a_table_given_as_lines_is_one_table():
    parsed = assert_safe(markdown_html(markdown_table(["environment", "commit"], [["e", "`<b>`"]])))
    assert parsed.tags().count("table") == 1 and parsed.tags().count("tr") == 2
    assert "<b>" in parsed.text  # shown as text, not made an element


def test_planted_markup_stays_text_and_no_link_leaves_https():
    for planted in PLANTED:
        for text in (planted, f"# {planted}", f"- {planted}", f"| {planted} |\n|---|\n| {planted} |"):
            parsed = assert_safe(markdown_html(text))
            assert "img" not in parsed.tags() and "script" not in parsed.tags(), (text, parsed.found)


# Each example is a text that Hypothesis once found to make an element or link the report does not.
@example(["[", "](", ")"])
@given(st.lists(st.sampled_from([*PLANTED, "# ", "- ", "|", "---", "\n", "`", "[", "](", ")", "a", " ", "<", "&"])))
def test_no_text_makes_an_element_or_link_the_report_does_not(parts):
    assert_safe(markdown_html("".join(parts)))


def test_property_tests_draw_the_same_examples_every_run():
    """tests/conftest.py's profile: a property test that passed once passes again (CI, a fresh clone)."""
    assert settings.default.derandomize and settings.default.database is None
