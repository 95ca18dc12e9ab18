"""asv's own reader of a configuration, for the layers above asvtools/, which import no asv."""


def asv_config(path):
    from asv import config

    return config.Config.load(str(path))
