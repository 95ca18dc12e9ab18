"""What the gate reads: a run's results and site, its thresholds, its commits by revision and tag."""

import json
from pathlib import Path
from urllib.parse import unquote

from benchmarks import metrics

from .. import util
from ..asvtools import results as asv_results
from ..asvtools import shapes
from ..errors import BadInput
from ..project import ROOT
from .changes import Thresholds, finite_non_negative

PROFILES = "profiles"  # the profile cache's folder, under a run's .asv folder


class Source:
    def __init__(
        self,
        *,
        output: Path = ROOT,
        config: Path | None = None,
        results: Path | None = None,
        html: Path | None = None,
        machine: str | None = None,
        threshold: float | None = None,
        time_threshold: float | None = None,
    ):
        for name, value in (("threshold", threshold), ("time_threshold", time_threshold)):
            if value is not None:
                finite_non_negative(value, f"--{name.replace('_', '-')}")
        last_run = {}
        if config is None and not (results and html):
            last_run = shapes.read_checked(
                output / ".asv" / "last-run.json", "last-run", "the latest scripts/bench run record"
            )
            config = Path(last_run["config"])
        self.config = config
        asv_dir = config.parent.parent if config and config.parent.name == "configs" else output / ".asv"
        self.profiles = asv_dir / PROFILES  # the profile cache, shared by explaining and counting again
        conf = shapes.check(util.load_asv_config(config), "asv-config", config, "asv configuration") if config else {}
        self.conf = conf
        # asv.conf.json itself holds no thresholds: they are metrics.py's.
        regexes = conf["regressions_thresholds"] if "regressions_thresholds" in conf else metrics.asv_thresholds()
        self.thresholds = Thresholds(regexes, {metrics.RATIO: threshold, metrics.TIME: time_threshold}, config or "")
        for key, given in (("results_dir", results), ("html_dir", html)):
            if not (given or last_run.get(key) or conf.get(key)):
                raise BadInput(f"asv configuration {config}: no {key}")
        self.results = results or Path(last_run.get("results_dir") or conf["results_dir"])
        self.html = html or Path(last_run.get("html_dir") or conf["html_dir"])
        self.machine = machine or last_run.get("machine")
        if not self.machine:
            machines = [p.name for p in self.results.iterdir() if p.is_dir()] if self.results.is_dir() else []
            if len(machines) != 1:
                raise BadInput(f"name the machine with --machine; {self.results} holds {machines or 'none'}")
            self.machine = machines[0]
        self.run_commits = list(last_run.get("commits", []))
        self.run_unchanged = list(last_run.get("unchanged", []))  # left out: the package unchanged
        self.index = shapes.read_checked(self.html / "index.json", "index", "asv site index")
        self.benchmarks = shapes.read_checked(self.results / "benchmarks.json", "benchmarks", "asv benchmark list")
        self.hash_of_revision = {int(rev): commit for rev, commit in self.index["revision_to_hash"].items()}
        self.revision_of_hash = {commit: rev for rev, commit in self.hash_of_revision.items()}
        self.units = {
            name: described["unit"]
            for name, described in self.benchmarks.items()
            if isinstance(described, dict) and isinstance(described.get("unit"), str)
        }
        self.loaded = {}  # {commit: its asv results}
        self.tag_of_hash = {
            self.hash_of_revision[rev]: tag for tag, rev in self.index["tags"].items() if rev in self.hash_of_revision
        }

    def results_of(self, commit: str, missing_ok: bool = False) -> list:
        if commit not in self.loaded:
            self.loaded[commit] = asv_results.of_commit(self.results, self.machine, commit)
        if not self.loaded[commit] and not missing_ok:
            folder = self.results / self.machine
            raise BadInput(f"no results for commit {self.label(commit)} on machine {self.machine!r} in {folder}")
        return self.loaded[commit]

    def series(self, graph: str, index: int | None) -> list[tuple[int, float | None]]:
        """(revision, value) of one series of a site's graph file."""
        path = self.html / graph
        points = []
        for revision, value in shapes.read_checked(path, "graph", "asv graph file"):
            if index is not None and isinstance(value, list):
                value = value[index] if index < len(value) else None
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
                raise BadInput(
                    f"asv graph file has the wrong shape: {path}: revision {revision}: {json.dumps(value)[:60]} is "
                    "not a number"
                )
            points.append((int(revision), value))
        return points

    def label(self, commit: str) -> str:
        return self.tag_of_hash.get(commit, commit[:8])

    def resolve(self, name: str) -> str:
        """A commit hash from a tag or a hash prefix that has results."""
        tags = self.index["tags"]
        if name in tags:
            if tags[name] not in self.hash_of_revision:
                raise BadInput(
                    f"asv site index {self.html / 'index.json'}: tag {name!r} names revision "
                    f"{tags[name]}, which it lists no commit for"
                )
            return self.hash_of_revision[tags[name]]
        if not (matches := {c for c in self.hash_of_revision.values() if c.startswith(name)}):
            raise BadInput(f"unknown commit {name!r}: no tag or results commit matches it")
        if len(matches) > 1:
            raise BadInput(f"commit {name!r} is ambiguous")
        return matches.pop()


def split_entry(entry: str) -> tuple[str, str]:
    """asv's 'module.Class.method(params)' into the benchmark name and its params."""
    if entry.endswith(")") and "(" in entry:
        name, params = entry.split("(", 1)
        return name, params[:-1]
    return entry, ""


def params_of_graph(graph: str) -> dict[str, str]:
    """The parameters in a site's graph path (graphs/arch-x86_64/.../jax-0.4.33/.../NAME.json)."""
    return dict(unquote(part).split("-", 1) for part in graph.split("/")[1:-1] if "-" in part)
