#pragma once
// Host-visible device memory that ray records are prepared into (prepareRays with a pool),
// so that the GPU reads each record where the preparing thread wrote it: the integration
// thread neither copies nor even reads them (GpuIntegrator::recordPool). A block is leased
// while anyone uses it: the thread preparing into it, then the batches that read it until
// the GPU has read them; the last lease to go returns the block for reuse. Blocks are never
// freed before the pool, so memory grows to what the rays in flight need and stays there.
//
// Threads: acquire() and leases (copies, moves, destruction) from any thread. The pool is
// created and destroyed by the thread that owns its integrator, once every lease is gone.
// Memory handed out may be write-combined: write records once, in order, and never read
// them back through records() on the host (that read would cross the bus on some devices).
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "voxen/gpu/occupancy/occupancy_shared.h"
#include "voxen/host/buffer.hpp"

namespace voxen {

class Device;

class RayRecordPool {
 public:
  explicit RayRecordPool(Device& device);
  ~RayRecordPool();
  RayRecordPool(const RayRecordPool&) = delete;
  RayRecordPool& operator=(const RayRecordPool&) = delete;

  class Lease {
   public:
    Lease() = default;
    Lease(const Lease& other);
    Lease& operator=(const Lease& other);
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&& other) noexcept;
    ~Lease();

    explicit operator bool() const { return pool_ != nullptr; }
    // Room for capacity() records; write-only (see above).
    gpu::GpuRay* records() const { return records_; }
    uint32_t capacity() const { return capacity_; }
    const RayRecordPool* pool() const { return pool_; }
    // Where the GPU finds records [first, first + count).
    BufferRange range(uint32_t first, uint32_t count) const;
    // Whether both lease the same block.
    bool sameBlock(const Lease& other) const { return pool_ == other.pool_ && block_ == other.block_; }

   private:
    friend class RayRecordPool;
    void release();
    RayRecordPool* pool_ = nullptr;
    uint32_t block_ = 0;
    uint32_t capacity_ = 0;
    gpu::GpuRay* records_ = nullptr;
    BufferRange range_;
  };

  // A block of at least `records` records (at least one), free or newly allocated.
  Lease acquire(uint32_t records);
  // Blocks allocated so far (for tests and reports).
  size_t blockCount() const;

 private:
  struct Block {
    Buffer buffer;
    uint32_t capacity = 0;
    uint32_t leases = 0;
  };
  Device& device_;
  mutable std::mutex mutex_;
  std::deque<Block> blocks_;  // grows at the back only: a block's address never changes
  std::vector<uint32_t> free_;
};

}  // namespace voxen
