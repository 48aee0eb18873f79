// voxen::DepthSource: a recording or a TUM RGB-D folder, told by the path.
#include "depth/depth_source_impl.hpp"

#include "voxen/host/error.hpp"
#include "voxen/input/input_format.hpp"

namespace voxen {

DepthSource::DepthSource(const std::filesystem::path& path, const DepthSourceOptions& options) {
  const InputFormat format = detectInputFormat(path);
  if (format == InputFormat::RosBag || format == InputFormat::Mcap)
    impl_ = detail::openRecordingDepth(path, options);
  else if (format == InputFormat::TumRgbd)
    impl_ = detail::openTumDepth(path, options);
  else
    throw Error(path.string() + ": is a " + std::string(inputFormatName(format)) +
                ", which holds no depth images (Voxen reads them from ROS 1 bags, MCAP files and TUM RGB-D folders)");
}

DepthSource::~DepthSource() = default;
DepthSource::DepthSource(DepthSource&&) noexcept = default;
DepthSource& DepthSource::operator=(DepthSource&&) noexcept = default;

const DepthSourceInfo& DepthSource::info() const { return impl_->info; }
bool DepthSource::next(DepthFrame& frame) { return impl_->next(frame); }
const DepthSourceStats& DepthSource::stats() const { return impl_->stats; }

}  // namespace voxen
