"""voxen.TransformTree on the GPU against the engine's CPU reference (backend="cpu")."""
import numpy as np
import pytest

import voxen
from gil_probe import assert_lets_other_threads_run


def translation(x, y, z):
    m = np.eye(4)
    m[:3, 3] = (x, y, z)
    return m


def random_locals(rng, n):
    """Rigid motions: a rotation (from a QR factorisation) and a translation of up to 2 m."""
    q, r = np.linalg.qr(rng.normal(size=(n, 3, 3)))
    q *= np.sign(np.diagonal(r, axis1=1, axis2=2))[:, None, :]
    m = np.tile(np.eye(4), (n, 1, 1))
    m[:, :3, :3] = q
    m[:, :3, 3] = rng.uniform(-2.0, 2.0, size=(n, 3))
    return m


def build_forest(tree, rng, roots=40, fanout=3, depth=5):
    """Adds a forest level by level (one vectorised add per level); returns the ids and the
    parent id of each node (-1 for top-level ones)."""
    ids = tree.add(None, random_locals(rng, roots))
    parents = [np.full(roots, -1)]
    all_ids, level = [ids], ids
    for _ in range(depth - 1):
        under = np.repeat(level, fanout)
        level = tree.add(under, random_locals(rng, len(under)))
        all_ids.append(level)
        parents.append(under)
    return np.concatenate(all_ids), np.concatenate(parents)


def twin_trees(context, **forest):
    """The same forest in a GPU tree and a CPU reference tree (the same rng draws)."""
    trees = []
    for backend in ("gpu", "cpu"):
        tree = voxen.TransformTree(context=context, backend=backend)
        ids, parents = build_forest(tree, np.random.default_rng(11), **forest)
        trees.append(tree)
    return trees[0], trees[1], ids, parents


def levels_of(parents, ids):
    depth = {}
    for node, parent in zip(ids, parents):
        depth[node] = 1 if parent == -1 else depth[parent] + 1
    return max(depth.values())


def relative_error(a, b, ids):
    a, b = a[ids].astype(np.float64), b[ids].astype(np.float64)
    return np.max(np.abs(a - b) / np.maximum(1.0, np.abs(a)))


