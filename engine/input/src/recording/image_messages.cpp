#include "voxen/input/image_messages.hpp"

#include "recording/ros_wire.hpp"

namespace voxen::ros {

namespace {

void readHeader(wire::Reader& in, MessageEncoding encoding, int64_t& stampNs, std::string& frameId) {
  if (encoding == MessageEncoding::Ros1) in.u32("header.seq");
  stampNs = in.rosTimeNs("header.stamp");
  frameId = in.string("header.frame_id");
}

void writeHeader(wire::Writer& out, MessageEncoding encoding, int64_t stampNs, const std::string& frameId) {
  if (encoding == MessageEncoding::Ros1) out.u32(0);
  out.rosTimeNs(stampNs);
  out.string(frameId);
}

std::span<const uint8_t> readData(wire::Reader& in) {
  const uint32_t n = in.count("data", 1);
  return in.bytes(n, "data");
}

}  // namespace

size_t imageEncodingPixelBytes(const std::string& e) {
  if (e == "mono8" || e == "8UC1" || e == "8SC1") return 1;
  if (e == "16UC1" || e == "mono16" || e == "16SC1") return 2;
  if (e == "rgb8" || e == "bgr8" || e == "8UC3") return 3;
  if (e == "32FC1" || e == "rgba8" || e == "bgra8" || e == "8UC4" || e == "32SC1") return 4;
  if (e == "64FC1") return 8;
  return 0;
}

Image decodeImage(std::span<const uint8_t> bytes, MessageEncoding encoding, const std::string& where) {
  wire::Reader in(bytes, encoding, where);
  Image m;
  readHeader(in, encoding, m.stampNs, m.frameId);
  m.height = in.u32("height");
  m.width = in.u32("width");
  m.encoding = in.string("encoding");
  m.isBigEndian = in.u8("is_bigendian") != 0;
  m.step = in.u32("step");
  m.data = readData(in);
  if (const size_t pixel = imageEncodingPixelBytes(m.encoding); pixel > 0 && uint64_t(m.width) * pixel > m.step)
    in.fail("step " + std::to_string(m.step) + " is smaller than width x " + std::to_string(pixel) + " bytes (" +
            std::to_string(m.width) + " pixels of " + m.encoding + ")");
  const uint64_t needed = uint64_t(m.step) * m.height;
  if (m.data.size() < needed)
    in.fail("data holds " + std::to_string(m.data.size()) + " bytes, fewer than step x height (" + std::to_string(m.step) +
            " x " + std::to_string(m.height) + " = " + std::to_string(needed) + ")");
  return m;
}

CompressedImage decodeCompressedImage(std::span<const uint8_t> bytes, MessageEncoding encoding, const std::string& where) {
  wire::Reader in(bytes, encoding, where);
  CompressedImage m;
  readHeader(in, encoding, m.stampNs, m.frameId);
  m.format = in.string("format");
  m.data = readData(in);
  return m;
}

CameraInfo decodeCameraInfo(std::span<const uint8_t> bytes, MessageEncoding encoding, const std::string& where) {
  wire::Reader in(bytes, encoding, where);
  CameraInfo m;
  readHeader(in, encoding, m.stampNs, m.frameId);
  m.height = in.u32("height");
  m.width = in.u32("width");
  m.distortionModel = in.string("distortion_model");
  m.d.resize(in.count("D", 8));
  for (double& v : m.d) v = in.f64("D[]");
  for (double& v : m.k) v = in.f64("K[]");
  for (double& v : m.r) v = in.f64("R[]");
  for (double& v : m.p) v = in.f64("P[]");
  m.binningX = in.u32("binning_x");
  m.binningY = in.u32("binning_y");
  m.roi.xOffset = in.u32("roi.x_offset");
  m.roi.yOffset = in.u32("roi.y_offset");
  m.roi.height = in.u32("roi.height");
  m.roi.width = in.u32("roi.width");
  m.roi.doRectify = in.boolean("roi.do_rectify");
  return m;
}

std::vector<uint8_t> encodeImage(const Image& m, MessageEncoding encoding, bool bigEndianCdr) {
  wire::Writer out(encoding, bigEndianCdr);
  writeHeader(out, encoding, m.stampNs, m.frameId);
  out.u32(m.height);
  out.u32(m.width);
  out.string(m.encoding);
  out.u8(m.isBigEndian ? 1 : 0);
  out.u32(m.step);
  out.u32(uint32_t(m.data.size()));
  out.bytes(m.data);
  return out.take();
}

std::vector<uint8_t> encodeCompressedImage(const CompressedImage& m, MessageEncoding encoding, bool bigEndianCdr) {
  wire::Writer out(encoding, bigEndianCdr);
  writeHeader(out, encoding, m.stampNs, m.frameId);
  out.string(m.format);
  out.u32(uint32_t(m.data.size()));
  out.bytes(m.data);
  return out.take();
}

std::vector<uint8_t> encodeCameraInfo(const CameraInfo& m, MessageEncoding encoding, bool bigEndianCdr) {
  wire::Writer out(encoding, bigEndianCdr);
  writeHeader(out, encoding, m.stampNs, m.frameId);
  out.u32(m.height);
  out.u32(m.width);
  out.string(m.distortionModel);
  out.u32(uint32_t(m.d.size()));
  for (const double v : m.d) out.f64(v);
  for (const double v : m.k) out.f64(v);
  for (const double v : m.r) out.f64(v);
  for (const double v : m.p) out.f64(v);
  out.u32(m.binningX);
  out.u32(m.binningY);
  out.u32(m.roi.xOffset);
  out.u32(m.roi.yOffset);
  out.u32(m.roi.height);
  out.u32(m.roi.width);
  out.boolean(m.roi.doRectify);
  return out.take();
}

}  // namespace voxen::ros
