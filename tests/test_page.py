"""publishing/page.py and the pages' templates: the overhead page and the commit page, whole, against their
golden files (tests/golden.py), from fixed input; and every value reaches a page escaped."""

import json

import pytest

from benchtools.errors import BadInput
from benchtools.publishing import page, plots, site
from benchtools.publishing.rows import investigate
from tests.golden import assert_golden, fixed_rows

PLANTED = '<img src=x onerror="window.__pwned=1">'


def asv_site(folder):
    """The part of asv's index.html that the page links itself from."""
    folder.mkdir()
    (folder / "index.html").write_text(f"<ul>\n\t{page.NAV_ANCHOR}\n</ul>\n")
    return folder


def html_page(rows, html):
    """The page of ``rows`` and every operation's steps, investigated without a configuration (nothing profiled)."""
    return page.html_page(rows, investigate(rows, None), html)


def test_the_overhead_page_matches_its_golden_file_and_is_linked_from_the_site(tmp_path):
    html = asv_site(tmp_path / "html")
    written = html_page(fixed_rows(), html)
    assert written == html / "overhead" / "index.html"
    assert_golden("overhead.html", written.read_text())
    assert sorted(p.name for p in written.parent.glob("*.png")) == [
        "history-1.png",
        "history-2.png",
        "operations.png",
        "ratios.png",
        "tracing.png",
    ]
    index = (html / "index.html").read_text()
    assert index.count(page.NAV_LINK) == 1
    assert page.linked(html / "index.html") == index  # linked once


def test_a_site_without_asv_s_regressions_link_is_refused(tmp_path):
    html = tmp_path / "html"
    html.mkdir()
    (html / "index.html").write_text("<ul></ul>")
    with pytest.raises(BadInput, match="Regressions link"):
        html_page(fixed_rows(), html)
    assert not (html / "overhead").exists()  # refused before anything was drawn


def test_markup_in_a_row_reaches_the_page_as_text(tmp_path, monkeypatch):
    for drawing in ("plot", "plot_history", "plot_operations"):  # the plots are not the page's text
        monkeypatch.setattr(plots, drawing, lambda *args: [])
    html = asv_site(tmp_path / "html")
    rows = fixed_rows()
    for row in rows:
        row.label, row.env = f"{row.label}{PLANTED}", f"{row.env}{PLANTED}"
    text = html_page(rows, html).read_text()
    assert "<img src=x" not in text and "&lt;img src=x onerror=" in text


def test_the_commit_page_matches_its_golden_file_and_escapes_what_the_index_holds(tmp_path):
    index = {"revision_to_hash": {"1": "a" * 40, "2": "b" * 40}, "tags": {"v1": 1, f"v2</script>{PLANTED}": 2}}
    (tmp_path / "index.json").write_text(json.dumps(index))
    assert site.link_releases(tmp_path, "equinox") == 2
    text = (tmp_path / site.COMMIT_PAGE).read_text()
    assert_golden("commit.html", text)
    assert text.count("</script>") == 1 and "<img" not in text
    assert json.loads((tmp_path / "index.json").read_text())["show_commit_url"] == f"{site.COMMIT_PAGE}#"
