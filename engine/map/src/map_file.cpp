#include "voxen/map/map_file.hpp"
#include "voxen/map/memory_budget.hpp"

#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>

#include "voxen/atomic_file/atomic_file.hpp"
#include "voxen/map/layer_domain.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/thread_start.hpp"

namespace voxen {

namespace {

// ---- little-endian fields -------------------------------------------------------

template <typename T>
T byteSwap(T value) {
  uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  std::reverse(bytes, bytes + sizeof(T));
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

template <typename T>
void putLE(uint8_t* at, T value) {
  if constexpr (std::endian::native == std::endian::big) value = byteSwap(value);
  std::memcpy(at, &value, sizeof(T));
}

template <typename T>
T getLE(const uint8_t* at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  if constexpr (std::endian::native == std::endian::big) value = byteSwap(value);
  return value;
}

std::string hex32(uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08" PRIx32, v);
  return text;
}

std::string keyText(const RegionKey& k) {
  char text[48];
  std::snprintf(text, sizeof text, "(%d,%d,%d)", k.x, k.y, k.z);
  return text;
}

uint32_t crc(uint32_t running, const void* data, size_t bytes) {
  return uint32_t(crc32_z(running, static_cast<const Bytef*>(data), bytes));
}

// ---- a region's payload: its arrays in file order ----------------------------------

struct Span {
  uint8_t* data;
  size_t bytes;
  size_t elementBytes;  // for byte order swaps
  std::string name;
  size_t count;  // values held
};

Span layerSpan(std::vector<std::byte>& array, LayerId id) {
  const LayerType& type = layerType(id);
  return {reinterpret_cast<uint8_t*>(array.data()), array.size(), type.elementBytes, "layer '" + type.name + "'",
          array.size() / type.bytesPerVoxel};
}

// The region's arrays in payload order (version 2: the layout's layers, each as in memory).
std::vector<Span> regionSpans(Region& r, const MapLayout& layout) {
  std::vector<Span> spans;
  for (LayerId id : layout.ids()) spans.push_back(layerSpan(r.layers[id], id));
  return spans;
}

// Older encodings, read into scratch arrays and converted once the payload's checksum is
// verified:
// - format version 1 stored hit counts and miss counts as two arrays (hits[n], then
//   misses[n]) where memory and version 2 keep (hits, misses) pairs;
// - format version 1's touch time (touch_time version 1) was a float of seconds after the
//   map's time origin, 0 for a voxel never touched (or touched exactly at the origin); version 2
//   is the absolute time as a double, 0 for never, so that it does not depend on which ray
//   came first.
struct LegacyArrays {
  std::vector<uint32_t> hitsThenMisses;
  std::vector<float> relativeTouchTimes;
};

std::vector<Span> fileSpans(Region& r, const MapFileInfo& info, LegacyArrays& legacy) {
  std::vector<Span> spans;
  for (LayerId id : info.layout.ids()) {
    if (id == kHitMissLayer && info.version == 1) {
      const size_t n = r.layers[id].size() / sizeof(HitMiss);
      legacy.hitsThenMisses.assign(2 * n, 0);
      spans.push_back({reinterpret_cast<uint8_t*>(legacy.hitsThenMisses.data()), n * 4, 4, "hit count layer", n});
      spans.push_back({reinterpret_cast<uint8_t*>(legacy.hitsThenMisses.data() + n), n * 4, 4, "miss count layer", n});
    } else if (id == kTouchTimeLayer && info.touchTimeVersion == 1) {
      const size_t n = r.layers[id].size() / sizeof(double);
      legacy.relativeTouchTimes.assign(n, 0.0f);
      spans.push_back({reinterpret_cast<uint8_t*>(legacy.relativeTouchTimes.data()), n * 4, 4, "touch time layer (version 1)", n});
    } else {
      spans.push_back(layerSpan(r.layers[id], id));
    }
  }
  return spans;
}

void convertLegacyArrays(Region& r, const MapFileInfo& info, const LegacyArrays& legacy) {
  if (!legacy.hitsThenMisses.empty()) {
    std::span<HitMiss> pairs = r.hitMiss();
    for (size_t i = 0; i < pairs.size(); ++i) pairs[i] = {legacy.hitsThenMisses[i], legacy.hitsThenMisses[pairs.size() + i]};
  }
  if (!legacy.relativeTouchTimes.empty()) {
    std::span<double> touch = r.touchTime();
    for (size_t i = 0; i < touch.size(); ++i) {
      const float t = legacy.relativeTouchTimes[i];
      touch[i] = t == 0.0f ? 0.0 : std::max(0.0, info.timeOrigin + double(t));
    }
  }
}

// Bytes per voxel of a region payload in this file (older layer versions are smaller).
uint64_t fileBytesPerVoxel(const MapFileInfo& info) {
  uint64_t bytes = info.layout.bytesPerVoxel();
  if (info.touchTimeVersion == 1) bytes -= sizeof(double) - sizeof(float);
  return bytes;
}

void swapInPlace(const Span& s) {
  if (s.elementBytes == 1) return;
  for (size_t i = 0; i < s.bytes; i += s.elementBytes) std::reverse(s.data + i, s.data + i + s.elementBytes);
}

// ---- running work on a few threads --------------------------------------------------

unsigned threadCount(unsigned requested, size_t work) {
  unsigned n = requested ? requested : std::max(1u, std::thread::hardware_concurrency());
  return unsigned(std::min<size_t>(n, std::max<size_t>(work, 1)));
}

// Runs fn(i) for i in [0, count); rethrows the exception of the lowest failing index, so a
// file with several faults always reports the same (first) one.
template <typename Fn>
void parallelFor(size_t count, unsigned threads, Fn&& fn) {
  std::vector<std::exception_ptr> errors(count);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < count;) {
      try {
        fn(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  threads = threadCount(threads, count);
  // The calling thread is one of the workers, so the work gets done with whatever threads
  // the system grants, none included.
  std::vector<std::thread> pool;
  if (threads > 1) startThreads(pool, threads - 1, "map file", [&](unsigned) { worker(); });
  worker();
  for (auto& t : pool) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// ---- file reading ---------------------------------------------------------------------

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

class MapReader {
 public:
  explicit MapReader(const std::filesystem::path& path) : path_(path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) fail("is a directory, not a map file");
    file_.reset(std::fopen(path.c_str(), "rb"));
    if (!file_) throw Error("cannot open map file '" + path.string() + "': " + std::strerror(errno));
    if (std::fseek(file_.get(), 0, SEEK_END) != 0) fail(std::string("cannot seek: ") + std::strerror(errno));
    const long size = std::ftell(file_.get());
    if (size < 0) fail(std::string("cannot tell its size: ") + std::strerror(errno));
    size_ = uint64_t(size);
    std::rewind(file_.get());
  }

  [[noreturn]] void fail(const std::string& what) const { throw Error("map file '" + path_.string() + "': " + what); }
  uint64_t size() const { return size_; }

  // Reads exactly `bytes` at `offset`; `what` describes them for the truncation message.
  void read(uint64_t offset, void* out, size_t bytes, const std::string& what) {
    if (std::fseek(file_.get(), long(offset), SEEK_SET) != 0) fail(std::string("cannot seek: ") + std::strerror(errno));
    const size_t got = bytes ? std::fread(out, 1, bytes, file_.get()) : 0;
    if (got != bytes) {
      if (std::ferror(file_.get())) fail("read error in " + what + " at byte offset " + std::to_string(offset) + ": " + std::strerror(errno));
      fail("truncated " + what + " at byte offset " + std::to_string(offset) + ": needs " + std::to_string(bytes) +
           " bytes, the file has " + std::to_string(got) + " left");
    }
  }

  MapFileInfo scan();

 private:
  MapLayout readLayerTable(uint32_t count, uint64_t& headerBytes);
  void readDerivedSettings(MapFileInfo& info);

  std::filesystem::path path_;
  File file_;
  uint64_t size_ = 0;
};

MapFileInfo MapReader::scan() {
  MapFileInfo info;
  info.fileBytes = size_;
  uint8_t h[kMapFileHeaderBytes] = {};
  const size_t have = size_t(std::min<uint64_t>(size_, kMapFileHeaderBytes));
  if (size_ == 0)
    fail("truncated header: the file is empty (0 bytes); a header needs " + std::to_string(kMapFileHeaderBytes));
  if (have) read(0, h, have, "header");
  // Name a foreign file as such before calling it short; a future version's header may have
  // another length, so the version is judged before the length too.
  if (std::memcmp(h, kMapFileMagic, std::min<size_t>(have, 8)) != 0) {
    std::string start;
    for (size_t i = 0; i < std::min<size_t>(have, 8); ++i) start += (h[i] >= 32 && h[i] < 127) ? char(h[i]) : '.';
    fail("bad magic: not a Voxen map file (expected \"VOXENMAP\", found \"" + start + "\")");
  }
  if (have >= 12) {
    info.version = getLE<uint32_t>(h + 8);
    if (info.version < 1 || info.version > kMapFileVersion)
      fail("unsupported format version " + std::to_string(info.version) + " (this build reads versions 1 to " +
           std::to_string(kMapFileVersion) + ")");
  }
  if (have < kMapFileHeaderBytes)
    fail("truncated header: the file has " + std::to_string(size_) + " bytes, a " +
         (info.version ? "version " + std::to_string(info.version) + " " : std::string()) + "header needs " +
         std::to_string(kMapFileHeaderBytes));

  OccupancyModel& m = info.model;
  m.resolution = getLE<double>(h + 12);
  m.regionSize = getLE<int32_t>(h + 20);
  m.hitProbability = getLE<float>(h + 24);
  m.missProbability = getLE<float>(h + 28);
  m.occupancyThreshold = getLE<float>(h + 32);
  m.clampMin = getLE<float>(h + 36);
  m.clampMax = getLE<float>(h + 40);
  const uint32_t layerField = getLE<uint32_t>(h + 44);  // version 1: layer bits; 2: layer count
  info.timeOrigin = getLE<double>(h + 48);
  const uint64_t regionCount = getLE<uint64_t>(h + 56);
  const uint32_t storedHeaderCrc = getLE<uint32_t>(h + 64);
  try {
    m.validate();
  } catch (const Error& e) {
    fail(std::string("invalid header field: ") + e.what());
  }
  if (info.version == 1 && (layerField & ~gpu::kBuiltinLayerFlags))
    fail("invalid header field: unknown layer bits " + hex32(layerField & ~gpu::kBuiltinLayerFlags));
  if (info.version >= 2 && (layerField == 0 || layerField > kMaxLayers))
    fail("invalid header field: layer count " + std::to_string(layerField) + " is not in 1-" + std::to_string(kMaxLayers));
  if (!std::isfinite(info.timeOrigin)) fail("invalid header field: time origin is not finite");
  const uint32_t headerCrc = crc(0, h, 64);
  if (headerCrc != storedHeaderCrc)
    fail("header checksum mismatch (stored " + hex32(storedHeaderCrc) + ", computed " + hex32(headerCrc) + ")");
  info.headerBytes = kMapFileHeaderBytes;
  if (info.version == 1)
    info.layout = MapLayout::of(LayerSet::fromBuiltinFlags(layerField));
  else
    info.layout = readLayerTable(layerField, info.headerBytes);
  if (info.version >= 3) readDerivedSettings(info);
  if (info.layout.has(kTouchTimeLayer)) info.touchTimeVersion = info.version == 1 ? 1 : layerType(kTouchTimeLayer).version;
  info.layers = info.layout.optionalLayers();

  const uint64_t voxels = uint64_t(m.regionSize) * m.regionSize * m.regionSize;
  const uint64_t payloadBytes = voxels * fileBytesPerVoxel(info);
  const uint64_t maxCompressed = compressBound(uLong(payloadBytes)) + 64;
  info.regions.reserve(size_t(std::min<uint64_t>(regionCount, (size_ - info.headerBytes) / kMapFileBlockHeaderBytes)));
  std::unordered_map<RegionKey, uint64_t, RegionKeyHash> seen;
  uint64_t offset = info.headerBytes;
  for (uint64_t i = 0; i < regionCount; ++i) {
    const std::string which = "region " + std::to_string(i) + " of " + std::to_string(regionCount);
    if (offset >= size_) fail("truncated: the file ends at byte offset " + std::to_string(offset) + " before " + which);
    uint8_t b[kMapFileBlockHeaderBytes];
    read(offset, b, sizeof b, "block header of " + which);
    MapFileInfo::RegionEntry e;
    e.key = {getLE<int32_t>(b), getLE<int32_t>(b + 4), getLE<int32_t>(b + 8)};
    e.offset = offset;
    e.uncompressedBytes = getLE<uint32_t>(b + 12);
    e.compressedBytes = getLE<uint32_t>(b + 16);
    e.crc32 = getLE<uint32_t>(b + 20);
    const std::string where = "region " + keyText(e.key) + " (" + which + " at byte offset " + std::to_string(offset) + ")";
    if (e.uncompressedBytes != payloadBytes)
      fail("inconsistent sizes in " + where + ": payload of " + std::to_string(e.uncompressedBytes) + " bytes, expected " +
           std::to_string(payloadBytes) + " for region size " + std::to_string(m.regionSize) + " and layers " +
           info.layout.names());
    if (e.compressedBytes == 0 || e.compressedBytes > maxCompressed)
      fail("inconsistent sizes in " + where + ": compressed size " + std::to_string(e.compressedBytes) +
           " bytes is impossible for a payload of " + std::to_string(payloadBytes));
    const uint64_t left = size_ - offset - kMapFileBlockHeaderBytes;
    if (e.compressedBytes > left)
      fail("truncated " + where + ": its zlib stream needs " + std::to_string(e.compressedBytes) + " bytes, the file has " +
           std::to_string(left) + " left");
    if (!regionKeyInRange(e.key, m.regionSize))
      fail(where + ": its key is outside the int32 voxel range for region size " + std::to_string(m.regionSize));
    const auto [found, inserted] = seen.emplace(e.key, i);
    if (!inserted) fail("region " + keyText(e.key) + " is stored twice (regions " + std::to_string(found->second) + " and " + std::to_string(i) + ")");
    info.regions.push_back(e);
    offset += kMapFileBlockHeaderBytes + e.compressedBytes;
  }
  if (offset != size_)
    fail("inconsistent sizes: " + std::to_string(size_ - offset) + " unexpected bytes after the last of " +
         std::to_string(regionCount) + " regions at byte offset " + std::to_string(offset));
  return info;
}

// Version 2's layer table (after the fixed header): each layer's name, size and version,
// each checked against this build's registry, then a CRC32 of the table.
MapLayout MapReader::readLayerTable(uint32_t count, uint64_t& headerBytes) {
  std::vector<uint8_t> table(size_t(count) * kMapFileLayerEntryBytes + 4);
  read(kMapFileHeaderBytes, table.data(), table.size(), "header's layer table");
  const uint32_t stored = getLE<uint32_t>(table.data() + table.size() - 4);
  const uint32_t computed = crc(0, table.data(), table.size() - 4);
  if (stored != computed) fail("layer table checksum mismatch (stored " + hex32(stored) + ", computed " + hex32(computed) + ")");
  MapLayout layout;
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t* e = table.data() + size_t(i) * kMapFileLayerEntryBytes;
    const char* text = reinterpret_cast<const char*>(e);
    const std::string name(text, strnlen(text, 32));
    const uint32_t bytes = getLE<uint32_t>(e + 32), elementBytes = getLE<uint32_t>(e + 36), version = getLE<uint32_t>(e + 40);
    const std::string layer = "layer " + std::to_string(i) + " '" + name + "' (version " + std::to_string(version) + ", " +
                              std::to_string(bytes) + " bytes per voxel)";
    // A type this process does not know is kept as opaque bytes: the table holds all that a
    // region's payload and its byte order need.
    std::optional<LayerId> id = findLayer(name);
    if (!id) {
      if (i == 0) fail(layer + ": occupancy must be the first layer, and only the first");
      try {
        id = registerOpaqueLayer(name, bytes, elementBytes, version);
      } catch (const Error& e) {
        fail(layer + ": " + e.what());
      }
    }
    const LayerType& type = layerType(*id);
    if (type.bytesPerVoxel != bytes || type.elementBytes != elementBytes || type.version != version)
      fail(layer + " does not match this build's version " + std::to_string(type.version) + " with " +
           std::to_string(type.bytesPerVoxel) + " bytes per voxel");
    if ((i == 0) != (*id == kOccupancyLayer)) fail(layer + ": occupancy must be the first layer, and only the first");
    if (i > 0 && layout.has(*id)) fail(layer + " is listed twice");
    layout.add(*id);  // a layout starts with occupancy
  }
  headerBytes = kMapFileHeaderBytes + table.size();
  return layout;
}

// Version 3's derived settings (after the layer table): per layer a u16 byte count and the
// text, then a CRC32 of those bytes.
void MapReader::readDerivedSettings(MapFileInfo& info) {
  const uint64_t start = info.headerBytes;
  uint64_t offset = start;
  std::vector<uint8_t> section;
  for (const LayerId id : info.layout.ids()) {
    uint8_t count[2];
    read(offset, count, 2, "derived settings of layer '" + layerType(id).name + "'");
    const uint16_t bytes = getLE<uint16_t>(count);
    if (bytes > kMapFileMaxSettingsBytes)
      fail("derived settings of layer '" + layerType(id).name + "' are " + std::to_string(bytes) + " bytes, more than " +
           std::to_string(kMapFileMaxSettingsBytes));
    std::string text(bytes, '\0');
    read(offset + 2, text.data(), bytes, "derived settings of layer '" + layerType(id).name + "'");
    section.insert(section.end(), count, count + 2);
    section.insert(section.end(), text.begin(), text.end());
    info.derivedSettings[id] = std::move(text);
    offset += 2 + bytes;
  }
  uint8_t stored[4];
  read(offset, stored, 4, "derived settings' checksum");
  const uint32_t computed = crc(0, section.data(), section.size());
  if (getLE<uint32_t>(stored) != computed)
    fail("derived settings checksum mismatch (stored " + hex32(getLE<uint32_t>(stored)) + ", computed " + hex32(computed) + ")");
  info.headerBytes = offset + 4;
}

// ---- region blocks --------------------------------------------------------------------

// The fixed header and the layer table.
std::vector<uint8_t> encodeHeader(const OccupancyMap& map, uint64_t regionCount) {
  const OccupancyModel& m = map.model();
  const std::vector<LayerId>& layers = map.layout().ids();
  bool settings = false;
  for (const LayerId id : layers) settings = settings || !map.derivedSettings(id).empty();
  std::vector<uint8_t> bytes(kMapFileHeaderBytes + layers.size() * kMapFileLayerEntryBytes + 4, 0);
  uint8_t* h = bytes.data();
  std::memcpy(h, kMapFileMagic, 8);
  putLE<uint32_t>(h + 8, settings ? 3u : 2u);
  putLE<double>(h + 12, m.resolution);
  putLE<int32_t>(h + 20, m.regionSize);
  putLE<float>(h + 24, m.hitProbability);
  putLE<float>(h + 28, m.missProbability);
  putLE<float>(h + 32, m.occupancyThreshold);
  putLE<float>(h + 36, m.clampMin);
  putLE<float>(h + 40, m.clampMax);
  putLE<uint32_t>(h + 44, uint32_t(layers.size()));
  putLE<double>(h + 48, map.timeOrigin());
  putLE<uint64_t>(h + 56, regionCount);
  putLE<uint32_t>(h + 64, crc(0, h, 64));
  uint8_t* table = h + kMapFileHeaderBytes;
  for (size_t i = 0; i < layers.size(); ++i) {
    const LayerType& type = layerType(layers[i]);
    uint8_t* e = table + i * kMapFileLayerEntryBytes;
    std::memcpy(e, type.name.data(), type.name.size());  // at most 31 characters: NUL-padded
    putLE<uint32_t>(e + 32, type.bytesPerVoxel);
    putLE<uint32_t>(e + 36, type.elementBytes);
    putLE<uint32_t>(e + 40, type.version);
  }
  const size_t tableBytes = layers.size() * kMapFileLayerEntryBytes;
  putLE<uint32_t>(table + tableBytes, crc(0, table, tableBytes));
  if (!settings) return bytes;
  const size_t start = bytes.size();
  for (const LayerId id : layers) {
    const std::string& text = map.derivedSettings(id);
    if (text.size() > kMapFileMaxSettingsBytes)
      throw Error("cannot save the map: the derived settings of layer '" + layerType(id).name + "' are " +
                  std::to_string(text.size()) + " bytes, more than " + std::to_string(kMapFileMaxSettingsBytes));
    uint8_t count[2];
    putLE<uint16_t>(count, uint16_t(text.size()));
    bytes.insert(bytes.end(), count, count + 2);
    bytes.insert(bytes.end(), text.begin(), text.end());
  }
  uint8_t check[4];
  putLE<uint32_t>(check, crc(0, bytes.data() + start, bytes.size() - start));
  bytes.insert(bytes.end(), check, check + 4);
  return bytes;
}

// Block header plus zlib stream of one region, into `out`.
void encodeRegion(const OccupancyMap& map, const Region& constRegion, int level, std::vector<uint8_t>& out,
                  const std::string& target) {
  Region& region = const_cast<Region&>(constRegion);  // spans are only read here
  const size_t voxels = map.voxelsPerRegion();
  const std::vector<Span> spans = regionSpans(region, map.layout());
  auto fail = [&](const std::string& what) {
    throw Error("cannot save map to '" + target + "': region " + keyText(region.key) + ": " + what);
  };
  for (const Span& s : spans)
    if (s.bytes != voxels * (s.bytes / std::max<size_t>(s.count, 1)) || s.count != voxels)
      fail(s.name + " holds " + std::to_string(s.count) + " values, the map's regions have " + std::to_string(voxels) + " voxels");
  if (const std::string problem = impossibleContents(map, region); !problem.empty()) fail(problem);
  for (uint32_t i = 0; i < kMaxLayers; ++i) {
    const LayerId id(i);
    if (!map.layout().has(id) && !region.layers[id].empty())
      fail("layer '" + layerType(id).name + "' holds " + std::to_string(region.layers[id].size() / layerType(id).bytesPerVoxel) +
           " values but the map has that layer off");
  }

  size_t payload = 0;
  for (const Span& s : spans) payload += s.bytes;
  if (payload > UINT32_MAX) fail("payload of " + std::to_string(payload) + " bytes does not fit the format");

  // Big-endian hosts write byte-swapped copies.
  std::vector<std::vector<uint8_t>> swapped;
  std::vector<Span> source = spans;
  if constexpr (std::endian::native == std::endian::big) {
    for (Span& s : source) {
      swapped.emplace_back(s.data, s.data + s.bytes);
      s.data = swapped.back().data();
      swapInPlace(s);
    }
  }

  z_stream z{};
  if (deflateInit(&z, level) != Z_OK) fail("zlib deflateInit failed");
  size_t capacity = deflateBound(&z, uLong(payload));
  out.resize(kMapFileBlockHeaderBytes + capacity);
  z.next_out = out.data() + kMapFileBlockHeaderBytes;
  z.avail_out = uInt(capacity);
  uint32_t payloadCrc = 0;
  for (size_t i = 0; i < source.size(); ++i) {
    z.next_in = source[i].data;
    z.avail_in = uInt(source[i].bytes);
    payloadCrc = crc(payloadCrc, source[i].data, source[i].bytes);
    const int flush = i + 1 == source.size() ? Z_FINISH : Z_NO_FLUSH;
    for (;;) {
      const int status = deflate(&z, flush);
      if (status == Z_STREAM_ERROR) {
        deflateEnd(&z);
        fail("zlib compression failed");
      }
      if (flush == Z_FINISH ? status == Z_STREAM_END : z.avail_in == 0) break;
      if (z.avail_out == 0) {  // not expected within deflateBound, but never write past the buffer
        const size_t used = size_t(z.total_out);
        capacity *= 2;
        out.resize(kMapFileBlockHeaderBytes + capacity);
        z.next_out = out.data() + kMapFileBlockHeaderBytes + used;
        z.avail_out = uInt(capacity - used);
      }
    }
  }
  const size_t compressed = size_t(z.total_out);
  deflateEnd(&z);
  out.resize(kMapFileBlockHeaderBytes + compressed);
  if (compressed > UINT32_MAX) fail("compressed size does not fit the format");

  uint8_t* b = out.data();
  putLE<int32_t>(b, region.key.x);
  putLE<int32_t>(b + 4, region.key.y);
  putLE<int32_t>(b + 8, region.key.z);
  putLE<uint32_t>(b + 12, uint32_t(payload));
  putLE<uint32_t>(b + 16, uint32_t(compressed));
  // The checksum covers the key and sizes too, so that a damaged key cannot move a region.
  uint32_t blockCrc = crc(0, b, 20);
  blockCrc = uint32_t(crc32_combine(blockCrc, payloadCrc, z_off_t(payload)));
  putLE<uint32_t>(b + 20, blockCrc);
}

// Inflates a block's zlib stream straight into the region's arrays and checks its CRC.
void decodeRegion(const OccupancyMap& map, const MapFileInfo& info, const MapFileInfo::RegionEntry& e, const uint8_t* block, size_t regionIndex,
                  size_t regionCount, Region& region, const MapReader& reader, bool refuseImpossible) {
  const std::string where = "region " + keyText(e.key) + " (region " + std::to_string(regionIndex) + " of " +
                            std::to_string(regionCount) + " at byte offset " + std::to_string(e.offset) + ")";
  LegacyArrays legacy;
  const std::vector<Span> spans = fileSpans(region, info, legacy);
  z_stream z{};
  if (inflateInit(&z) != Z_OK) reader.fail("zlib inflateInit failed for " + where);
  z.next_in = const_cast<uint8_t*>(block + kMapFileBlockHeaderBytes);
  z.avail_in = e.compressedBytes;
  int status = Z_OK;
  size_t produced = 0;
  for (size_t i = 0; i < spans.size() && status == Z_OK; ++i) {
    z.next_out = spans[i].data;
    z.avail_out = uInt(spans[i].bytes);
    while (z.avail_out > 0 && status == Z_OK) status = inflate(&z, Z_NO_FLUSH);
    produced += spans[i].bytes - z.avail_out;
    if (status == Z_BUF_ERROR) break;  // input ran out
  }
  std::string problem;
  const std::string zlibMessage = z.msg ? z.msg : "zlib error " + std::to_string(status);
  if (status == Z_STREAM_END) {
    if (produced != e.uncompressedBytes)
      problem = "it holds " + std::to_string(produced) + " bytes, fewer than the stated " + std::to_string(e.uncompressedBytes);
  } else if (status == Z_OK) {
    // Every array is full; the stream must end here.
    uint8_t extra;
    z.next_out = &extra;
    z.avail_out = 1;
    status = inflate(&z, Z_FINISH);
    if (status == Z_STREAM_END && z.avail_out == 1) {
    } else if (z.avail_out == 0) {
      problem = "it holds more than the stated " + std::to_string(e.uncompressedBytes) + " bytes";
    } else if (status == Z_BUF_ERROR || status == Z_OK) {
      problem = "the zlib stream is incomplete";
    } else {
      problem = z.msg ? z.msg : "zlib error " + std::to_string(status);
    }
  } else if (status == Z_BUF_ERROR) {
    problem = "the zlib stream is incomplete";
  } else {
    problem = zlibMessage;
  }
  if (problem.empty() && z.avail_in != 0)
    problem = std::to_string(z.avail_in) + " bytes follow the end of the zlib stream";
  inflateEnd(&z);
  if (!problem.empty()) reader.fail("decompression failed in " + where + ": " + problem);

  uint32_t blockCrc = crc(0, block, 20);
  for (const Span& s : spans) blockCrc = crc(blockCrc, s.data, s.bytes);
  if (blockCrc != e.crc32)
    reader.fail("checksum mismatch in " + where + ": stored " + hex32(e.crc32) + ", computed " + hex32(blockCrc));
  if constexpr (std::endian::native == std::endian::big)
    for (const Span& s : spans) swapInPlace(s);
  convertLegacyArrays(region, info, legacy);
  if (!refuseImpossible) return;
  if (const std::string problem = impossibleContents(map, region); !problem.empty())
    reader.fail("impossible contents in " + where + " (its checksum is valid): " + problem);
}

// Regions go through compression or decompression this many at a time, bounding memory.
size_t windowSize(unsigned threads) { return std::max<size_t>(32, size_t(threads) * 8); }

}  // namespace

uint64_t bytesPerVoxel(LayerSet layers) { return MapLayout::of(layers).bytesPerVoxel(); }

static_assert(sizeof(VoxelMean) == 16, "VoxelMean must be four packed u32 values: the file stores it as such");
static_assert(sizeof(HitMiss) == 8, "HitMiss must be two packed u32 values: the file stores it as such");

uint64_t MapFileInfo::compressedBytes() const {
  uint64_t sum = 0;
  for (const auto& r : regions) sum += r.compressedBytes;
  return sum;
}

uint64_t MapFileInfo::uncompressedBytes() const {
  uint64_t sum = 0;
  for (const auto& r : regions) sum += r.uncompressedBytes;
  return sum;
}

bool MapFileInfo::regionBounds(RegionKey& min, RegionKey& max) const {
  if (regions.empty()) return false;
  min = max = regions.front().key;
  for (const auto& r : regions) {
    min = {std::min(min.x, r.key.x), std::min(min.y, r.key.y), std::min(min.z, r.key.z)};
    max = {std::max(max.x, r.key.x), std::max(max.y, r.key.y), std::max(max.z, r.key.z)};
  }
  return true;
}

void saveMap(const OccupancyMap& map, const std::filesystem::path& path, const MapSaveOptions& options) {
  if (options.compressionLevel < 0 || options.compressionLevel > 9)
    throw Error("cannot save map to '" + path.string() + "': compression level " + std::to_string(options.compressionLevel) +
                " is not in 0-9");
  // Ascending key order: the same map always gives the same bytes.
  std::vector<const Region*> regions;
  regions.reserve(map.regions().size());
  for (const auto& [key, region] : map.regions()) {
    if (!(region.key == key))
      throw Error("cannot save map to '" + path.string() + "': region stored under key " + keyText(key) + " says it is " +
                  keyText(region.key));
    regions.push_back(&region);
  }
  std::sort(regions.begin(), regions.end(), [](const Region* a, const Region* b) { return a->key < b->key; });

  detail::AtomicFileWriter out(path, "map");
  const std::vector<uint8_t> header = encodeHeader(map, regions.size());
  out.write(header.data(), header.size());

  const unsigned threads = threadCount(options.threads, regions.size());
  const size_t window = windowSize(threads);
  std::vector<std::vector<uint8_t>> blocks(std::min(window, regions.size()));
  const std::string target = path.string();
  for (size_t first = 0; first < regions.size(); first += window) {
    const size_t count = std::min(window, regions.size() - first);
    parallelFor(count, threads, [&](size_t i) { encodeRegion(map, *regions[first + i], options.compressionLevel, blocks[i], target); });
    for (size_t i = 0; i < count; ++i) out.write(blocks[i].data(), blocks[i].size());
  }
  out.commit();
}

MapFileInfo readMapInfo(const std::filesystem::path& path) {
  MapReader reader(path);
  return reader.scan();
}

OccupancyMap loadMap(const std::filesystem::path& path, const MapLoadOptions& options) {
  MapReader reader(path);
  const MapFileInfo info = reader.scan();  // every size and offset is checked before any allocation
  OccupancyMap map(info.model, info.layout);
  map.setTimeOrigin(info.timeOrigin);
  for (const LayerId id : info.layout.ids()) map.setDerivedSettings(id, info.derivedSettings[id]);

  const size_t regionCount = info.regions.size();
  checkMemoryBudget(uint64_t(regionCount) * map.bytesPerRegion(), options.memoryBudgetBytes,
                    path.string() + ": loading its " + std::to_string(regionCount) + " regions", options.budgetHint);
  const unsigned threads = threadCount(options.threads, regionCount);
  const size_t window = windowSize(threads);
  std::vector<std::vector<uint8_t>> blocks(std::min(window, regionCount));
  std::vector<Region*> targets(blocks.size());
  for (size_t first = 0; first < regionCount; first += window) {
    const size_t count = std::min(window, regionCount - first);
    for (size_t i = 0; i < count; ++i) {
      const auto& e = info.regions[first + i];
      blocks[i].resize(kMapFileBlockHeaderBytes + e.compressedBytes);
      reader.read(e.offset, blocks[i].data(), blocks[i].size(),
                  "region " + keyText(e.key) + " (region " + std::to_string(first + i) + " of " + std::to_string(regionCount) + ")");
      targets[i] = &map.region(e.key);  // node-based map: the reference stays valid while others are added
    }
    parallelFor(count, threads, [&](size_t i) {
      decodeRegion(map, info, info.regions[first + i], blocks[i].data(), first + i, regionCount, *targets[i], reader, options.refuseImpossibleValues);
    });
  }
  return map;
}

struct MapFileRegionReader::Impl {
  explicit Impl(const std::filesystem::path& path) : reader(path), info(reader.scan()), shape(info.model, info.layout) {
    shape.setTimeOrigin(info.timeOrigin);
    for (const LayerId id : info.layout.ids()) shape.setDerivedSettings(id, info.derivedSettings[id]);
    for (size_t i = 0; i < info.regions.size(); ++i) index.emplace(info.regions[i].key, i);
  }
  MapReader reader;
  MapFileInfo info;
  OccupancyMap shape;
  std::unordered_map<RegionKey, size_t, RegionKeyHash> index;
  std::vector<uint8_t> block;
};

MapFileRegionReader::MapFileRegionReader(const std::filesystem::path& path) : impl_(std::make_unique<Impl>(path)) {}
MapFileRegionReader::MapFileRegionReader(MapFileRegionReader&&) noexcept = default;
MapFileRegionReader& MapFileRegionReader::operator=(MapFileRegionReader&&) noexcept = default;
MapFileRegionReader::~MapFileRegionReader() = default;
const MapFileInfo& MapFileRegionReader::info() const { return impl_->info; }
const OccupancyMap& MapFileRegionReader::shape() const { return impl_->shape; }

std::optional<Region> MapFileRegionReader::read(const RegionKey& key) {
  const auto found = impl_->index.find(key);
  if (found == impl_->index.end()) return std::nullopt;
  const size_t i = found->second;
  const MapFileInfo::RegionEntry& e = impl_->info.regions[i];
  const size_t count = impl_->info.regions.size();
  impl_->block.resize(kMapFileBlockHeaderBytes + e.compressedBytes);
  impl_->reader.read(e.offset, impl_->block.data(), impl_->block.size(),
                     "region " + keyText(e.key) + " (region " + std::to_string(i) + " of " + std::to_string(count) + ")");
  Region region = impl_->shape.makeRegion(key);
  decodeRegion(impl_->shape, impl_->info, e, impl_->block.data(), i, count, region, impl_->reader, true);
  return region;
}

}  // namespace voxen
