"""Small helpers every layer shares: asv's configurations as JSON, asv as a command, HTTP, atomic writes."""

import contextlib
import copy
import errno
import functools
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from unittest import mock

import requests
from urllib3.util.retry import Retry

from .errors import BadInput, Failed

REMOTE = re.compile(r"^[a-z][a-z0-9+.-]*://|^git@")


def is_remote(location: str) -> bool:
    return bool(REMOTE.match(str(location)))


def load_asv_config(path: Path | str) -> dict:
    """An asv configuration, the caller's own copy; each text parsed once (json5 takes a fifth of a second)."""
    try:
        return copy.deepcopy(_parsed_asv_config(Path(path).read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise BadInput(f"asv configuration not found: {path}") from None
    except RecursionError:
        raise BadInput(f"asv configuration is corrupt: {path} (nested too deeply)") from None
    except (OSError, ValueError) as error:  # json5's errors, and undecodable bytes, are ValueErrors
        raise BadInput(f"asv configuration is corrupt: {path} ({error})") from None


@functools.lru_cache(maxsize=64)
def _parsed_asv_config(text: str) -> dict:
    import json5  # as asv.util.load_json with js_comments

    return json5.loads(text)


# Every HTTP request's: one 502 must not lose the night's alert. A POST is asked again only by its caller, who first
# looks for what the failed one may have made (publishing/github.py).
RETRY = Retry(
    total=3,
    backoff_factor=2,
    backoff_max=60,
    retry_after_max=60,
    status_forcelist=(429, 500, 502, 503, 504),
    raise_on_status=False,
)


def http_session() -> requests.Session:
    """A requests session that asks again under RETRY (read now, so that a test may change it)."""
    session = requests.Session()
    adapter = requests.adapters.HTTPAdapter(max_retries=RETRY)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def asv(*args) -> list[str]:
    return [sys.executable, "-m", "asv", *map(str, args)]


def run(cmd, prefix: str | None = None, **kwargs) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd)``, echoed on stderr; with PREFIX, each line of its output too, after PREFIX."""
    cmd = [str(part) for part in cmd]
    print(f"{prefix or ''}$ {' '.join(cmd)}", file=sys.stderr, flush=True)
    if prefix is None:
        return subprocess.run(cmd, **kwargs)
    with subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace", **kwargs
    ) as process:
        for line in process.stdout:
            print(prefix + line, end="", file=sys.stderr, flush=True)
    return subprocess.CompletedProcess(cmd, process.returncode)


def checked(cmd, **kwargs) -> subprocess.CompletedProcess:
    done = run(cmd, **kwargs)
    if done.returncode != 0:
        what = " ".join(map(str, cmd[2:4])) if list(map(str, cmd[:3])) == asv() else str(cmd[0])
        raise Failed(f"{what} exited {done.returncode}; see above")
    return done


@contextlib.contextmanager
def environ(**values: str | None):
    with mock.patch.dict(os.environ, {name: value for name, value in values.items() if value is not None}):
        for name in [name for name, value in values.items() if value is None]:
            os.environ.pop(name, None)
        yield


def write_atomic(path: Path, data: bytes, replace: bool = True) -> bool:
    """False when PATH existed and ``replace`` is off."""
    return write_all([(path, data, replace)])[0]


def write_json(path: Path, value, sort_keys: bool = False) -> None:
    write_atomic(path, (json.dumps(value, indent=1, sort_keys=sort_keys) + "\n").encode())


def write_all(writes) -> list[bool]:
    """Write each (PATH, DATA, REPLACE) of WRITES, synced, all or nothing (Failed): whether each was placed."""
    writes = [(Path(path), data, replace) for path, data, replace in writes]
    placed = [False] * len(writes)
    staged: list[Path] = []
    current = None
    # Left in this order: what put files in place undone, then the temporary files, then the folders made.
    with contextlib.ExitStack() as folders, contextlib.ExitStack() as temporaries, contextlib.ExitStack() as undo:
        try:
            for path, data, _ in writes:
                current = path
                for folder in reversed([p for p in (path.parent, *path.parent.parents) if not p.is_dir()]):
                    os.mkdir(folder)
                    folders.callback(_quietly, folder.rmdir)
                fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
                staged.append(Path(temporary))
                temporaries.callback(_quietly, staged[-1].unlink)
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                    out.flush()
                    os.fsync(out.fileno())
            # Added files first, then replaced ones, so that a failure to add leaves no file replaced.
            for index in sorted(range(len(writes)), key=lambda i: writes[i][2]):
                path, _, replace = writes[index]
                current, temporary = path, staged[index]
                if not replace:
                    try:
                        os.link(temporary, path)  # fails if PATH exists: never replaces a file
                    except FileExistsError:
                        continue
                    undo.callback(_quietly, path.unlink)
                elif os.path.lexists(path):
                    backup = temporary.with_suffix(".old")
                    os.link(path, backup)
                    temporaries.callback(_quietly, backup.unlink)
                    undo.callback(_quietly, os.replace, backup, path)
                    os.replace(temporary, path)
                else:
                    os.replace(temporary, path)
                    undo.callback(_quietly, path.unlink)
                placed[index] = True
        except OSError as error:
            reason = os.strerror(error.errno) if error.errno else str(error)
            name = f" ({errno.errorcode[error.errno]})" if error.errno in errno.errorcode else ""
            raise Failed(f"cannot write {current}: {reason}{name}; nothing was written") from None
        undo.pop_all()
        folders.pop_all()
    return placed


def _quietly(step, *args) -> None:
    with contextlib.suppress(OSError):
        step(*args)


def markdown_table(header: Sequence[object], rows: Iterable[Sequence[object]]) -> str:
    """A Markdown pipe table, unpadded (tabulate's padding would burst GitHub's cap on a comment's bytes)."""
    lines = ["| " + " | ".join(map(str, cells)) + " |" for cells in [header, *rows]]
    return "\n".join([lines[0], "|" + "---|" * len(header), *lines[1:]])
