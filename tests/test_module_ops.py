"""The Module's operations measure the right thing: each computes what its tuple twin
computes, from the same arrays, copying none; the update ways agree with each other and
trace to the tuple's program; and each benchmark class runs its whole grid."""

import dataclasses
import itertools

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from benchmarks import (
    bench_access,
    bench_construct,
    bench_flatten,
    bench_update,
    instruments,
    metrics,
    module_ops,
    params,
    workloads,
)

GRID = list(itertools.product(params.N_FIELDS, params.DEPTHS))


def chain_nodes(state):
    """The nodes of a chain, root first, for a Module chain and a tuple chain alike."""
    nodes = []
    while state is not None:
        nodes.append(state)
        state = state.child if isinstance(state, eqx.Module) else state[-1]
    return nodes


def assert_identical_leaves(module_state, tuple_state):
    """The same array objects, in the same order: nothing copied, nothing misplaced."""
    module_leaves, tuple_leaves = (jax.tree_util.tree_leaves(s) for s in (module_state, tuple_state))
    assert len(module_leaves) == len(tuple_leaves) > 0
    assert all(m is t for m, t in zip(module_leaves, tuple_leaves, strict=True))


@pytest.mark.parametrize("init", params.INITS)
@pytest.mark.parametrize("n_fields,depth", GRID)
def test_construction_twins_build_the_same_chain_from_the_same_arrays(init, n_fields, depth):
    module_construction = module_ops.Construction("module", n_fields, depth, init)
    tuple_construction = module_ops.Construction("tuple", n_fields, depth, init)
    tuple_construction.levels = module_construction.levels  # the same array objects on both sides
    module_state, tuple_state = module_construction(), tuple_construction()
    assert_identical_leaves(module_state, tuple_state)
    nodes = chain_nodes(module_state)
    assert len(nodes) == len(chain_nodes(tuple_state)) == depth
    assert all(type(node) is module_ops.module_class(n_fields, init) for node in nodes)
    assert [name for name in vars(nodes[0])] == list(module_ops.field_names(n_fields))
    assert all(len(node) == n_fields + 1 for node in chain_nodes(tuple_state))
    assert module_construction() is not module_state  # built anew at every call


def test_every_array_of_a_state_is_distinct():
    values = [float(leaf[0]) for leaf in jax.tree_util.tree_leaves(module_ops.build("tuple", 32, 16))]
    assert len(set(values)) == len(values) == 32 * 16


def test_both_inits_build_equal_states_and_the_custom_one_is_the_module_s_own():
    default, custom = (module_ops.build("module", 8, 4, init) for init in params.INITS)
    assert "__init__" in vars(type(custom)) and type(custom).__init__ is not type(default).__init__
    np.testing.assert_array_equal(
        np.concatenate(jax.tree_util.tree_leaves(default)), np.concatenate(jax.tree_util.tree_leaves(custom))
    )
    with pytest.raises(ValueError, match="unknown init 'other'"):
        module_ops.module_class(2, "other")


def expected_update(n_fields, depth):
    """The leaves after setting f0 of the deepest node to the root's f0, computed on plain lists."""
    leaves = list(jax.tree_util.tree_leaves(module_ops.build("tuple", n_fields, depth)))
    leaves[(depth - 1) * n_fields] = leaves[0]
    return leaves


@pytest.mark.parametrize("init", params.INITS)
@pytest.mark.parametrize("n_fields,depth", GRID)
def test_the_update_ways_compute_the_same_state_and_copy_no_array(init, n_fields, depth):
    want = [float(leaf[0]) for leaf in expected_update(n_fields, depth)]
    results = {}
    for way in params.UPDATE_WAYS:
        if not module_ops.way_applies(way, init):
            continue
        update = module_ops.FieldUpdate(way, n_fields, depth, init)
        results[way] = update()
        assert [float(leaf[0]) for leaf in jax.tree_util.tree_leaves(results[way])] == want
        assert instruments.copied_bytes(update.state, results[way]) == 0
        untouched = jax.tree_util.tree_leaves(update.state)
        assert [float(leaf[0]) for leaf in untouched] != want or depth == 1  # the input is not mutated
        assert jax.tree_util.tree_structure(results[way]) == jax.tree_util.tree_structure(update.state)
    modules = [results[way] for way in results if way != "tuple"]
    assert all(eqx.tree_equal(modules[0], other) for other in modules[1:])
    assert isinstance(results["tuple"], tuple)


