#include <nav_msgs/OccupancyGrid.h>
#include <std_msgs/String.h>
#include <visualization_msgs/MarkerArray.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ros_side.hpp"

namespace voxen_ros {

CloudMessage cloudOf(const sensor_msgs::PointCloud2ConstPtr& msg) {
  CloudMessage c;
  // header.stamp as a bag's reader reads the two uint32 fields.
  c.stampNs = int64_t(msg->header.stamp.sec) * 1000000000 + int64_t(msg->header.stamp.nsec);
  c.frameId = msg->header.frame_id;
  c.height = msg->height;
  c.width = msg->width;
  for (const sensor_msgs::PointField& f : msg->fields) c.fields.push_back({f.name, f.offset, f.datatype, f.count});
  c.bigEndian = msg->is_bigendian != 0;
  c.pointStep = msg->point_step;
  c.rowStep = msg->row_step;
  c.data = msg->data.data();
  c.size = msg->data.size();
  c.dense = msg->is_dense != 0;
  // boost's pointer kept alive inside a std one (the deleter holds the message).
  c.owner = std::shared_ptr<const void>(msg.get(), [keep = msg](const void*) {});
  return c;
}

std::vector<Transform> transformsOf(const tf2_msgs::TFMessage& msg) {
  std::vector<Transform> out;
  for (const geometry_msgs::TransformStamped& t : msg.transforms) {
    Transform v;
    v.stampNs = int64_t(t.header.stamp.sec) * 1000000000 + int64_t(t.header.stamp.nsec);
    v.parent = t.header.frame_id;
    v.child = t.child_frame_id;
    v.translation[0] = t.transform.translation.x, v.translation[1] = t.transform.translation.y;
    v.translation[2] = t.transform.translation.z;
    v.rotation[0] = t.transform.rotation.x, v.rotation[1] = t.transform.rotation.y;
    v.rotation[2] = t.transform.rotation.z, v.rotation[3] = t.transform.rotation.w;
    out.push_back(std::move(v));
  }
  return out;
}

namespace {

// Blue (low) through cyan, green and yellow to red (high), t in [0, 1].
std_msgs::ColorRGBA heightColour(double t) {
  t = std::clamp(t, 0.0, 1.0);
  std_msgs::ColorRGBA c;
  c.r = float(std::clamp(1.5 - std::abs(4.0 * t - 3.0), 0.0, 1.0));
  c.g = float(std::clamp(1.5 - std::abs(4.0 * t - 2.0), 0.0, 1.0));
  c.b = float(std::clamp(1.5 - std::abs(4.0 * t - 1.0), 0.0, 1.0));
  c.a = 1.0f;
  return c;
}

nav_msgs::OccupancyGrid gridMessage(const GridData& g) {
  nav_msgs::OccupancyGrid grid;
  grid.info.resolution = g.resolution;
  grid.info.width = g.width;
  grid.info.height = g.height;
  grid.info.origin.position.x = g.originX;
  grid.info.origin.position.y = g.originY;
  grid.info.origin.orientation.w = 1.0;
  grid.data = g.cells;
  return grid;
}

// x, y, z and log_odds, float32 each, unorganised and dense.
sensor_msgs::PointCloud2 cloudMessage(const VoxelData& v) {
  sensor_msgs::PointCloud2 cloud;
  const char* names[] = {"x", "y", "z", "log_odds"};
  for (uint32_t i = 0; i < 4; ++i) {
    sensor_msgs::PointField f;
    f.name = names[i];
    f.offset = 4 * i;
    f.datatype = sensor_msgs::PointField::FLOAT32;
    f.count = 1;
    cloud.fields.push_back(f);
  }
  const size_t n = v.logOdds.size();
  cloud.height = 1;
  cloud.width = uint32_t(n);
  cloud.point_step = 16;
  cloud.row_step = uint32_t(16 * n);
  cloud.is_dense = true;
  cloud.data.resize(16 * n);
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(cloud.data.data() + 16 * i, v.xyz.data() + 3 * i, 12);
    std::memcpy(cloud.data.data() + 16 * i + 12, &v.logOdds[i], 4);
  }
  return cloud;
}

// One CUBE_LIST (ns voxen_occupied, id 0) of voxel-sized cubes coloured by height;
// DELETEALL when no voxel is occupied.
visualization_msgs::MarkerArray markerMessage(const VoxelData& v) {
  visualization_msgs::MarkerArray array;
  visualization_msgs::Marker m;
  m.ns = "voxen_occupied";
  m.id = 0;
  const size_t n = v.logOdds.size();
  if (n == 0) {
    m.action = visualization_msgs::Marker::DELETEALL;
    array.markers.push_back(m);
    return array;
  }
  m.type = visualization_msgs::Marker::CUBE_LIST;
  m.action = visualization_msgs::Marker::ADD;
  m.pose.orientation.w = 1.0;
  m.scale.x = m.scale.y = m.scale.z = v.resolution;
  m.color.a = 1.0f;
  float lo = v.xyz[2], hi = v.xyz[2];
  for (size_t i = 0; i < n; ++i) lo = std::min(lo, v.xyz[3 * i + 2]), hi = std::max(hi, v.xyz[3 * i + 2]);
  m.points.resize(n);
  m.colors.resize(n);
  for (size_t i = 0; i < n; ++i) {
    m.points[i].x = v.xyz[3 * i], m.points[i].y = v.xyz[3 * i + 1], m.points[i].z = v.xyz[3 * i + 2];
    m.colors[i] = heightColour(hi > lo ? (v.xyz[3 * i + 2] - lo) / (hi - lo) : 0.5);
  }
  array.markers.push_back(std::move(m));
  return array;
}

}  // namespace

RosPublishers::RosPublishers(ros::NodeHandle& priv)
    : grid_(priv.advertise<nav_msgs::OccupancyGrid>("map", 1, true)),
      cloud_(priv.advertise<sensor_msgs::PointCloud2>("occupied_voxels", 1, true)),
      markers_(priv.advertise<visualization_msgs::MarkerArray>("occupied_markers", 1, true)),
      status_(priv.advertise<std_msgs::String>("status", 1, true)) {}

void RosPublishers::send(const PublicationData& data) {
  const ros::Time now = ros::Time::now();
  if (data.mapChanged) {
    sensor_msgs::PointCloud2 cloud = cloudMessage(data.voxels);
    cloud.header.stamp = now;
    cloud.header.frame_id = data.frame;
    cloud_.publish(cloud);
    visualization_msgs::MarkerArray markers = markerMessage(data.voxels);
    for (visualization_msgs::Marker& m : markers.markers) m.header.stamp = now, m.header.frame_id = data.frame;
    markers_.publish(markers);
    if (data.grid) {
      nav_msgs::OccupancyGrid grid = gridMessage(*data.grid);
      grid.header.stamp = now;
      grid.header.frame_id = data.frame;
      grid.info.map_load_time = now;
      grid_.publish(grid);
    }
  }
  std_msgs::String status;
  status.data = data.statusJson;
  status_.publish(status);
}

}  // namespace voxen_ros
