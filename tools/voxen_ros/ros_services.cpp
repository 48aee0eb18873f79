#include <voxen_ros/CheckPath.h>
#include <voxen_ros/QueryClearance.h>
#include <voxen_ros/QueryOccupancy.h>
#include <voxen_ros/Raycast.h>
#include <voxen_ros/SaveMap.h>

#include "ros_side.hpp"

namespace voxen_ros {

namespace {

template <class P>
std::vector<double> flat(const std::vector<P>& points) {
  std::vector<double> out;
  out.reserve(points.size() * 3);
  for (const P& p : points) out.insert(out.end(), {p.x, p.y, p.z});
  return out;
}

}  // namespace

std::vector<ros::ServiceServer> advertiseServices(ros::NodeHandle& priv, Engine& engine) {
  std::vector<ros::ServiceServer> servers;
  servers.push_back(priv.advertiseService<QueryOccupancy::Request, QueryOccupancy::Response>(
      "query_occupancy", [&engine](QueryOccupancy::Request& req, QueryOccupancy::Response& res) {
        OccupancyResult r = engine.occupancy(flat(req.points));
        res.success = r.success;
        res.message = r.message;
        res.occupancy = r.occupancy;
        res.log_odds = r.logOdds;
        res.status = r.status;
        res.snapshot_version = r.snapshotVersion;
        res.snapshot_clouds = r.snapshotClouds;
        return true;
      }));
  servers.push_back(priv.advertiseService<QueryClearance::Request, QueryClearance::Response>(
      "query_clearance", [&engine](QueryClearance::Request& req, QueryClearance::Response& res) {
        ClearanceResult r = engine.clearance(flat(req.points));
        res.success = r.success;
        res.message = r.message;
        res.clearance = r.clearance;
        for (size_t i = 0; i + 2 < r.gradient.size(); i += 3) {
          geometry_msgs::Vector3 g;
          g.x = r.gradient[i], g.y = r.gradient[i + 1], g.z = r.gradient[i + 2];
          res.gradient.push_back(g);
        }
        res.status = r.status;
        res.snapshot_version = r.snapshotVersion;
        return true;
      }));
  servers.push_back(priv.advertiseService<Raycast::Request, Raycast::Response>(
      "raycast", [&engine](Raycast::Request& req, Raycast::Response& res) {
        RaycastResult r = engine.raycast(flat(req.origins), flat(req.directions), req.max_range, req.unknown_blocks != 0);
        res.success = r.success;
        res.message = r.message;
        res.hit = r.hit;
        res.distance = r.distance;
        for (size_t i = 0; i + 2 < r.point.size(); i += 3) {
          geometry_msgs::Point p;
          p.x = r.point[i], p.y = r.point[i + 1], p.z = r.point[i + 2];
          res.point.push_back(p);
        }
        res.status = r.status;
        res.snapshot_version = r.snapshotVersion;
        return true;
      }));
  servers.push_back(priv.advertiseService<CheckPath::Request, CheckPath::Response>(
      "check_path", [&engine](CheckPath::Request& req, CheckPath::Response& res) {
        const std::vector<uint64_t> offsets(req.offsets.begin(), req.offsets.end());
        PathResult r = engine.checkPaths(flat(req.points), offsets, req.radius, req.unknown);
        res.success = r.success;
        res.message = r.message;
        res.collides = r.collides;
        res.segment = r.segment;
        res.t = r.t;
        res.status = r.status;
        res.snapshot_version = r.snapshotVersion;
        return true;
      }));
  servers.push_back(priv.advertiseService<SaveMap::Request, SaveMap::Response>(
      "save_map", [&engine](SaveMap::Request& req, SaveMap::Response& res) {
        SaveResult r = engine.save(req.path);
        res.success = r.success;
        res.message = r.message;
        res.clouds = r.clouds;
        return true;
      }));
  return servers;
}

}  // namespace voxen_ros
