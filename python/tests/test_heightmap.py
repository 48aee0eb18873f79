"""Mapper.heightmap against the CPU reference and `voxen heightmap --npy`."""
import json
import subprocess

import numpy as np
import pytest

import voxen


def floor_and_deck(context, backend):
    """Rays down onto a floor at z = 0 everywhere, and onto a deck 2 m up over x in [0, 1]:
    the columns under the deck have two levels (the floor under it was seen from below)."""
    mapper = voxen.Mapper(resolution=0.1, context=context, backend=backend)
    xs, ys = np.meshgrid(np.arange(-1.0, 2.0, 0.05), np.arange(-1.0, 1.0, 0.05))
    ground = np.stack([xs.ravel(), ys.ravel(), np.full(xs.size, 0.02)], axis=1)
    mapper.integrate_rays(ground + [0.0, 0.0, 1.5], ground)  # from 1.5 m, under the deck too
    deck = ground[(ground[:, 0] >= 0.0) & (ground[:, 0] < 1.0)] + [0.0, 0.0, 2.0]
    mapper.integrate_rays(deck + [0.0, 0.0, 1.0], deck)
    return mapper


def test_gpu_equals_cpu_reference(context):
    gpu = floor_and_deck(context, "gpu").heightmap(robot_height=0.5, levels=2)
    cpu = floor_and_deck(context, "cpu").heightmap(robot_height=0.5, levels=2)
    assert set(gpu) == {"height", "clearance", "slope", "cost", "virtual", "origin", "resolution"}
    for key in ("height", "clearance", "slope", "cost", "virtual"):
        assert gpu[key].dtype == np.float32 and gpu[key].shape[0] == 2
        np.testing.assert_array_equal(gpu[key], cpu[key])
    assert gpu["origin"] == cpu["origin"] and gpu["resolution"] == 0.1
    height = gpu["height"]
    # The floor voxel's centre everywhere it was seen; the deck is a second level over x in [0, 1).
    x0, y0 = gpu["origin"]
    col = lambda x: int((x - x0) / 0.1)  # noqa: E731
    row = lambda y: int((y - y0) / 0.1)  # noqa: E731
    assert height[0, row(0.0), col(-0.5)] == pytest.approx(0.05)
    assert np.isnan(height[1, row(0.0), col(-0.5)])
    assert height[0, row(0.0), col(0.5)] == pytest.approx(0.05)
    assert height[1, row(0.0), col(0.5)] == pytest.approx(2.05)
    assert gpu["clearance"][0, row(0.0), col(0.5)] == pytest.approx(1.9)  # z 0.1 .. 2.0 under the deck
    assert gpu["cost"][0, row(0.0), col(-0.5)] == 0


def test_same_cells_as_the_cli(context, tmp_path, voxen_cli):
    mapper = floor_and_deck(context, "cpu")
    mapper.save(tmp_path / "map.vxm")
    cli = subprocess.run([voxen_cli, "heightmap", str(tmp_path / "map.vxm"), "--output", str(tmp_path / "hm.vxh"),
                          "--robot-height", "0.5", "--npy", str(tmp_path / "hm"), "--quiet"], capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr
    ours = mapper.heightmap(robot_height=0.5)
    meta = json.loads((tmp_path / "hm.json").read_text())
    assert (meta["origin_x"], meta["origin_y"]) == pytest.approx(ours["origin"])
    for key in ("height", "clearance", "slope", "cost"):
        np.testing.assert_array_equal(np.load(tmp_path / f"hm-{key}.npy"), ours[key])


def test_bad_settings(context):
    mapper = floor_and_deck(context, "cpu")
    with pytest.raises(voxen.SettingError, match="robot height"):
        mapper.heightmap(robot_height=0.01)
    with pytest.raises(voxen.SettingError, match="level count"):
        mapper.heightmap(levels=9)
    with pytest.raises(ValueError, match="bbox must be six numbers"):
        mapper.heightmap(bbox=[0, 0, 0])
    with pytest.raises(voxen.SettingError, match="outside the map"):
        mapper.heightmap(bbox=[50, 50, 0, 60, 60, 1])


def test_live_heightmap_follows_the_map(context):
    """Mapper.heightmap after each batch of rays (incremental: only the changed region columns
    are computed again) equals a heightmap computed whole from the same rays, as the map grows
    past its old extent and a box appears on ground already mapped."""
    live = voxen.Mapper(resolution=0.1, context=context, backend="gpu")
    rays = []
    for step in range(4):
        xs, ys = np.meshgrid(np.arange(step * 2.5, step * 2.5 + 3.0, 0.05), np.arange(-1.0, 1.0, 0.05))
        ground = np.stack([xs.ravel(), ys.ravel(), np.full(xs.size, 0.02 + 0.1 * step)], axis=1)
        batch = [(ground + [0.0, 0.0, 1.5], ground)]
        if step == 3:  # a box top 0.5 m up on ground mapped in the first batch
            bx, by = np.meshgrid(np.arange(0.2, 0.7, 0.05), np.arange(-0.3, 0.3, 0.05))
            top = np.stack([bx.ravel(), by.ravel(), np.full(bx.size, 0.52)], axis=1)
            batch.append((top + [0.0, 0.0, 1.0], top))
        for origins, ends in batch:
            live.integrate_rays(origins, ends)
            rays.append((origins, ends))
        ours = live.heightmap(robot_height=0.5, levels=2)
        whole = voxen.Mapper(resolution=0.1, context=context, backend="cpu")
        for origins, ends in rays:
            whole.integrate_rays(origins, ends)
        expected = whole.heightmap(robot_height=0.5, levels=2)
        assert ours["origin"] == expected["origin"]
        for key in ("height", "clearance", "slope", "cost", "virtual"):
            np.testing.assert_array_equal(ours[key], expected[key], err_msg=f"{key} after batch {step}")
