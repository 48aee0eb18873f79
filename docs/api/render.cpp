// The map's occupied voxels drawn to a PNG: renderMap sizes its own buffers. The PNG writer
// is the export module's (voxen/voxen.hpp holds the facade; module headers add the rest).
#include <cstdio>

#include <voxen/export/png_writer.hpp>
#include <voxen/voxen.hpp>

int main() {
  voxen::Context ctx;
  voxen::Mapper mapper = voxen::Mapper::load(ctx, "room.vxm");
  const voxen::RenderImage image = mapper.render({.width = 640, .height = 480});
  voxen::writePng("room.png", image.width, image.height, image.pixels, voxen::PngFormat::Rgba8);
  std::printf("%u x %u picture of %llu occupied voxels, %u triangles drawn\n", image.width, image.height,
              (unsigned long long)image.occupiedVoxels, image.drawnTriangles);
  return image.drawnTriangles > 0 ? 0 : 1;
}
