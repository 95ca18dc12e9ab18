"""The published site, opened over HTTP in a real headless Chromium (Debian's), driven by Playwright."""

import functools
import json
import re
import shutil
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import sync_playwright

from benchmarks import metrics
from benchtools.publishing import plots as report_plots
from benchtools.publishing import rows as report_rows
from benchtools.publishing import site as site_tools
from tests.asv_sites import (
    COST,
    COUNT,
    MACHINE,
    PASSES,
    RATIO,
    ROOT,
    STEP_TREE_AT,
    STEP_TUPLE,
    TIMING,
    TIMING_TWIN,
    make_site,
    publish,
)
from tests.helpers import command

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SCREENSHOTS = ROOT / ".cache" / "screenshots"
# Headless in a closed network: no sandbox as root, and no background calls home.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(html: Path):
    """HTML served on 127.0.0.1 until the returned server is shut down; (server, its base URL)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(html)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def site(tmp_path):
    """A site over six commits, where the 'jit' timing jumps by 60% at v3 (beyond the 50%
    threshold for absolute times) and tree_at's cost by 60% at v3, then down by 25% at v5; the
    commits link to their release pages; served on 127.0.0.1."""
    flat = [[1.0e-3, 2.0e-3]] * 6
    config = make_site(
        tmp_path,
        {
            TIMING: flat[:3] + [[1.6e-3, 2.0e-3]] * 3,
            TIMING_TWIN: flat,
            COUNT: [[100, 240]] * 3 + [[120, 378]] * 3,
            COST: [[3000, 10000]] * 3 + [[3500, 16000]] * 2 + [[3500, 12000]],
            PASSES: [[17.5]] * 3 + [[28.0]] * 2 + [[21.0]],
            RATIO: [[5.5, 5.4, 5.6, 1.2, 1.1, 1.3]] * 6,  # the answer: each wrapping's median and interval
            STEP_TREE_AT: [[1.1e-4, 1.0e-4, 1.2e-4, 2.4e-5, 2.3e-5, 2.5e-5]] * 6,
            STEP_TUPLE: [[2e-5, 1.9e-5, 2.1e-5, 2e-5, 1.9e-5, 2.1e-5]] * 6,
        },
        statistics=("median", "low", "high"),
    )
    html = tmp_path / "html"
    report = command("overhead-report", "--results", tmp_path / "results", "--repo", tmp_path / "repo", "--html", html)
    assert report.returncode == 0, report.stderr
    site_tools.localize(html)
    assert site_tools.link_releases(html, "equinox") == 6
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(html)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    assert config.exists()


@pytest.fixture
def page():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Debian's chromium is not installed at {CHROMIUM}; run scripts/setup --browser")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.console_errors = []
        page.external_requests = []
        # The site must be whole on its own: anything it asks of another host is recorded and refused.
        page.route(
            re.compile(r"^(?!http://127\.0\.0\.1[:/])"),
            lambda route: (page.external_requests.append(route.request.url), route.abort()),
        )
        page.on("console", lambda message: message.type == "error" and page.console_errors.append(message.text))
        page.on("pageerror", lambda error: page.console_errors.append(str(error)))
        yield page
        browser.close()


# Non-background pixels across the graph's canvases: points and lines, once drawn, paint some.
PAINTED_PIXELS = """() => {
        let painted = 0;
        for (const canvas of document.querySelectorAll('#graph-display canvas')) {
            const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
            for (let i = 3; i < data.length; i += 4) if (data[i] > 0) painted++;
        }
        return painted;
    }"""


def test_site_lists_twins_draws_graphs_and_shows_regressions(site, page):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    page.goto(f"{site}/index.html#/summarylist")
    page.wait_for_selector("#summarylist-body table")
    listing = page.inner_text("#summarylist-body")
    assert TIMING in listing and "time_tuple" in listing
    page.screenshot(path=str(SCREENSHOTS / "summarylist.png"))

    page.goto("about:blank")  # a new hash alone would not load the graph view afresh
    with page.expect_response(lambda r: urlparse(r.url).path.endswith(f"/{TIMING}.json")) as graph:
        page.goto(f"{site}/index.html#{TIMING}")
    assert graph.value.ok
    assert len(graph.value.json()) == 6  # one point per commit
    # flot draws after the data arrives: wait until its points and lines are painted.
    page.wait_for_function(f"() => ({PAINTED_PIXELS})() > 500")
    page.screenshot(path=str(SCREENSHOTS / "graph.png"))

    page.goto(f"{site}/index.html#/regressions")
    page.wait_for_selector("#regressions-display table")
    regressions = page.inner_text("#regressions-display")
    assert TIMING in regressions
    page.screenshot(path=str(SCREENSHOTS / "regressions.png"))

    # A commit links to its release's upstream page, not to a hash that exists only in the local history.
    links = page.eval_on_selector_all("#regressions-display a[href*='commit.html#']", "as => as.map(a => a.href)")
    assert links, page.inner_html("#regressions-display")
    page.goto(links[0])
    page.wait_for_timeout(500)
    # Leave the redirecting page, so that nothing of it asks again later; under load Chromium may ask twice
    # for the refused release page, and the set still says that nothing else was asked for.
    page.goto("about:blank")
    assert set(page.external_requests) == {"https://github.com/patrick-kidger/equinox/releases/tag/v3"}
    page.external_requests.clear()

    page.goto(f"{site}/index.html")
    page.click("#nav-li-overhead a")
    page.wait_for_selector("h1")
    assert "tree_at cost" in page.inner_text("h1")
    # Every plot loads and decodes: waited for, since the heading shows before its images have arrived.
    page.wait_for_function("() => [...document.images].every(img => img.complete && img.naturalWidth > 0)")
    # The ratio plot, the history's, and the operations' (tree_at's cost alone: the site has no Module operation);
    # the site measured no eager or tracing time, so those plots are left out.
    sources = page.evaluate("() => [...document.images].map(img => img.getAttribute('src'))")
    assert sources == ["ratios.png", "history-1.png", "operations.png"]
    # Each plot renders at a readable size: every panel at least MIN_PANEL_PX on the screen.
    rendered = page.evaluate("""() => [...document.images].map(img => {
        const box = img.getBoundingClientRect();
        return [img.getAttribute('src'), box.width, box.height, Number(img.dataset.panels)];
    })""")
    for src, width, height, panels in rendered:
        assert panels >= 1, src
        assert width >= report_plots.MIN_PANEL_PX[0] and height / panels >= report_plots.MIN_PANEL_PX[1], (
            src,
            width,
            height,
        )
    # Every timing series is drawn with its interval (counted from the figure when it was drawn); the ratio
    # plot and the history's time have some.
    drawn = page.evaluate("""() => Object.fromEntries([...document.images].map(img => [
        img.getAttribute('src'), [Number(img.dataset.timingSeries), Number(img.dataset.withInterval)]]))""")
    assert drawn["ratios.png"][0] == 2 and drawn["history-1.png"][0] == 1, drawn  # eager and jit; the passes
    assert all(series == with_interval for series, with_interval in drawn.values()), drawn
    # The answer in the question's words leads, then the maintainers' figures: the exact metrics first, before
    # any plot, each kind of them in a table.
    assert page.locator("h1 + div#answer").inner_text().startswith("On CPU, Equinox v5 with Python 3.11")
    headings = page.eval_on_selector_all("h2", "hs => hs.map(h => h.id)")
    assert headings[:3] == ["maintainers", "exact", "timings"], headings
    assert page.evaluate("() => document.querySelector('h2#exact').compareDocumentPosition(document.images[0]) & 4"), (
        "a plot before the exact metrics"
    )
    kinds = page.eval_on_selector_all("details[data-kind]", "ds => ds.map(d => d.dataset.kind)")
    assert kinds == [metrics.COST, metrics.DIAGNOSTIC], kinds
    # Both kinds changed over the commits (the cost at v3 and v5, the calls at v3): both are open.
    assert page.eval_on_selector_all("details[data-kind]", "ds => ds.map(d => d.open)") == [True, True]
    cost_table = page.inner_text("details[data-kind='cost'] table")
    assert (
        "bench_counts.PythonCost.track_tree_at" in cost_table
        and "v3 (Python 3.11, jax 0.4.33): 10,000 → 16,000" in cost_table
    )
    assert report_rows.SINGLE_SAMPLE in page.inner_text("p:has-text('passes with tree_at')")
    history = page.inner_text("body")
    steps = page.inner_text("h3:has-text('bench_counts.PythonCost') + table")
    assert "10,000 → 16,000 (+60.0%)" in steps and "16,000 → 12,000 (-25.0%)" in steps
    # The per-release detail is HTML tables, not Markdown text.
    assert "|---" not in history and "### " not in history
    assert page.locator("h2:has-text('in detail') + table").count() == 1
    page.screenshot(path=str(SCREENSHOTS / "overhead.png"), full_page=True)

    assert page.console_errors == []
    assert page.external_requests == []


# Markup planted in a results file and in machine.json, as a run of upstream code could write them.
PLANTED = '<img src=x onerror="window.__pwned=1;alert(1)">'
PLANTED_SCRIPT = "<script>window.__pwned=1;alert(1)</script>"


def test_a_planted_file_is_refused_and_nothing_of_it_runs_in_the_published_site(tmp_path, page):
    """The real merge refuses each planted file (exit 2, nothing merged); the site published from what it
    accepted, opened in Chromium, runs no planted script, opens no dialog and shows no planted text."""
    (tmp_path / "run").mkdir()
    config = make_site(tmp_path / "run", {TIMING: [[1.0e-3, 2.0e-3]] * 2 + [[1.6e-3, 2.0e-3]]})
    clean = tmp_path / "run" / "results"
    dest = tmp_path / "branch" / "results"
    merged = command("merge-results", clean, dest)
    assert merged.returncode == 0, merged.stderr
    held = {p: p.read_bytes() for p in dest.rglob("*") if p.is_file()}

    def plant(name, change):
        planted = tmp_path / name
        shutil.copytree(clean, planted)
        path = change(planted / MACHINE)
        refused = command("merge-results", planted, dest)
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert str(path) in refused.stderr and "may hold only" in refused.stderr, refused.stderr
        assert {p: p.read_bytes() for p in dest.rglob("*") if p.is_file()} == held

    # Each planted file is new to DEST (a new environment, a new machine), so that, accepted, it would be
    # copied and published, not kept out as a conflict or as metadata DEST already has.
    def in_results(folder):
        data = json.loads(sorted(folder.glob("*-*.json"))[-1].read_text())
        data["env_name"] += "-planted"
        data["results"][TIMING][1] = [["'jit'", PLANTED]]
        data["params"][PLANTED_SCRIPT] = PLANTED
        path = folder / f"{data['commit_hash'][:8]}-{data['env_name']}.json"
        path.write_text(json.dumps(data))
        return path

    def in_machine(folder):
        other = folder.parent / "elsewhere"
        other.mkdir()
        for source in folder.glob("*-*.json"):
            data = json.loads(source.read_text())
            data["params"]["machine"] = "elsewhere"
            (other / source.name).write_text(json.dumps(data))
        path = other / "machine.json"
        machine = json.loads((folder / "machine.json").read_text())
        path.write_text(json.dumps({**machine, "machine": "elsewhere", "cpu": PLANTED, "os": PLANTED_SCRIPT}))
        return path

    plant("planted-results", in_results)
    plant("planted-machine", in_machine)

    html = tmp_path / "branch" / "html"
    conf = {**json.loads(config.read_text()), "results_dir": str(dest), "html_dir": str(html)}
    (tmp_path / "branch" / "asv.conf.json").write_text(json.dumps(conf))
    published = subprocess.run(
        [sys.executable, "-m", "asv", "publish", "--config", str(tmp_path / "branch" / "asv.conf.json")],
        capture_output=True,
        text=True,
    )
    assert published.returncode == 0, published.stdout + published.stderr
    site_tools.localize(html)
    assert not [p for p in html.rglob("*") if p.is_file() and b"__pwned" in p.read_bytes()]

    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    server, base = serve(html)
    try:
        for view in ("#/summarylist", f"#{TIMING}", "#/regressions", ""):
            page.goto("about:blank")
            page.goto(f"{base}/index.html{view}")
            page.wait_for_load_state("networkidle")
            page.wait_for_timeout(300)
            assert TIMING in page.inner_text("body") or view == "", view  # the site, not asv's error page
            if view == f"#{TIMING}":  # the machine's html: true tooltip, shown on hover, shows machine.json
                page.hover(f"#graphdisplay-state-params a:has-text('{MACHINE}')")
                page.wait_for_selector(".tooltip")
                assert "cpu: test" in page.inner_text(".tooltip")
            assert page.evaluate("() => window.__pwned") is None
            assert "__pwned" not in page.content()
    finally:
        server.shutdown()
        server.server_close()
    assert dialogs == []
    assert page.console_errors == []
    assert page.external_requests == []


# A tag name upstream could push (issue 37 reproduced it): asv's graph inserts tag names into the page as HTML.
PLANTED_TAG = "<img/src/onerror=window.__pwned=document.domain>"


def test_an_upstream_tag_named_as_markup_runs_nothing_on_the_published_site(tmp_path, page):
    """A tag is no results file that merge-results checks: the site published (asv publish, then
    localized, as every publish does) leaves out the tag, and the graph that would draw it runs nothing."""
    config = make_site(tmp_path, {TIMING: [[1.0e-3, 2.0e-3]] * 4})
    repo, html = tmp_path / "repo", tmp_path / "html"
    subprocess.run(["git", "-C", str(repo), "tag", PLANTED_TAG, "v2"], check=True)
    publish(config)
    assert PLANTED_TAG in json.loads((html / "index.json").read_text())["tags"]  # asv copies it as it is
    site_tools.localize(html)
    assert list(json.loads((html / "index.json").read_text())["tags"]) == ["v0", "v1", "v2", "v3"]
    server, base = serve(html)
    try:
        page.goto(f"{base}/index.html#{TIMING}")
        # The tags' labels are drawn with the graph: wait for the plain ones, then look for the planted one's work.
        page.wait_for_function("() => document.querySelector('#graph-display')?.innerText.includes('v3')")
        assert page.evaluate("() => window.__pwned") is None
        assert page.locator("#graph-display img").count() == 0
    finally:
        server.shutdown()
        server.server_close()
    assert page.console_errors == []
    assert page.external_requests == []
