#include "depth_messages.hpp"

#include <cstring>

namespace voxen::ros {

namespace {

// Primitive by primitive as ros_wire.hpp writes them (that writer is private to voxen_input):
// ROS 1 packed; CDR with a little-endian encapsulation header and each primitive aligned to
// its size counted from the end of that header, strings with their NUL.
class Out {
 public:
  explicit Out(MessageEncoding encoding) : cdr_(encoding == MessageEncoding::Cdr) {
    if (cdr_) bytes_ = {0x00, 0x01, 0x00, 0x00};  // CDR_LE, no options
  }
  void u8(uint8_t v) { put(v); }
  void u32(uint32_t v) { put(v); }
  void f64(double v) { put(v); }
  void string(const std::string& s) {
    u32(uint32_t(s.size() + (cdr_ ? 1 : 0)));
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    if (cdr_) bytes_.push_back(0);
  }
  void raw(const void* data, size_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
    bytes_.insert(bytes_.end(), p, p + n);
  }
  // std_msgs/Header: ROS 1 (uint32 seq, uint32 sec, uint32 nsec, frame_id); ROS 2 (int32 sec, uint32 nanosec, frame_id).
  void header(int64_t stampNs, const std::string& frameId) {
    if (!cdr_) u32(0);  // seq: rosbag ignores it
    const int64_t sec = stampNs >= 0 ? stampNs / 1000000000 : -((-stampNs + 999999999) / 1000000000);
    u32(uint32_t(sec));
    u32(uint32_t(stampNs - sec * 1000000000));
    string(frameId);
  }
  std::vector<uint8_t> take() { return std::move(bytes_); }

 private:
  template <typename T>
  void put(T v) {
    if (cdr_) bytes_.resize(bytes_.size() + (sizeof(T) - (bytes_.size() - 4) % sizeof(T)) % sizeof(T), 0);
    raw(&v, sizeof(T));
  }
  std::vector<uint8_t> bytes_;
  bool cdr_;
};

#define VOXEN_SEPARATOR "================================================================================\n"
#define VOXEN_ROS1_HEADER VOXEN_SEPARATOR "MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n"
#define VOXEN_ROS2_HEADER \
  VOXEN_SEPARATOR "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n" VOXEN_SEPARATOR \
                  "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n"

}  // namespace

std::vector<uint8_t> encodeDepthImage(const DepthImage& image, int64_t stampNs, const std::string& frameId,
                                      MessageEncoding encoding) {
  Out out(encoding);
  out.header(stampNs, frameId);
  out.u32(image.height);
  out.u32(image.width);
  out.string("16UC1");
  out.u8(0);  // is_bigendian
  out.u32(image.width * 2);
  out.u32(uint32_t(image.depth16.size() * 2));
  out.raw(image.depth16.data(), image.depth16.size() * 2);  // little-endian hosts only, as the rest of the writers
  return out.take();
}

std::vector<uint8_t> encodeCameraInfo(const CameraIntrinsics& k, int64_t stampNs, const std::string& frameId,
                                      MessageEncoding encoding) {
  Out out(encoding);
  out.header(stampNs, frameId);
  out.u32(k.height);
  out.u32(k.width);
  out.string("plumb_bob");
  out.u32(5);  // D: k1 k2 t1 t2 k3
  for (int i = 0; i < 5; ++i) out.f64(0.0);
  for (double v : {k.fx, 0.0, k.cx, 0.0, k.fy, k.cy, 0.0, 0.0, 1.0}) out.f64(v);  // K
  for (double v : {1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0}) out.f64(v);     // R
  for (double v : {k.fx, 0.0, k.cx, 0.0, 0.0, k.fy, k.cy, 0.0, 0.0, 0.0, 1.0, 0.0}) out.f64(v);  // P
  out.u32(0);  // binning_x
  out.u32(0);  // binning_y
  for (int i = 0; i < 4; ++i) out.u32(0);  // roi: x_offset, y_offset, height, width (0: the full image)
  out.u8(0);  // roi.do_rectify
  return out.take();
}

// The definitions without comments (rosbag stores whatever text it is given; the MD5 sums
// are genmsg's, which ignore comments).
const MessageType& imageMessageType() {
  static const MessageType type{
      "sensor_msgs/Image", "sensor_msgs/msg/Image", "060021388200f6f0f447d0fcd9c64743",
      "Header header\nuint32 height\nuint32 width\nstring encoding\nuint8 is_bigendian\nuint32 step\nuint8[] data\n"
      "\n" VOXEN_ROS1_HEADER,
      "std_msgs/Header header\nuint32 height\nuint32 width\nstring encoding\nuint8 is_bigendian\nuint32 step\n"
      "uint8[] data\n" VOXEN_ROS2_HEADER};
  return type;
}

const MessageType& cameraInfoMessageType() {
  static const MessageType type{
      "sensor_msgs/CameraInfo", "sensor_msgs/msg/CameraInfo", "c9a58c1b0b154e0e6da7578cb991d214",
      "Header header\nuint32 height\nuint32 width\nstring distortion_model\nfloat64[] D\nfloat64[9] K\n"
      "float64[9] R\nfloat64[12] P\nuint32 binning_x\nuint32 binning_y\nRegionOfInterest roi\n"
      "\n" VOXEN_ROS1_HEADER VOXEN_SEPARATOR
      "MSG: sensor_msgs/RegionOfInterest\nuint32 x_offset\nuint32 y_offset\nuint32 height\nuint32 width\nbool do_rectify\n",
      "std_msgs/Header header\nuint32 height\nuint32 width\nstring distortion_model\nfloat64[] d\nfloat64[9] k\n"
      "float64[9] r\nfloat64[12] p\nuint32 binning_x\nuint32 binning_y\nsensor_msgs/RegionOfInterest roi\n"
      VOXEN_ROS2_HEADER VOXEN_SEPARATOR
      "MSG: sensor_msgs/RegionOfInterest\nuint32 x_offset\nuint32 y_offset\nuint32 height\nuint32 width\nbool do_rectify\n"};
  return type;
}

}  // namespace voxen::ros