def test_replace_does_not_apply_to_a_custom_init_and_is_skipped_as_asv_skips():
    state = module_ops.build("module", 2, 1, "custom")
    with pytest.raises(TypeError):
        dataclasses.replace(state, f0=state.f1)
    with pytest.raises(NotImplementedError, match="replace does not apply to a Module with a custom __init__"):
        module_ops.FieldUpdate("replace", 2, 1, "custom")
    assert dataclasses.replace(module_ops.build("module", 2, 1, "default"), f0=state.f1).f0 is state.f1
    with pytest.raises(ValueError, match="unknown way 'setattr'"):
        module_ops.FieldUpdate("setattr", 2, 1, "default")


@pytest.mark.parametrize("way", params.UPDATE_WAYS[:-1])
@pytest.mark.parametrize("init", params.INITS)
def test_each_update_way_traces_to_the_tuple_s_program(way, init):
    if not module_ops.way_applies(way, init):
        pytest.skip("replace does not apply to a custom __init__")
    n_fields, depth = params.DEFAULT_N_FIELDS, params.DEFAULT_DEPTH

    def step(update, structure):
        def run(state, delta):
            deepest = chain_nodes(state)[-1]
            return update(state, depth - 1, (deepest.f0 if structure == "module" else deepest[0]) + delta)

        return run

    programs = {
        structure: str(
            jax.make_jaxpr(step(module_ops.updater(w, n_fields), structure))(
                module_ops.build(structure, n_fields, depth, init), jnp.float32(0.5)
            )
        )
        for structure, w in (("module", way), ("tuple", "tuple"))
    }
    assert programs["module"] == programs["tuple"]
    assert programs["tuple"].count("add") == 1  # the update's arithmetic is really there


@pytest.mark.parametrize("depth", params.DEPTHS)
def test_attribute_access_reads_the_same_arrays_as_indexing(depth):
    module_state = workloads.build_state("tree_at", 10, depth)
    tuple_state = workloads.build_state("tuple", 10, depth)
    module_read, tuple_read = module_ops.AttributeAccess(module_state)(), module_ops.AttributeAccess(tuple_state)()
    assert len(module_read) == len(tuple_read) == 2 * depth
    assert all(read is leaf for read, leaf in zip(module_read, jax.tree_util.tree_leaves(module_state), strict=True))
    for module_leaf, tuple_leaf in zip(module_read, tuple_read, strict=True):
        np.testing.assert_array_equal(np.asarray(module_leaf), np.asarray(tuple_leaf))


@pytest.mark.parametrize("n_fields,depth", GRID)
def test_flatten_and_unflatten_twins_round_trip_the_same_leaves(n_fields, depth):
    module_state = module_ops.build("module", n_fields, depth)
    tuple_state = module_ops.build("tuple", n_fields, depth)
    (module_leaves, module_def), (tuple_leaves, tuple_def) = map(module_ops.flatten, (module_state, tuple_state))
    assert module_def.num_leaves == tuple_def.num_leaves == n_fields * depth
    for module_leaf, tuple_leaf in zip(module_leaves, tuple_leaves, strict=True):
        np.testing.assert_array_equal(np.asarray(module_leaf), np.asarray(tuple_leaf))
    rebuilt_module, rebuilt_tuple = module_ops.Unflatten(module_state)(), module_ops.Unflatten(tuple_state)()
    assert rebuilt_module is not module_state and eqx.tree_equal(rebuilt_module, module_state)
    assert rebuilt_tuple == tuple_state
    assert all(type(node) is type(module_state) for node in chain_nodes(rebuilt_module))


COST_CLASSES = (
    bench_construct.ConstructionCost,
    bench_update.UpdateCost,
    bench_access.AccessCost,
    bench_flatten.FlattenCost,
)
PASSES_CLASSES = (
    bench_construct.ConstructionInTreeMapPasses,
    bench_update.UpdateInTreeMapPasses,
    bench_access.AccessInTreeMapPasses,
    bench_flatten.FlattenInTreeMapPasses,
)


ONE_CALL_CLASSES = (
    bench_construct.ConstructionTime,
    bench_update.UpdateTime,
    bench_access.AccessTime,
    bench_flatten.FlattenTime,
)


def tracked(cls):
    return [name for name in dir(cls) if name.startswith("track_")]


def timed(cls):
    return [name for name in dir(cls) if name.startswith("time_")]


