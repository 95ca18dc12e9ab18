"""asv's own readers of a configuration and of stored results, for the layers above asvtools/, which import
no asv."""


def asv_config(path):
    """asv's own ``Config`` object of a configuration file."""
    from asv import config

    return config.Config.load(str(path))


def stored(results_dir, machine: str | None = None) -> list:
    """Every asv result stored in ``results_dir`` (of ``machine`` only, when named), oldest first."""
    from asv import results as asv_results

    found = [r for r in asv_results.iter_results(str(results_dir)) if machine in (None, r.params.get("machine"))]
    return sorted(found, key=lambda r: r.date or 0)
