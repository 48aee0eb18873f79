// A depth camera's frames into a TSDF, and the surface as a mesh. The camera here is made up:
// a wall 2 m ahead of it, seen from five places as it slides sideways; voxen::DepthSource
// reads real frames from ROS 1 bags, MCAP files and TUM RGB-D folders, posed through tf.
#include <cmath>
#include <cstdio>

#include <voxen/voxen.hpp>

int main() {
  voxen::Context ctx;
  voxen::Mapper mapper(ctx, {.model = {.resolution = 0.02}});  // the tsdf layer comes with the first frame
  const voxen::TsdfOptions tsdf;                               // truncation 4 voxels, weight cap 64

  voxen::DepthFrame frame;
  frame.intrinsics = {.width = 320, .height = 240, .fx = 262.5, .fy = 262.5, .cx = 159.5, .cy = 119.5};
  frame.depth.width = 320;
  frame.depth.height = 240;
  frame.depth.encoding = voxen::DepthEncoding::Unsigned16;
  frame.depth.depthScale = 0.001;                          // millimetres, as ROS's 16UC1
  frame.depth.depth16.assign(frame.depth.pixels(), 2000);  // every pixel sees the wall at 2 m
  // The optical frame (z forward, x right, y down) as the map's axes: the camera looks along +z.
  frame.orientation = glm::dquat(1.0, 0.0, 0.0, 0.0);
  for (int i = 0; i < 5; ++i) {
    frame.time = i / 30.0;
    frame.position = {0.05 * i, 0.0, 0.0};
    mapper.integrateDepth(frame, tsdf);
  }

  const voxen::TsdfMesh surface = mapper.mesh();  // the next call meshes only what changed
  voxen::writeTsdfMeshPly(surface, "wall.ply");   // MeshLab, CloudCompare
  double worst = 0.0;                              // the wall lies at z = 2 m
  for (const glm::vec3& p : surface.positions) worst = std::fmax(worst, std::fabs(p.z - 2.0));
  std::printf("%zu vertices, %zu triangles, at most %.2f mm off the wall\n", surface.positions.size(),
              surface.faces.size(), worst * 1000.0);
  return !surface.faces.empty() && worst < 0.5 * 0.02 ? 0 : 1;
}
