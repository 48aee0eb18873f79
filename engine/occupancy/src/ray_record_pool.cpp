#include "voxen/occupancy/ray_record_pool.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>
#include <utility>

#include "voxen/host/log.hpp"

namespace voxen {

namespace {
// Blocks hold a power of two of records, at least this many, so that chunks of similar
// sizes reuse each other's blocks.
constexpr uint32_t kSmallestBlockRecords = 4096;
}  // namespace

RayRecordPool::RayRecordPool(Device& device) : device_(device) {}

RayRecordPool::~RayRecordPool() {
  for (const Block& block : blocks_)
    if (block.leases != 0) {
      // A lease outliving its pool would point at freed memory: a bug in the caller's order
      // of destruction, reported rather than hidden.
      logMessage(LogLevel::Error, "a ray record pool was destroyed while a block of it was still leased");
      break;
    }
}

RayRecordPool::Lease RayRecordPool::acquire(uint32_t records) {
  records = std::max(records, 1u);
  std::lock_guard lock(mutex_);
  // The smallest free block that holds the records.
  auto best = free_.end();
  for (auto it = free_.begin(); it != free_.end(); ++it)
    if (blocks_[*it].capacity >= records && (best == free_.end() || blocks_[*it].capacity < blocks_[*best].capacity))
      best = it;
  uint32_t index = 0;
  if (best != free_.end()) {
    index = *best;
    free_.erase(best);
  } else {
    const uint64_t capacity = std::bit_ceil(std::max<uint64_t>(records, kSmallestBlockRecords));
    Block block;
    block.buffer = Buffer(device_, "ray records " + std::to_string(blocks_.size()), capacity * sizeof(gpu::GpuRay),
                          MemoryKind::HostUpload);
    if (!block.buffer.mapped()) throw std::runtime_error("ray record memory is not host-visible");
    block.capacity = uint32_t(capacity);
    index = uint32_t(blocks_.size());
    blocks_.push_back(std::move(block));
  }
  Block& block = blocks_[index];
  block.leases = 1;
  Lease lease;
  lease.pool_ = this;
  lease.block_ = index;
  lease.capacity_ = block.capacity;
  lease.records_ = reinterpret_cast<gpu::GpuRay*>(block.buffer.mapped());
  lease.range_ = block.buffer.range();
  return lease;
}

size_t RayRecordPool::blockCount() const {
  std::lock_guard lock(mutex_);
  return blocks_.size();
}

BufferRange RayRecordPool::Lease::range(uint32_t first, uint32_t count) const {
  if (uint64_t(first) + count > capacity_)
    throw std::out_of_range("records [" + std::to_string(first) + ", +" + std::to_string(count) +
                            ") outside a block of " + std::to_string(capacity_));
  const VkDeviceSize offset = range_.offset + VkDeviceSize(first) * sizeof(gpu::GpuRay);
  return {range_.buffer, offset, VkDeviceSize(count) * sizeof(gpu::GpuRay), range_.address + VkDeviceSize(first) * sizeof(gpu::GpuRay),
          range_.name};
}

RayRecordPool::Lease::Lease(const Lease& other) { *this = other; }

RayRecordPool::Lease& RayRecordPool::Lease::operator=(const Lease& other) {
  if (this == &other) return *this;
  if (other.pool_) {
    std::lock_guard lock(other.pool_->mutex_);
    ++other.pool_->blocks_[other.block_].leases;
  }
  release();
  pool_ = other.pool_;
  block_ = other.block_;
  capacity_ = other.capacity_;
  records_ = other.records_;
  range_ = other.range_;
  return *this;
}

RayRecordPool::Lease::Lease(Lease&& other) noexcept { *this = std::move(other); }

RayRecordPool::Lease& RayRecordPool::Lease::operator=(Lease&& other) noexcept {
  if (this == &other) return *this;
  release();
  pool_ = std::exchange(other.pool_, nullptr);
  block_ = other.block_;
  capacity_ = std::exchange(other.capacity_, 0);
  records_ = std::exchange(other.records_, nullptr);
  range_ = other.range_;
  return *this;
}

RayRecordPool::Lease::~Lease() { release(); }

void RayRecordPool::Lease::release() {
  if (!pool_) return;
  {
    std::lock_guard lock(pool_->mutex_);
    if (--pool_->blocks_[block_].leases == 0) pool_->free_.push_back(block_);
  }
  pool_ = nullptr;
  capacity_ = 0;
  records_ = nullptr;
}

}  // namespace voxen
