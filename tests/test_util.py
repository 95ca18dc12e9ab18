"""benchtools/util.py: the atomic writers, write_atomic and write_all, and the prefixed run of overlapping commands."""

import errno
import os
from pathlib import Path

import pytest

from benchtools import util
from benchtools.errors import Failed


def everything(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): None if p.is_dir() else p.read_bytes() for p in sorted(folder.rglob("*"))}


def test_write_atomic_never_replaces_when_told_not_to(tmp_path):
    target = tmp_path / "a" / "file"
    assert util.write_atomic(target, b"one", replace=False)
    assert not util.write_atomic(target, b"two", replace=False)
    assert target.read_bytes() == b"one"
    assert util.write_atomic(target, b"three")
    assert everything(tmp_path) == {"a": None, "a/file": b"three"}


def test_write_all_places_everything_and_keeps_what_appeared(tmp_path):
    (tmp_path / "kept").write_bytes(b"theirs")
    (tmp_path / "replaced").write_bytes(b"old")
    placed = util.write_all(
        [
            (tmp_path / "new/deep/file", b"1", False),
            (tmp_path / "kept", b"ours", False),
            (tmp_path / "replaced", b"new", True),
        ]
    )
    assert placed == [True, False, True]
    assert everything(tmp_path) == {
        "kept": b"theirs",
        "new": None,
        "new/deep": None,
        "new/deep/file": b"1",
        "replaced": b"new",
    }


@pytest.mark.parametrize(
    "call, number",
    [("fsync", 1), ("fsync", 5), ("mkdir", 1), ("mkdir", 3), ("link", 1), ("link", 3), ("link", 5)]
    + [("replace", 1), ("replace", 2)],
)
def test_write_all_undoes_everything_on_an_io_error(call, number, monkeypatch, tmp_path):
    """The NUMBERth call of os.CALL fails (once: undoing uses the same calls), whichever step it is."""
    (tmp_path / "replaced").write_bytes(b"old")
    (tmp_path / "other").write_bytes(b"old too")
    before = everything(tmp_path)
    real, calls = getattr(os, call), []

    def fake(*args, **kwargs):
        calls.append(args)
        if len(calls) == number:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(*args, **kwargs)

    monkeypatch.setattr(os, call, fake)
    writes = [
        (tmp_path / "a/b/one", b"1", False),
        (tmp_path / "c/two", b"2", False),
        (tmp_path / "replaced", b"new", True),
        (tmp_path / "other", b"new too", True),
        (tmp_path / "d/three", b"3", False),
    ]
    with pytest.raises(Failed, match=r"cannot write .*: No space left on device \(ENOSPC\); nothing was written"):
        util.write_all(writes)
    monkeypatch.undo()
    assert everything(tmp_path) == before


def test_write_all_passes_other_errors_on_after_undoing(monkeypatch, tmp_path):
    monkeypatch.setattr(os, "replace", lambda *args: (_ for _ in ()).throw(KeyboardInterrupt))
    with pytest.raises(KeyboardInterrupt):
        util.write_all([(tmp_path / "x/added", b"1", False), (tmp_path / "replaced", b"2", True)])
    monkeypatch.undo()
    assert everything(tmp_path) == {}


def test_a_prefixed_run_gives_every_line_of_both_streams_its_prefix_and_the_exit_code(capsys):
    code = util.run(["sh", "-c", "echo out; echo err >&2; echo last; exit 3"], prefix="[2] ").returncode
    assert code == 3
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("[2] $ sh -c")
    assert sorted(lines[1:]) == ["[2] err", "[2] last", "[2] out"]
