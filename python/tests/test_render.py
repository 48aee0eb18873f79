"""Mapper.render against `voxen render` of the same saved map."""
import struct
import subprocess
import zlib

import numpy as np
import pytest

import voxen


def read_png_rgba(path):
    """An 8-bit RGBA PNG as an (H, W, 4) uint8 array (what `voxen render` writes)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, idat = 8, b""
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert (depth, colour) == (8, 6), "8-bit RGBA"
        elif kind == b"IDAT":
            idat += body
        position += 12 + length
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(height, 1 + width * 4)
    image = np.zeros((height, width * 4), dtype=np.int32)
    for row in range(height):
        kind, line = raw[row, 0], raw[row, 1:].astype(np.int32)
        above = image[row - 1] if row else np.zeros(width * 4, dtype=np.int32)
        if kind in (0, 2):
            image[row] = (line + (above if kind == 2 else 0)) % 256
            continue
        out = np.zeros(width * 4, dtype=np.int32)
        for i in range(width * 4):
            left = out[i - 4] if i >= 4 else 0
            upper_left = above[i - 4] if i >= 4 else 0
            if kind == 1:
                predictor = left
            elif kind == 3:
                predictor = (left + above[i]) // 2
            else:
                p = left + above[i] - upper_left
                pa, pb, pc = abs(p - left), abs(p - above[i]), abs(p - upper_left)
                predictor = left if pa <= pb and pa <= pc else above[i] if pb <= pc else upper_left
            out[i] = (line[i] + predictor) % 256
        image[row] = out
    return image.astype(np.uint8).reshape(height, width, 4)


@pytest.mark.parametrize(
    "camera, flags",
    [
        (None, []),
        ({"eye": (5.0, -4.0, 3.0), "target": (0.0, 0.0, 0.0), "fov_degrees": 40.0},
         ["--camera", "5,-4,3,0,0,0", "--fov", "40"]),
    ],
)
def test_same_pixels_as_the_cli(context, saved_map, tmp_path, voxen_cli, camera, flags):
    width, height = 96, 64
    cli = subprocess.run([voxen_cli, "render", str(saved_map), "--output", str(tmp_path / "cli.png"), "--width", str(width),
                          "--height", str(height)] + flags, capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr
    mapper = voxen.load(saved_map, context=context)
    image = mapper.render(width, height, camera)
    assert image.dtype == np.uint8 and image.shape == (height, width, 4)
    expected = read_png_rgba(tmp_path / "cli.png")
    np.testing.assert_array_equal(image, expected)
    assert len(np.unique(image.reshape(-1, 4), axis=0)) > 10  # a shaded mesh, not a blank frame


def test_png_reader_reads_a_known_picture(tmp_path):
    """The test's own PNG reader, on a picture with every filter type (written by zlib here)."""
    rng = np.random.default_rng(0)
    pixels = rng.integers(0, 256, size=(5, 3, 4), dtype=np.uint8)
    rows = b""
    for row in range(5):
        rows += b"\x00" + pixels[row].tobytes()  # filter 0; the others are checked against the CLI's files
    chunk = lambda kind, body: struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 3, 5, 8, 6, 0, 0, 0)) +
           chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
    (tmp_path / "known.png").write_bytes(png)
    np.testing.assert_array_equal(read_png_rgba(tmp_path / "known.png"), pixels)


def test_bad_sizes_and_cameras(context, saved_map):
    mapper = voxen.load(saved_map, context=context, backend="cpu")
    for width, height in ((15, 64), (64, 0), (-1, 64), (64, 16385)):
        with pytest.raises(ValueError, match="must be 16 to 16384 pixels"):
            mapper.render(width, height)
    with pytest.raises(ValueError, match="unknown key \"zoom\""):
        mapper.render(32, 32, {"zoom": 2})
    with pytest.raises(ValueError, match=r"camera\[\"eye\"\] must be 3 numbers"):
        mapper.render(32, 32, {"eye": (1, 2), "target": (0, 0, 0)})
    with pytest.raises(ValueError, match=r"camera\[\"eye\"\] is NaN"):
        mapper.render(32, 32, {"eye": (1, float("nan"), 0), "target": (0, 0, 0)})
    with pytest.raises(voxen.SettingError, match="needs both an eye and a target"):
        mapper.render(32, 32, {"eye": (1, 2, 3)})
    with pytest.raises(voxen.SettingError, match="field of view"):
        mapper.render(32, 32, {"fov_degrees": 180.0})
    with pytest.raises(ValueError, match="fov_degrees\"\\] is NaN"):
        mapper.render(32, 32, {"fov_degrees": float("nan")})
    with pytest.raises(ValueError, match="camera must be None or a dict"):
        mapper.render(32, 32, "top")


def test_empty_map_is_an_engine_error(context):
    with pytest.raises(voxen.Error, match="no occupied voxels to render"):
        voxen.Mapper(context=context).render(32, 16)
