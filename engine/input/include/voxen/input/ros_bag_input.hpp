#pragma once
// ROS 1 bag input is optional: it is read through Debian's librosbag-storage, which brings boost,
// pluginlib and class_loader onto the link line, so it lives in a library of its own,
// voxen::rosbag (built when VOXEN_ROSBAG is ON and librosbag-storage-dev is installed), outside
// voxen::voxen. A program that wants to read bags links voxen::rosbag and calls
// enableRosBagInput() once at start-up; until then a .bag input is refused with an error that
// says so. MCAP recordings (ROS 1 or ROS 2 messages) need nothing of this.
//
// Thread safety: enableRosBagInput() may be called from any thread, any number of times; a
// recording opened on another thread at the same time sees bag input either off or on.

namespace voxen {

// Defined in voxen::rosbag: turns on ROS 1 bag input for every reader of this process.
void enableRosBagInput();

// Whether enableRosBagInput() has been called in this process.
bool rosBagInputEnabled();

}  // namespace voxen
