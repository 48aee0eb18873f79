"""voxen.import_octomap and Mapper.export_octomap against the CLI's import and export."""
import subprocess

import numpy as np
import pytest

import voxen


def run(cli, *args):
    done = subprocess.run([cli, *map(str, args)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done


def test_export_is_the_cli_export(saved_map, tmp_path, voxen_cli, context):
    run(voxen_cli, "export", saved_map, "--octomap", tmp_path / "cli.bt")
    mapper = voxen.load(saved_map, context=context)
    counts = mapper.export_octomap(tmp_path / "python.bt")
    assert (tmp_path / "python.bt").read_bytes() == (tmp_path / "cli.bt").read_bytes()
    assert counts["voxels"] > 1000 and counts["non_finite"] == 0


@pytest.mark.parametrize("region", [32, 16])
def test_import_is_the_cli_import(saved_map, tmp_path, voxen_cli, context, scene, region):
    tree = tmp_path / "scene.bt"
    run(voxen_cli, "export", saved_map, "--octomap", tree)
    run(voxen_cli, "import-octomap", tree, "--output", tmp_path / "cli.vxm", "--region-size", region)
    imported = voxen.import_octomap(str(tree), region=region, context=context)
    assert imported.context is context and imported.resolution == pytest.approx(0.1)
    imported.save(tmp_path / "python.vxm")
    assert (tmp_path / "python.vxm").read_bytes() == (tmp_path / "cli.vxm").read_bytes()
    # Classes survive the trip (log-odds do not: OctoMap files hold classes only).
    original = voxen.load(saved_map, context=context)
    points = np.random.default_rng(3).uniform(-2.5, 2.5, size=(2000, 3))
    np.testing.assert_array_equal(imported.classify(points), original.classify(points))
    # The imported Mapper maps on: the GPU and the CPU reference agree on it.
    cpu = voxen.import_octomap(tree, region=region, context=context, backend="cpu")
    for each in (imported, cpu):
        each.integrate_rays(scene[0][:500], -scene[1][:500])
    np.testing.assert_array_equal(imported.occupancy(points), cpu.occupancy(points))


def test_errors_name_the_file(saved_map, tmp_path, context):
    with pytest.raises(voxen.Error, match="missing.bt"):
        voxen.import_octomap(tmp_path / "missing.bt", context=context)
    garbage = tmp_path / "garbage.bt"
    garbage.write_bytes(b"# not an octomap\nhello\n")
    with pytest.raises(voxen.Error, match="garbage.bt"):
        voxen.import_octomap(garbage, context=context)
    good = tmp_path / "good.bt"
    voxen.load(saved_map, context=context).export_octomap(good)
    truncated = tmp_path / "truncated.bt"
    truncated.write_bytes(good.read_bytes()[:-7])
    with pytest.raises(voxen.Error, match="truncated.bt"):
        voxen.import_octomap(truncated, context=context)
    with pytest.raises(voxen.Error, match="no-such-folder"):
        voxen.load(saved_map, context=context).export_octomap(tmp_path / "no-such-folder" / "out.bt")
    with pytest.raises(voxen.SettingError, match="region"):
        voxen.import_octomap(good, region=3, context=context)
    with pytest.raises(ValueError, match="backend"):
        voxen.import_octomap(good, backend="tpu", context=context)
