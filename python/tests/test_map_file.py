"""voxen.map_file, the run `voxen map` makes (voxen::MappingRun), from Python: the map file
voxen map writes byte for byte, a store saved checkpoint by checkpoint with the same map and
its run's refusals, voxen map --json's statistics, and the GIL released while it maps."""
import json
import os
import signal
import subprocess
import threading

import pytest

import voxen
from gil_probe import assert_lets_other_threads_run

# The fields that depend on the run's timing, the process or the GPU's races (compare-and-swap
# retries), not on what was mapped.
TIMED = {"wall_s", "rays_per_s", "clearance_s", "peak_rss_mb", "memory", "output", "cas_retries"}


@pytest.fixture(scope="module")
def recording(tmp_path_factory, voxen_cli):
    """A small synthetic lidar run from `voxen generate`: a binary PLY with times and its
    trajectory."""
    folder = tmp_path_factory.mktemp("map-file")
    cloud, trajectory = folder / "run.ply", folder / "run.txt"
    done = subprocess.run(
        [voxen_cli, "generate", "--cloud", str(cloud), "--trajectory", str(trajectory),
         "--rings", "8", "--columns", "90", "--scans", "4"],
        capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return cloud, trajectory


def voxen_map(voxen_cli, *arguments):
    done = subprocess.run([voxen_cli, "map", "--json", "--quiet", *arguments], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def convert(voxen_cli, store, output):
    done = subprocess.run([voxen_cli, "convert", str(store), str(output)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return output.read_bytes()


def same_counts(stats, cli):
    """The same fields in the same order, and every count equal."""
    assert list(stats) == list(cli)
    for name in cli:
        if name not in TIMED and name != "store":
            assert stats[name] == cli[name], name


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_map_file_writes_the_map_voxen_map_writes(recording, tmp_path, voxen_cli, context, backend):
    cloud, trajectory = recording
    # The CPU reference with the clearance after mapping; the GPU with two extra layers.
    cli_flags = ["--cpu", "--clearance", "0.5"] if backend == "cpu" else ["--hit-miss", "--voxel-mean", "--device", "gpu"]
    keywords = {"clearance": 0.5} if backend == "cpu" else {"layers": ("hit_miss", "voxel_mean")}
    cli = voxen_map(voxen_cli, "--input", str(cloud), "--trajectory", str(trajectory), "--output", str(tmp_path / "cli.vxm"),
                    "--resolution", "0.1", *cli_flags)
    stats = voxen.map_file(cloud, tmp_path / "python.vxm", trajectory=trajectory, resolution=0.1, backend=backend,
                           context=context, **keywords)
    assert (tmp_path / "python.vxm").read_bytes() == (tmp_path / "cli.vxm").read_bytes()
    same_counts(stats, cli)
    assert stats["rays"] > 2000 and stats["samples"] == stats["rays"] + stats["skipped_outside_trajectory"]
    assert stats["occupied_voxels"] > 100 and stats["regions"] > 0
    assert stats["output"] == str(tmp_path / "python.vxm")
    assert "store" not in stats
    if backend == "cpu":
        assert stats["clearance_range"] == 0.5 and stats["clearance_regions"] > 0


def test_map_file_chooses_the_cpu_reference_for_a_small_input_as_voxen_map_does(recording, tmp_path, voxen_cli, context):
    """backend="auto" (the default), as voxen map --device auto: the run's few thousand rays on
    the CPU reference, the GPU's map byte for byte; "gpu" forces the GPU."""
    cloud, trajectory = recording
    auto = voxen.map_file(cloud, tmp_path / "auto.vxm", trajectory=trajectory, context=context)
    assert auto["backend"]["asked"] == "auto" and auto["backend"]["ran"] == "cpu", auto["backend"]
    assert "at most 20,000 map faster on the CPU reference" in auto["backend"]["reason"]
    assert auto["device"] == "CPU reference (sequential)" and auto["memory"] is None
    gpu = voxen.map_file(cloud, tmp_path / "gpu.vxm", trajectory=trajectory, backend="gpu", context=context)
    assert gpu["backend"] == {"asked": "gpu", "ran": "gpu", "reason": None}
    assert (tmp_path / "auto.vxm").read_bytes() == (tmp_path / "gpu.vxm").read_bytes()
    cli = voxen_map(voxen_cli, "--input", str(cloud), "--trajectory", str(trajectory), "--output", str(tmp_path / "cli.vxm"))
    assert cli["backend"] == auto["backend"]
    # Where the CPU reference does not give the GPU's map bit for bit: the GPU, saying why.
    one_pass = voxen.map_file(cloud, tmp_path / "one-pass.vxm", trajectory=trajectory, update_order="one-pass",
                              context=context)
    assert one_pass["backend"]["ran"] == "gpu" and "the one-pass order" in one_pass["backend"]["reason"]
    with pytest.raises(ValueError, match='backend must be "auto", "gpu" or "cpu"; got "fast"'):
        voxen.map_file(cloud, tmp_path / "bad.vxm", trajectory=trajectory, backend="fast", context=context)


def test_map_file_maps_into_a_store_with_checkpoints(recording, tmp_path, voxen_cli, context):
    cloud, trajectory = recording
    store = tmp_path / "python.vxs"
    seen = []
    stats = voxen.map_file(cloud, store=store, trajectory=trajectory, checkpoint_s=0, backend="cpu", context=context,
                           progress=lambda stage, done, total: seen.append(stage))
    cli = voxen_map(voxen_cli, "--input", str(cloud), "--trajectory", str(trajectory), "--store", str(tmp_path / "cli.vxs"),
                    "--checkpoint-s", "0", "--cpu")
    same_counts(stats, cli)
    assert list(stats["store"]) == list(cli["store"])
    assert stats["store"]["resumed_from_rays"] == 0 and stats["store"]["checkpoints"] == cli["store"]["checkpoints"] >= 1
    assert stats["store"]["regions_written"] == cli["store"]["regions_written"]
    assert seen and set(seen) <= {"fingerprint", "mapping"} and "mapping" in seen
    # The store's map is voxen map's, byte for byte once made map files.
    assert convert(voxen_cli, store, tmp_path / "python.vxm") == convert(voxen_cli, tmp_path / "cli.vxs", tmp_path / "cli.vxm")
    # The run in it is complete: another is refused, and there is nothing to resume.
    with pytest.raises(voxen.Error, match="already holds a mapping run"):
        voxen.map_file(cloud, store=store, trajectory=trajectory, backend="cpu", context=context)
    with pytest.raises(voxen.Error, match="is complete: there is nothing to resume"):
        voxen.map_file(cloud, store=store, trajectory=trajectory, backend="cpu", context=context, resume=True)


def test_map_file_stops_a_store_run_at_a_checkpoint_and_resumes_it(tmp_path, voxen_cli, context):
    cloud, trajectory = tmp_path / "long.ply", tmp_path / "long.txt"
    done = subprocess.run([voxen_cli, "generate", "--cloud", str(cloud), "--trajectory", str(trajectory),
                           "--rings", "16", "--columns", "360", "--scans", "12"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    asked = []

    def stop():
        asked.append(1)
        return len(asked) == 3

    # The CPU reference takes chunks of the batch size: 4,096 rays, a checkpoint after each.
    store = tmp_path / "stopped.vxs"
    stopped = voxen.map_file(cloud, store=store, trajectory=trajectory, checkpoint_s=0, backend="cpu", batch_size=4096,
                             context=context, stop=stop)
    assert stopped["stopped"]["by"] == "stop" and stopped["stopped"]["checkpoint"] >= 1
    assert len(asked) == 3 and 0 < stopped["stopped"]["rays_taken"] < 16 * 360 * 12
    resumed = voxen.map_file(cloud, store=store, trajectory=trajectory, checkpoint_s=0, backend="cpu", batch_size=4096,
                             context=context, resume=True)
    assert "stopped" not in resumed and resumed["store"]["resumed_from_rays"] == stopped["stopped"]["rays_taken"]
    # The resumed store's map is the uninterrupted run's.
    voxen.map_file(cloud, store=tmp_path / "whole.vxs", trajectory=trajectory, checkpoint_s=0, backend="cpu", context=context)
    assert convert(voxen_cli, store, tmp_path / "resumed.vxm") == convert(voxen_cli, tmp_path / "whole.vxs", tmp_path / "whole.vxm")


def test_ctrl_c_stops_a_store_run_at_a_checkpoint(tmp_path, voxen_cli, context):
    cloud, trajectory = tmp_path / "ctrl-c.ply", tmp_path / "ctrl-c.txt"
    done = subprocess.run([voxen_cli, "generate", "--cloud", str(cloud), "--trajectory", str(trajectory),
                           "--rings", "16", "--columns", "360", "--scans", "40"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    # SIGINT 0.1 s into a run of about a second (a signal that comes before the first chunk is
    # done stops the run there): the run stops at its next checkpoint, and no
    # KeyboardInterrupt is left pending.
    # (Python's own handler, which a process started with SIGINT ignored does not install.)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        timer = threading.Timer(0.1, lambda: os.kill(os.getpid(), signal.SIGINT))
        timer.start()
        stats = voxen.map_file(cloud, store=tmp_path / "ctrl-c.vxs", trajectory=trajectory, checkpoint_s=0, backend="cpu",
                               batch_size=4096, context=context)
        timer.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert stats["stopped"]["by"] == "SIGINT" and 0 < stats["stopped"]["rays_taken"] < 16 * 360 * 40


def test_map_file_refuses_what_it_cannot_do(recording, tmp_path, context):
    cloud, trajectory = recording
    with pytest.raises(TypeError, match="unexpected keyword argument 'resolutoin'"):
        voxen.map_file(cloud, tmp_path / "a.vxm", resolutoin=0.1)
    with pytest.raises(voxen.SettingError, match="not both"):
        voxen.map_file(cloud, tmp_path / "a.vxm", store=tmp_path / "a.vxs", backend="cpu", context=context)
    with pytest.raises(ValueError, match="update_order"):
        voxen.map_file(cloud, tmp_path / "a.vxm", update_order="sideways", context=context)
    # An input that gives no ray: nothing written, unless allow_empty.
    with pytest.raises(voxen.Error, match="no voxel was updated"):
        voxen.map_file(cloud, tmp_path / "empty.vxm", trajectory=trajectory, min_range=1e5, backend="cpu", context=context)
    assert not (tmp_path / "empty.vxm").exists()
    stats = voxen.map_file(cloud, tmp_path / "empty.vxm", trajectory=trajectory, min_range=1e5, backend="cpu",
                           allow_empty=True, context=context)
    assert stats["rays"] == 0 and stats["skipped_near_sensor"] > 0 and (tmp_path / "empty.vxm").exists()


def test_map_file_decay_s_forgets_as_voxen_map_decay_s(recording, tmp_path, voxen_cli, context):
    """decay_s= (occupancy decay, issue 38 item 5): the map voxen map --decay-s writes, byte for
    byte, with fewer observed voxels than without; a negative decay is a SettingError."""
    cloud, trajectory = recording
    cli = voxen_map(voxen_cli, "--input", str(cloud), "--trajectory", str(trajectory), "--output", str(tmp_path / "cli.vxm"),
                    "--batch-size", "1024", "--decay-s", "0.1", "--device", "gpu")
    stats = voxen.map_file(cloud, tmp_path / "python.vxm", trajectory=trajectory, batch_size=1024, decay_s=0.1,
                           backend="gpu", context=context)
    assert (tmp_path / "python.vxm").read_bytes() == (tmp_path / "cli.vxm").read_bytes()
    same_counts(stats, cli)
    whole = voxen.map_file(cloud, tmp_path / "whole.vxm", trajectory=trajectory, batch_size=1024, backend="cpu",
                           context=context)
    assert 0 < stats["occupied_voxels"] + stats["free_voxels"] < whole["occupied_voxels"] + whole["free_voxels"]
    with pytest.raises(voxen.SettingError, match="decay"):
        voxen.map_file(cloud, tmp_path / "bad.vxm", trajectory=trajectory, decay_s=-1.0, backend="cpu", context=context)
    assert not (tmp_path / "bad.vxm").exists()


def test_map_file_lets_other_threads_run(tmp_path, voxen_cli, context):
    # A larger run than the others, so that mapping it takes a while.
    cloud, trajectory = tmp_path / "large.ply", tmp_path / "large.txt"
    done = subprocess.run([voxen_cli, "generate", "--cloud", str(cloud), "--trajectory", str(trajectory),
                           "--rings", "16", "--columns", "360", "--scans", "6"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert_lets_other_threads_run(lambda: voxen.map_file(cloud, tmp_path / "threads.vxm", trajectory=trajectory, context=context))
