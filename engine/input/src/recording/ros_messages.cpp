#include "voxen/input/ros_messages.hpp"

#include <algorithm>

#include "recording/ros_wire.hpp"

namespace voxen::ros {

namespace {

// The fewest bytes one element can take, to bound a sequence's count by what is left.
constexpr size_t kMinPointFieldBytes = 4 + 4 + 1 + 4;     // an empty name
constexpr size_t kMinTransformBytes = 8 + 4 + 4 + 7 * 8;  // empty strings, no seq

void readHeader(wire::Reader& in, MessageEncoding encoding, int64_t& stampNs, std::string& frameId) {
  if (encoding == MessageEncoding::Ros1) in.u32("header.seq");
  stampNs = in.rosTimeNs("header.stamp");
  frameId = in.string("header.frame_id");
}

void writeHeader(wire::Writer& out, MessageEncoding encoding, int64_t stampNs, const std::string& frameId) {
  if (encoding == MessageEncoding::Ros1) out.u32(0);  // seq: rosbag ignores it
  out.rosTimeNs(stampNs);
  out.string(frameId);
}

std::string fieldLabel(const PointField& f) { return "field '" + f.name + "' (" + pointFieldTypeName(f.datatype) + ")"; }

// What the decoder promises about a cloud beyond its bytes: every field of a known datatype
// lies inside a point, rows hold their points, and the data holds every row.
void checkCloud(const PointCloud2& c, const wire::Reader& in) {
  for (const PointField& f : c.fields) {
    const uint64_t size = pointFieldTypeSize(f.datatype);
    if (size == 0) continue;  // reported by whoever reads that field
    const uint64_t end = uint64_t(f.offset) + size * std::max<uint64_t>(f.count, 1);
    if (end > c.pointStep)
      in.fail(fieldLabel(f) + " at offset " + std::to_string(f.offset) + " ends at byte " + std::to_string(end) +
              " of a point, past point_step " + std::to_string(c.pointStep));
  }
  if (c.height > 0 && uint64_t(c.width) * c.pointStep > c.rowStep)
    in.fail("row_step " + std::to_string(c.rowStep) + " is smaller than width x point_step (" + std::to_string(c.width) +
            " x " + std::to_string(c.pointStep) + ")");
  const uint64_t needed = uint64_t(c.rowStep) * c.height;
  if (c.data.size() < needed)
    in.fail("data holds " + std::to_string(c.data.size()) + " bytes, fewer than row_step x height (" +
            std::to_string(c.rowStep) + " x " + std::to_string(c.height) + " = " + std::to_string(needed) + ")");
}

}  // namespace

size_t pointFieldTypeSize(uint8_t datatype) {
  switch (datatype) {
    case 1: case 2: return 1;
    case 3: case 4: return 2;
    case 5: case 6: case 7: return 4;
    case 8: return 8;
    default: return 0;
  }
}

std::string pointFieldTypeName(uint8_t datatype) {
  static const char* const kNames[] = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "float32", "float64"};
  if (datatype >= 1 && datatype <= 8) return kNames[datatype - 1];
  return "datatype " + std::to_string(datatype);
}

PointCloud2 decodePointCloud2(std::span<const uint8_t> bytes, MessageEncoding encoding, const std::string& where) {
  wire::Reader in(bytes, encoding, where);
  PointCloud2 c;
  readHeader(in, encoding, c.stampNs, c.frameId);
  c.height = in.u32("height");
  c.width = in.u32("width");
  const uint32_t nFields = in.count("fields", kMinPointFieldBytes);
  c.fields.resize(nFields);
  for (PointField& f : c.fields) {
    f.name = in.string("fields[].name");
    f.offset = in.u32("fields[].offset");
    f.datatype = in.u8("fields[].datatype");
    f.count = in.u32("fields[].count");
  }
  c.isBigEndian = in.boolean("is_bigendian");
  c.pointStep = in.u32("point_step");
  c.rowStep = in.u32("row_step");
  const uint32_t nData = in.count("data", 1);
  c.data = in.bytes(nData, "data");
  c.isDense = in.boolean("is_dense");
  checkCloud(c, in);
  return c;
}

std::vector<TransformStamped> decodeTfMessage(std::span<const uint8_t> bytes, MessageEncoding encoding,
                                              const std::string& where) {
  wire::Reader in(bytes, encoding, where);
  std::vector<TransformStamped> out(in.count("transforms", kMinTransformBytes));
  for (TransformStamped& t : out) {
    readHeader(in, encoding, t.stampNs, t.parentFrame);
    t.childFrame = in.string("transforms[].child_frame_id");
    t.translation.x = in.f64("transforms[].transform.translation.x");
    t.translation.y = in.f64("transforms[].transform.translation.y");
    t.translation.z = in.f64("transforms[].transform.translation.z");
    t.rotation.x = in.f64("transforms[].transform.rotation.x");
    t.rotation.y = in.f64("transforms[].transform.rotation.y");
    t.rotation.z = in.f64("transforms[].transform.rotation.z");
    t.rotation.w = in.f64("transforms[].transform.rotation.w");
  }
  return out;
}

std::vector<uint8_t> encodePointCloud2(const PointCloud2& c, MessageEncoding encoding, bool bigEndianCdr) {
  wire::Writer out(encoding, bigEndianCdr);
  writeHeader(out, encoding, c.stampNs, c.frameId);
  out.u32(c.height);
  out.u32(c.width);
  out.u32(uint32_t(c.fields.size()));
  for (const PointField& f : c.fields) {
    out.string(f.name);
    out.u32(f.offset);
    out.u8(f.datatype);
    out.u32(f.count);
  }
  out.boolean(c.isBigEndian);
  out.u32(c.pointStep);
  out.u32(c.rowStep);
  out.u32(uint32_t(c.data.size()));
  out.bytes(c.data);
  out.boolean(c.isDense);
  return out.take();
}

std::vector<uint8_t> encodeTfMessage(std::span<const TransformStamped> transforms, MessageEncoding encoding,
                                     bool bigEndianCdr) {
  wire::Writer out(encoding, bigEndianCdr);
  out.u32(uint32_t(transforms.size()));
  for (const TransformStamped& t : transforms) {
    writeHeader(out, encoding, t.stampNs, t.parentFrame);
    out.string(t.childFrame);
    for (const double v : {t.translation.x, t.translation.y, t.translation.z, t.rotation.x, t.rotation.y, t.rotation.z,
                           t.rotation.w})
      out.f64(v);
  }
  return out.take();
}

}  // namespace voxen::ros
