"""examples/python/plan_with_clearance.py runs end to end (small sizes) and writes its figure."""
import pathlib
import subprocess
import sys

import numpy as np
import pytest

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python" / "plan_with_clearance.py"


def test_plan_with_clearance_example(tmp_path):
    image = pytest.importorskip("matplotlib.image", reason="python3-matplotlib draws the example's figure")
    figure = tmp_path / "plan.png"
    run = subprocess.run([sys.executable, str(EXAMPLE), "--output", str(figure), "--scans", "30", "--beams", "12000"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    # The script checks its own path with ray casts and exits non-zero if a leg is blocked.
    assert "none blocked" in run.stdout and f"wrote {figure}" in run.stdout
    pixels = image.imread(figure)
    assert pixels.ndim == 3 and pixels.shape[0] > 400 and pixels.shape[1] > 800
    assert np.unique(pixels.reshape(-1, pixels.shape[2]), axis=0).shape[0] > 20  # a picture, not a blank page