@pytest.mark.parametrize("cls", COST_CLASSES, ids=lambda cls: cls.__name__)
def test_each_cost_class_runs_its_grid_exactly_and_skips_only_what_does_not_apply(cls):
    skipped = 0
    for values in itertools.product(*cls.params):
        benchmark = cls()
        named = dict(zip(cls.param_names, values, strict=True))
        if not module_ops.way_applies(named.get("way", ""), named.get("init", "")):
            with pytest.raises(NotImplementedError):
                benchmark.setup(*values)
            skipped += 1
            continue
        benchmark.setup(*values)
        for name in tracked(cls):
            first, second = getattr(benchmark, name)(*values), getattr(benchmark, name)(*values)
            assert isinstance(first, int) and first == second > 0
    assert skipped == (len(params.DEPTHS) if cls is bench_update.UpdateCost else 0)


def test_building_and_updating_a_module_cost_more_than_the_tuple_and_grow_with_the_state():
    def cost(cls, name, *values):
        benchmark = cls()
        benchmark.setup(*values)
        return getattr(benchmark, name)(*values)

    # (Attribute access is left out: before Equinox 0.13.0 a Module's attribute costs what an index does.)
    small, large = ("default", 2, 1), ("default", 32, 16)
    construction = bench_construct.ConstructionCost
    assert cost(construction, "track_module", *large) > cost(construction, "track_module", *small)
    assert cost(construction, "track_tuple", *small) < cost(construction, "track_module", *small)
    for way in ("tree_at", "replace", "construct"):
        assert cost(bench_update.UpdateCost, "track_update", way, "default", 1) > cost(
            bench_update.UpdateCost, "track_update", "tuple", "default", 1
        )


@pytest.mark.parametrize("cls", PASSES_CLASSES, ids=lambda cls: cls.__name__)
def test_each_time_class_measures_in_tree_map_passes(cls, monkeypatch):
    measured = []

    def fake_ratio(numerator, denominator):
        numerator(), denominator()
        measured.append((numerator, denominator))
        return 1.5

    monkeypatch.setattr(
        bench_construct._InTreeMapPasses, "measure", lambda self, twin: fake_ratio(self.operations[twin], self.one_pass)
    )
    values = next(itertools.product(*getattr(cls, "params", [])))
    benchmark = cls()
    benchmark.setup(*values)
    assert all(getattr(benchmark, name)(*values) == 1.5 for name in tracked(cls))
    assert cls.unit == "tree_map passes"
    assert {id(denominator) for _, denominator in measured} == {id(benchmark.one_pass)}


def test_the_costs_and_the_times_do_not_alert_their_instruction_counts_do():
    for cls in COST_CLASSES:
        name = f"{cls.__module__.split('.')[-1]}.{cls.__name__}.{tracked(cls)[0]}"
        assert metrics.kind(name) == metrics.COST and not metrics.alerts(name)
    for cls in PASSES_CLASSES:
        name = f"{cls.__module__.split('.')[-1]}.{cls.__name__}.{tracked(cls)[0]}"
        assert metrics.kind(name) == metrics.RATIO and not metrics.alerts(name)
    # tree_at's own tree_map-pass ratios keep their rules.
    assert metrics.alerts("bench_overhead.EagerSurgeryInTreeMapPasses.track_tree_at")
    assert metrics.alerts("bench_overhead.EagerSurgeryInTreeMapPasses.track_tuple")


@pytest.mark.parametrize(
    ("cls", "passes"), list(zip(ONE_CALL_CLASSES, PASSES_CLASSES, strict=True)), ids=lambda cls: cls.__name__
)
def test_each_one_call_class_calls_each_twin_once_at_its_passes_class_s_params(cls, passes):
    assert getattr(cls, "params", []) == getattr(passes, "params", [])
    assert timed(cls) and not tracked(cls) and not timed(passes)  # asv finds only what each class measures
    assert [name.removeprefix("time_") for name in timed(cls)] == [
        name.removeprefix("track_") for name in tracked(passes)
    ]
    for values in itertools.product(*getattr(cls, "params", [])):
        benchmark = cls()
        benchmark.setup(*values)
        calls = []
        benchmark.operations = {
            twin: (lambda twin=twin, operation=operation, calls=calls: (calls.append(twin), operation())[1])
            for twin, operation in benchmark.operations.items()
        }
        for name in timed(cls):
            before = len(calls)
            assert getattr(benchmark, name)(*values) is None
            assert len(calls) == before + 1
        assert sorted(calls) == sorted(benchmark.operations)  # every twin, once
        name = f"{cls.__module__.split('.')[-1]}.{cls.__name__}.{timed(cls)[0]}"
        assert metrics.kind(name) == metrics.TIME and not metrics.alerts(name)
