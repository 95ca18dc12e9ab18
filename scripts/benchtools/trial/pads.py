"""The detector trial's timing-only slowdown: tree_at padded with unused keyword arguments.

Imported by the calibration child in the trial's own asv environment (detector.calibrate_pads), whose Python holds
JAX and Equinox but not asv: so this module needs only the standard library, ``errors`` and the suite.
"""

import ast

from ..errors import BadInput, Error

PAD = "_detector_trial_pad"


def tree_at_of(source: str) -> ast.FunctionDef:
    found = next((n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == "tree_at"), None)
    if found is None:
        raise BadInput("equinox/_tree.py has no top-level tree_at")
    return found


def pad_signature(source: str) -> str:
    """The module's source with ``**_detector_trial_pad`` added to tree_at's parameters, and nothing else."""
    function = tree_at_of(source)
    if function.args.kwarg is not None:
        raise BadInput("tree_at already takes **kwargs; the timing-only variant cannot pad it")
    # The parameter, default or annotation that ends last: **PAD goes right after it.
    last = max(
        (node for node in ast.walk(function.args) if hasattr(node, "end_lineno")),
        key=lambda node: (node.end_lineno, node.end_col_offset),
    )
    lines = source.splitlines(keepends=True)
    line = lines[last.end_lineno - 1]
    # end_col_offset counts UTF-8 bytes.
    encoded = line.encode()
    lines[last.end_lineno - 1] = (
        encoded[: last.end_col_offset] + f", **{PAD}".encode() + encoded[last.end_col_offset :]
    ).decode()
    return "".join(lines)


def pads_for(percent: float, probe: int) -> int:
    """How many pads slow one tree_at call by ``percent``, measured on the Equinox and JAX this process imports.

    As the suite measures: interleaved batches of padded tree_at over plain tree_at, on the suite's default update.
    Padding has a fixed cost (the partial's keyword dict, the ``**`` dict) besides a cost per pad, and a pad costs more
    in a small dict than in a big one: so a first estimate from ``probe`` pads is refined by a straight line through n
    and 2n pads, n near the answer (extrapolating from ``probe`` alone, 3% came out as +4.4% in the suite).
    """
    import functools
    import inspect

    import equinox._tree as equinox_tree

    from benchmarks import instruments, params, workloads

    namespace = dict(vars(equinox_tree))
    exec(compile(pad_signature(inspect.getsource(equinox_tree.tree_at)), "<detector-trial>", "exec"), namespace)
    state = workloads.build_state("tree_at", params.DEFAULT_STATE_SIZE, params.DEFAULT_DEPTH)
    value = workloads.leaves(state)[1]

    def where(s):
        return s.child.child.child.a

    def slowdown(pads: int, seconds: float) -> float:
        padded = functools.partial(namespace["tree_at"], **{f"{PAD}{i}": None for i in range(pads)})
        return (
            instruments.interleaved_ratio(
                lambda: padded(where, state, value), lambda: equinox_tree.tree_at(where, state, value), seconds=seconds
            )
            - 1
        )

    per_pad = slowdown(probe, 2.0) / probe
    if not per_pad > 0:
        raise Error(f"calibration: {probe} pads made tree_at no slower")
    near = max(1, round(percent / 100 / per_pad))
    return pads_on_line(percent, near, slowdown(near, 4.0), slowdown(2 * near, 4.0))


def pads_on_line(percent: float, near: int, at_near: float, at_twice: float) -> int:
    per_pad = (at_twice - at_near) / near
    if not per_pad > 0:
        raise Error(
            f"calibration: {2 * near} pads slowed tree_at no more than {near} "
            f"({at_twice:+.2%} and {at_near:+.2%}); the machine is too noisy to calibrate"
        )
    fixed = at_near - near * per_pad
    pads = round((percent / 100 - fixed) / per_pad)
    if pads < 1:
        raise Error(f"calibration: padding alone costs {fixed:+.1%} of a tree_at call, more than {percent:g}%")
    return pads
