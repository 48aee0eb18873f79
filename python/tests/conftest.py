"""Shared fixtures: one validated Context for the session, a scene of rays, the CLI's path."""
import os

import numpy as np
import pytest

import voxen


@pytest.fixture(scope="session")
def context():
    return voxen.Context(validation=True)


@pytest.fixture(autouse=True)
def no_validation_messages(context):
    """Any validation message fails the test that caused it, as in the C++ suite: on the
    session's Context and on the shared default one (validated through VOXEN_VALIDATION=1)."""
    default = voxen.Mapper().context  # a Mapper opens no device until it does GPU work
    for each in (context, default):
        each.clear_validation_messages()
    yield
    assert context.validation_messages == []
    assert default.validation_messages == []


@pytest.fixture(scope="session")
def scene():
    """Rays from a few origins to the walls of a 4 m box: free space inside, walls occupied."""
    rng = np.random.default_rng(23)
    n = 4000
    origins = rng.uniform(-0.5, 0.5, size=(n, 3))
    directions = rng.normal(size=(n, 3))
    directions /= np.abs(directions).max(axis=1, keepdims=True)
    ends = directions * 2.0  # on the faces of the cube [-2, 2]^3
    return np.ascontiguousarray(origins), np.ascontiguousarray(ends)


@pytest.fixture(scope="session")
def voxen_cli():
    path = os.environ.get("VOXEN_CLI")
    if not path:
        pytest.skip("VOXEN_CLI is not set (ctest sets it to the built voxen)")
    return path


@pytest.fixture(scope="session")
def saved_map(tmp_path_factory, scene):
    """The scene mapped at 0.1 m by the CPU reference and saved: the file the CLI is given."""
    path = tmp_path_factory.mktemp("scene") / "scene.vxm"
    mapper = voxen.Mapper(resolution=0.1, backend="cpu")
    mapper.integrate_rays(*scene)
    mapper.save(path)
    return path
