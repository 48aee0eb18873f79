"""voxen.MapSnapshot: a thread maps and publishes snapshots while other threads query them
(issue 38, item 1). Every answer a query thread got equals the CPU reference's on the map of
that snapshot's version, so no thread saw a half-applied batch, and the query threads never
needed the Context's one-thread rule."""
import threading

import numpy as np

import voxen


def chunks(scene, parts):
    origins, ends = scene
    step = len(origins) // parts
    for i in range(parts):
        yield origins[i * step:(i + 1) * step], ends[i * step:(i + 1) * step]


def test_query_threads_read_published_snapshots_while_a_thread_maps(context, scene):
    mapper = voxen.Mapper(resolution=0.1, context=context)
    reference = voxen.Mapper(resolution=0.1, context=voxen.Context(), backend="cpu")
    rng = np.random.default_rng(5)
    points = rng.uniform(-2.2, 2.2, size=(5000, 3))  # past the host bound: GPU batches
    expected = {1: reference.classify(points)}  # version 1: the empty map
    seen = []  # (version, classes) from the query threads
    failures = []
    mapping = threading.Event()
    mapping.set()

    def query():
        try:
            rounds = 0
            while mapping.is_set() or rounds < 2:
                snapshot = mapper.latest_snapshot()
                seen.append((snapshot.version, snapshot.classify(points)))
                rounds += 1
        except Exception as error:  # noqa: BLE001: reported below
            failures.append(repr(error))

    threads = [threading.Thread(target=query) for _ in range(2)]
    for t in threads:
        t.start()
    for origins, ends in chunks(scene, 4):
        mapper.integrate_rays(origins, ends)
        reference.integrate_rays(origins, ends)
        version = mapper.snapshot().version
        expected[version] = reference.classify(points)
    mapping.clear()
    for t in threads:
        t.join()
    assert failures == []
    assert sorted(expected) == [1, 2, 3, 4, 5]
    assert len(seen) >= 4
    for version, classes in seen:
        np.testing.assert_array_equal(classes, expected[version], err_msg=f"snapshot version {version}")
    # The last snapshot answers as the Mapper does, rays and clearance included.
    last = mapper.latest_snapshot()
    assert last.version == 5
    np.testing.assert_array_equal(last.occupancy(points), mapper.occupancy(points))
    hits = last.raycast(np.zeros((3, 3)), np.eye(3), max_range=3.0)
    np.testing.assert_array_equal(hits["distance"], mapper.raycast(np.zeros((3, 3)), np.eye(3), max_range=3.0)["distance"])
    assert hits["hit"].any()


def test_a_snapshot_does_not_change_and_saves(context, scene, tmp_path):
    mapper = voxen.Mapper(resolution=0.1, context=context)
    origins, ends = scene
    mapper.integrate_rays(origins[:1000], ends[:1000])
    first = mapper.snapshot()
    before = first.classify(ends)
    mapper.integrate_rays(origins[1000:], ends[1000:])
    second = mapper.snapshot()
    assert second.version == first.version + 1
    np.testing.assert_array_equal(first.classify(ends), before)  # unchanged by the later rays
    assert (second.classify(ends) == 1).sum() > (before == 1).sum()
    first.save(tmp_path / "first.vxm")
    loaded = voxen.load(tmp_path / "first.vxm", context=context)
    np.testing.assert_array_equal(loaded.classify(ends), before)
