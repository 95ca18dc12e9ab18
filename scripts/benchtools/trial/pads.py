"""The detector trial's slowdowns of tree_at.  Imported in the trial's asv environment, which lacks asv: it needs only
the standard library, ``errors`` and the suite."""

import ast

from ..errors import BadInput, Error

PAD = "_detector_trial_pad"


def tree_at_of(source: str) -> ast.FunctionDef:
    found = next((n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == "tree_at"), None)
    if found is None:
        raise BadInput("equinox/_tree.py has no top-level tree_at")
    return found


def inject(source: str, calls: int) -> str:
    """tree_at's source with `calls` no-op Python calls made before its body."""
    function = tree_at_of(source)
    first = function.body[0]
    has_docstring = isinstance(first, ast.Expr) and isinstance(getattr(first, "value", None), ast.Constant)
    after = first.end_lineno if has_docstring else first.lineno - 1
    indent = " " * function.body[-1].col_offset
    lines = source.splitlines(keepends=True)
    lines.insert(after, f"{indent}for _ in range({calls}):\n{indent}    _detector_trial_noop()\n")
    lines.insert(function.lineno - 1 - len(function.decorator_list), "def _detector_trial_noop():\n    pass\n\n\n")
    return "".join(lines)


def inject_c_work(source: str, pads: int) -> str:
    """tree_at made slower by work in C alone: a partial of itself holding ``pads`` unused keyword arguments."""
    function = tree_at_of(source)
    if function.args.kwarg is not None:
        raise BadInput("tree_at already takes **kwargs; the timing-only variant cannot pad it")
    # **PAD goes right after the parameter, default or annotation that ends last; end_col_offset counts UTF-8 bytes.
    last = max(
        (n for n in ast.walk(function.args) if hasattr(n, "end_lineno")), key=lambda n: (n.end_lineno, n.end_col_offset)
    )
    lines = source.splitlines(keepends=True)
    line, end = lines[last.end_lineno - 1].encode(), last.end_col_offset
    lines[last.end_lineno - 1] = (line[:end] + f", **{PAD}".encode() + line[end:]).decode()
    return (
        "".join(lines) + "\n\nimport functools as _detector_trial_functools\n\n"
        f"tree_at = _detector_trial_functools.partial(tree_at, **{{f'{PAD}{{i}}': None for i in range({pads})}})\n"
    )


def pads_for(percent: float, probe: int) -> int:
    """How many pads slow one tree_at call by ``percent`` on this process's JAX.  Padding has a fixed cost, and a pad
    costs more in a small dict: a line through n and 2n pads near the answer refines ``probe``'s guess (3% was 4.4%)."""
    import inspect

    import equinox._tree as equinox_tree

    from benchmarks import instruments, params, workloads

    source = inspect.getsource(equinox_tree.tree_at)
    state = workloads.build_state("tree_at", params.DEFAULT_STATE_SIZE, params.DEFAULT_DEPTH)
    value = workloads.leaves(state)[1]

    def where(s):
        return s.child.child.child.a

    def slowdown(pads: int, seconds: float) -> float:
        namespace = dict(vars(equinox_tree))
        exec(compile(inject_c_work(source, pads), "<detector-trial>", "exec"), namespace)
        padded, plain = namespace["tree_at"], equinox_tree.tree_at
        ratio = instruments.interleaved_ratio(
            lambda: padded(where, state, value), lambda: plain(where, state, value), seconds=seconds
        )
        return ratio - 1

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
