// A program that links only the map module (no clearance, no NDT, nothing that could
// register their layer types) and so loads map files the way an embedder's fresh process
// does:
//   voxen_map_probe resave IN.vxm OUT.vxm   load IN (no registration first), print its layers, save it as OUT
//   voxen_map_probe write-custom OUT.vxm    save a small map holding a layer type only this
//                                           command registers ("probe_made_up"), so that
//                                           other processes meet a layer they do not know
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "voxen/map/map.hpp"
#include "voxen/map/map_file.hpp"

namespace {

voxen::LayerId madeUpLayer() {
  voxen::LayerType type;
  type.name = "probe_made_up";
  type.bytesPerVoxel = 6;  // three u16: 2-byte elements, so that byte order matters
  type.elementBytes = 2;
  type.version = 7;
  type.description = "a layer type only voxen_map_probe write-custom knows";
  for (const char* name : {"a", "b", "c"}) type.fields.push_back({.name = name, .type = voxen::FieldType::U16});
  return voxen::registerLayer(type);
}

int writeCustom(const char* path) {
  voxen::OccupancyModel model;
  model.regionSize = 8;
  voxen::MapLayout layout;
  layout.add(madeUpLayer());
  voxen::OccupancyMap map(model, layout);
  for (int k = 0; k < 3; ++k) {
    voxen::Region& region = map.region({k, -k, 1});
    std::span<uint16_t> values = region.values<uint16_t>(madeUpLayer());
    for (size_t i = 0; i < values.size(); ++i) values[i] = uint16_t(i * 2654435761u >> (k + 3));
    std::span<float> occupancy = region.occupancy();
    for (size_t i = 0; i < occupancy.size(); i += 3) occupancy[i] = i % 2 ? -1.0f : 2.0f;
  }
  voxen::saveMap(map, path);
  return 0;
}

int resave(const char* in, const char* out) {
  const voxen::OccupancyMap map = voxen::loadMap(in);
  std::printf("layers: %s\n", map.layout().names().c_str());
  voxen::saveMap(map, out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 4 && std::strcmp(argv[1], "resave") == 0) return resave(argv[2], argv[3]);
    if (argc == 3 && std::strcmp(argv[1], "write-custom") == 0) return writeCustom(argv[2]);
    std::fprintf(stderr, "usage: voxen_map_probe resave IN.vxm OUT.vxm | write-custom OUT.vxm\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "voxen_map_probe: %s\n", e.what());
    return 1;
  }
}
