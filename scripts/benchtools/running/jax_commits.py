"""The JAX commit history as asv's site: every kept probe of a JAX commit (scripts/bisect's) as asv results, beside
a page of the recorded bisections' steps (``steps.html``), each with its commit's subject and pull request."""

import json
from pathlib import Path

from benchmarks import metrics

from .. import git, settings, util
from ..asvtools import probe_results, suite
from ..history.probes import Probes
from ..project import ROOT
from ..publishing import bisections, site, templating

NAME = "jax-commits"
TITLE = "Instruction counts over JAX commits"


def publish(kept: Probes, equinox: str, repo: Path, records_dir: Path, machine: str, output: Path = ROOT) -> Path:
    results_dir, html_dir = output / "results" / NAME, output / "html" / NAME
    # Each first-run record with Equinox at EQUINOX on the rule's jaxlib (a split's names its jaxlib first):
    # probe_results.write keeps a JAX commit's (40 hex), no release's (its key ends "-release").
    records = [json.loads(path.read_text()) for path in sorted(kept.path_folder(equinox).glob("jax-*-0.json"))]
    listing = git.out("log", "--all", "--format=%H %ct", repo=repo)
    dates = {commit: int(stamp) * 1000 for commit, stamp in (line.split() for line in listing.splitlines())}
    written = probe_results.write(results_dir, machine, records, json.loads(suite.description()), dates)
    config = {**settings.load().jax}
    config.update(
        repo=str(repo),
        branches=["main"],
        show_commit_url="#",  # the bundle's hashes are not GitHub's: the steps page links pull requests instead
        benchmark_dir=str(ROOT / config["benchmark_dir"]),
        results_dir=str(results_dir),
        html_dir=str(html_dir),
        regressions_thresholds=metrics.asv_thresholds(),
    )
    path = output / ".asv" / "configs" / f"{NAME}.conf.json"
    util.write_atomic(path, json.dumps(config, indent=2).encode())
    util.checked(util.asv("publish", "--config", path))
    site.localize(html_dir)
    body = templating.markdown_html(bisections.markdown(bisections.read_all(records_dir)))
    util.write_atomic(html_dir / "steps.html", templating.render("steps.html.j2", title=TITLE, body=body).encode())
    print(f"{html_dir}: {written} JAX commits' counts published; the steps: {html_dir / 'steps.html'}")
    return html_dir
