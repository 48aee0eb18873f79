// A TSDF mesh as a binary little-endian PLY that MeshLab and CloudCompare open.
#include <bit>
#include <cstring>
#include <string>

#include "voxen/atomic_file/atomic_file.hpp"
#include "voxen/host/error.hpp"
#include "voxen/tsdf/tsdf_mesh.hpp"

namespace voxen {

namespace {

template <class T>
void append(std::vector<char>& out, T value) {
  static_assert(std::endian::native == std::endian::little, "the PLY writer assumes a little-endian host");
  const size_t at = out.size();
  out.resize(at + sizeof value);
  std::memcpy(out.data() + at, &value, sizeof value);
}

}  // namespace

void writeTsdfMeshPly(const TsdfMesh& mesh, const std::filesystem::path& path) {
  const bool coloured = !mesh.colours.empty();
  if (mesh.normals.size() != mesh.positions.size() || (coloured && mesh.colours.size() != mesh.positions.size()))
    throw Error("cannot save PLY to '" + path.string() + "': the mesh's normals or colours do not match its vertices");
  std::string header = "ply\nformat binary_little_endian 1.0\ncomment written by voxen: a TSDF's surface (marching cubes)\n";
  header += "element vertex " + std::to_string(mesh.positions.size()) + "\n";
  header += "property float x\nproperty float y\nproperty float z\nproperty float nx\nproperty float ny\nproperty float nz\n";
  if (coloured) header += "property uchar red\nproperty uchar green\nproperty uchar blue\n";
  header += "element face " + std::to_string(mesh.faces.size()) + "\nproperty list uchar uint vertex_indices\nend_header\n";
  detail::AtomicFileWriter out(path, "PLY");
  out.write(header.data(), header.size());
  std::vector<char> buffer;
  buffer.reserve(1 << 20);
  const auto flushIfFull = [&] {
    if (buffer.size() >= (1 << 20) - 64) {
      out.write(buffer.data(), buffer.size());
      buffer.clear();
    }
  };
  for (size_t i = 0; i < mesh.positions.size(); ++i) {
    for (int a = 0; a < 3; ++a) append(buffer, mesh.positions[i][a]);
    for (int a = 0; a < 3; ++a) append(buffer, mesh.normals[i][a]);
    if (coloured)
      for (int a = 0; a < 3; ++a) append(buffer, uint8_t(mesh.colours[i][a]));
    flushIfFull();
  }
  for (const glm::uvec3& f : mesh.faces) {
    append(buffer, uint8_t(3));
    for (int a = 0; a < 3; ++a) append(buffer, uint32_t(f[a]));
    flushIfFull();
  }
  out.write(buffer.data(), buffer.size());
  out.commit();
}

}  // namespace voxen