@pytest.mark.parametrize("shape", [dict(roots=400, fanout=2, depth=4), dict(roots=2, fanout=1, depth=300)])
def test_gpu_worlds_match_the_cpu_reference(context, shape):
    gpu, cpu, ids, parents = twin_trees(context, **shape)
    assert len(gpu) == len(ids) and gpu.capacity == len(ids) + 1 and gpu.context is context
    for tree in (gpu, cpu):
        tree.process()
    # The C++ tests' tolerance: float products in another order drift by level.
    tolerance = 1e-5 * max(1, levels_of(parents, ids))
    assert relative_error(cpu.world(), gpu.world(), ids) < tolerance
    # Changed locals, some deep, some at the top: only their subtrees change.
    rng = np.random.default_rng(4)
    moved = rng.choice(ids, size=min(50, len(ids) // 3), replace=False)
    new = random_locals(rng, len(moved))
    for tree in (gpu, cpu):
        tree.set_local(moved, new)
        tree.process()
    assert relative_error(cpu.world(), gpu.world(), ids) < tolerance
    np.testing.assert_allclose(gpu.world(moved[:5]), cpu.world(moved[:5]), rtol=0, atol=tolerance * 10)


def test_worlds_follow_numpy_conventions(context):
    for backend in ("gpu", "cpu"):
        tree = voxen.TransformTree(context=context, backend=backend)
        base = tree.add(None, translation(1.0, 2.0, 3.0))
        turn = np.array([[0.0, -1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
        arm = tree.add(base, turn)  # a quarter turn about z
        hand = tree.add(arm, translation(1.0, 0.0, 0.0).astype(np.float32))
        assert (base, arm, hand) == (1, 2, 3)
        tree.process()
        world = tree.world(hand)
        assert world.shape == (4, 4) and world.dtype == np.float32
        # The hand sits 1 m along the arm's x, which the turn points along the world's y.
        np.testing.assert_allclose(world @ [0.0, 0.0, 0.0, 1.0], [1.0, 3.0, 3.0, 1.0], atol=1e-6)
        np.testing.assert_allclose(world, translation(1, 2, 3) @ turn @ translation(1, 0, 0), atol=1e-6)
        everything = tree.world()
        assert everything.shape == (4, 4, 4) and np.isnan(everything[0]).all()
        np.testing.assert_array_equal(everything[3], world)


def test_against_numpy_float64(context):
    tree = voxen.TransformTree(context=context)
    ids, parents = build_forest(tree, np.random.default_rng(11), roots=20, fanout=2, depth=6)
    # The same draws again, kept in float64 this time.
    again = voxen.TransformTree(context=context, backend="cpu")
    rng = np.random.default_rng(11)
    locals_ = {}
    level = again.add(None, m := random_locals(rng, 20))
    locals_.update(zip(level, m))
    for _ in range(5):
        under = np.repeat(level, 2)
        level = again.add(under, m := random_locals(rng, len(under)))
        locals_.update(zip(level, m))
    tree.process()
    worlds = tree.world()
    expected = {}
    for node, parent in zip(ids, parents):
        expected[node] = locals_[node] if parent == -1 else expected[parent] @ locals_[node]
    for node in ids:
        np.testing.assert_allclose(worlds[node], expected[node], rtol=0, atol=1e-4)


def test_layouts_and_empty_updates(context):
    rng = np.random.default_rng(2)
    locals_ = random_locals(rng, 6)
    a = voxen.TransformTree(context=context)
    b = voxen.TransformTree(context=context)
    a.add(None, locals_)
    b.add(-1, np.ascontiguousarray(locals_.transpose(0, 2, 1)).transpose(0, 2, 1))  # a strided view, same matrices
    for tree in (a, b):
        assert tree.add(None, np.empty((0, 4, 4))).shape == (0,)
        tree.set_local(np.empty(0, dtype=np.int64), np.empty((0, 4, 4)))
        tree.set_local([], np.empty((0, 4, 4)))
        tree.process()
    np.testing.assert_array_equal(a.world(), b.world())
    empty = voxen.TransformTree(context=context)
    empty.process()
    assert empty.world().shape == (1, 4, 4) and len(empty) == 0


def test_integer_matrices_are_converted(context):
    """A translation by whole metres in an integer array is the same matrix as in float64."""
    moves = np.tile(np.eye(4, dtype=np.int64), (3, 1, 1))
    moves[:, :3, 3] = [[1, 2, 3], [-4, 0, 5], [0, 0, -7]]
    for backend in ("cpu", "gpu"):
        tree = voxen.TransformTree(context=context, backend=backend)
        root = tree.add(None, moves[0].astype(np.int32))
        children = tree.add(np.array([root, root]), moves[1:])
        tree.set_local(children[1], moves[2].astype(np.int16))
        tree.process()
        np.testing.assert_array_equal(tree.world(root), translation(1, 2, 3))
        np.testing.assert_array_equal(tree.world(children), [translation(-3, 2, 8), translation(1, 2, -4)])


def test_remove_and_set_parent(context):
    for backend in ("gpu", "cpu"):
        tree = voxen.TransformTree(context=context, backend=backend)
        a = tree.add(None, translation(1, 0, 0))
        b = tree.add(a, translation(0, 1, 0))
        c = tree.add(b, translation(0, 0, 1))
        with pytest.raises(voxen.Error, match="subtree"):
            tree.set_parent(a, c)  # a cycle
        tree.set_parent(c, None)
        tree.process()
        np.testing.assert_allclose(tree.world(c), translation(0, 0, 1))
        tree.remove(b)
        tree.process()
        assert len(tree) == 2 and np.isnan(tree.world()[b]).all()
        with pytest.raises(ValueError, match=f"ids: {b} is not a node"):
            tree.world(b)
        assert tree.add(None, np.eye(4)) == b  # ids are reused


@pytest.mark.parametrize(
    "parent, local, words",
    [
        (None, np.eye(3), "local must be an array of shape (4, 4) or (N, 4, 4) with a float or integer dtype; got shape (3, 3)"),
        (None, np.zeros((2, 4, 3)), "got shape (2, 4, 3)"),
        (None, np.eye(3, dtype=np.int64), "got shape (3, 3) and dtype int64"),
        (None, np.eye(4, dtype=bool), "dtype bool"),
        (None, "eye", "got <class 'str'>"),
        (None, np.full((4, 4), np.nan), r"local[0, 0] is nan"),
        (None, np.stack([np.eye(4), np.full((4, 4), np.inf)]), r"local[1][0, 0] is inf"),
        (None, np.eye(4) * 1e300, "finite (in float32)"),
        (7, np.eye(4), "parent: 7 is not a node of this tree"),
        (0, np.eye(4), "ids start at 1"),
        (np.array([1, 99]), np.tile(np.eye(4), (2, 1, 1)), r"parent[1]: 99 is not a node"),
        (np.array([1, 1, 1]), np.tile(np.eye(4), (2, 1, 1)), "parent has 3 ids but local has 2"),
        (np.array([1]), np.eye(4), "parent must be None or an int with one (4, 4) local matrix"),
        (np.array([1.0]), np.tile(np.eye(4), (1, 1, 1)), "parent must be an int or an array of shape (N,) of integers; got shape (1,) and dtype float64"),
        (True, np.eye(4), "got a bool"),
        (1.0, np.eye(4), "got <class 'float'>"),
    ],
)
def test_bad_input_is_refused_and_adds_nothing(context, parent, local, words):
    tree = voxen.TransformTree(context=context)
    tree.add(None, np.eye(4))
    with pytest.raises(ValueError) as error:
        tree.add(parent, local)
    assert words in str(error.value)
    assert len(tree) == 1


def test_bad_updates_change_nothing(context):
    tree = voxen.TransformTree(context=context)
    ids = tree.add(None, np.tile(np.eye(4), (3, 1, 1)))
    tree.process()
    with pytest.raises(ValueError, match=r"ids\[2\]: 5 is not a node"):
        tree.set_local(np.array([1, 2, 5]), np.tile(translation(1, 1, 1), (3, 1, 1)))
    with pytest.raises(ValueError, match="ids and local must match"):
        tree.set_local(ids, np.eye(4))
    with pytest.raises(ValueError, match="ids and local must match"):
        tree.set_local(1, np.tile(np.eye(4), (2, 1, 1)))
    with pytest.raises(ValueError, match="ids must be an int or an array"):
        tree.set_local(np.array([[1]]), np.tile(np.eye(4), (1, 1, 1)))
    # Nothing changed, so the worlds are still current.
    np.testing.assert_array_equal(tree.world(ids), np.tile(np.eye(4, dtype=np.float32), (3, 1, 1)))
    tree.set_local(np.uint64(2), translation(0, 0, 2))
    with pytest.raises(voxen.Error, match="call process"):
        tree.world()
    tree.process()
    np.testing.assert_array_equal(tree.world(2), translation(0, 0, 2))
    with pytest.raises(ValueError, match="backend"):
        voxen.TransformTree(backend="tpu")


def test_process_lets_other_threads_run(context):
    tree = voxen.TransformTree(context=context)
    ids, _ = build_forest(tree, np.random.default_rng(5), roots=20000, fanout=2, depth=4)
    tree.process()
    tree.world(ids[:1])  # the device and pipelines ready first
    moved = np.random.default_rng(6).permutation(ids)
    new = random_locals(np.random.default_rng(7), len(moved))

    # The GPU pass and the wait for its worlds (world() reads them back): one call each. Every
    # repetition moves all frames again, so each process() has the whole forest to do.
    assert_lets_other_threads_run(lambda: (tree.set_local(moved, new), tree.process(), tree.world(ids[-1])))
