#include "voxen/occupancy/region_discovery.hpp"

#include <algorithm>
#include <bit>

#include "voxen/gpu/occupancy/discovery_shared.h"
#include "voxen/gpu/occupancy/occupancy_shared.h"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/host/shader_library.hpp"

namespace voxen {

namespace {

// The set starts at this many entries and doubles on overflow; at a quarter full the
// probe sequences stay short (kDiscoveryMaxProbe).
constexpr uint32_t kInitialSetEntries = 1u << 13;
constexpr uint32_t kMaxSetEntries = 1u << 24;
// Regions listed in the first readback beyond the previous batch's count; a batch with
// more reads the rest in a second readback.
constexpr uint32_t kListSlack = 256;

}  // namespace

RegionDiscovery::RegionDiscovery(Scheduler& scheduler, uint32_t maxRays) : scheduler_(scheduler), maxRays_(maxRays) {
  ShaderLibrary& library = scheduler.library();
  discoverKernel_ = library.kernel("occupancy/region_discover.comp");
  listKernel_ = library.kernel("occupancy/region_list.comp");
  deferFlag_ = Buffer(scheduler.device(), "region discovery defer flag", 4);
  scheduler.fill(deferFlag_.range(), 0u);
  resizeSet(kInitialSetEntries);
}

RegionDiscovery::~RegionDiscovery() = default;

// The lists are per copy and sized when a copy is recorded (a pending batch's list is kept).
void RegionDiscovery::resizeSet(uint32_t entries) {
  setEntries_ = entries;
  set_ = Buffer(scheduler_.device(), "region discovery set", uint64_t(entries) * 8);
  entrySlots_ = Buffer(scheduler_.device(), "region discovery slots", uint64_t(entries) * 4);
}

void RegionDiscovery::ensure(Buffer& buffer, const char* name, uint64_t bytes) {
  if (buffer.size() >= bytes) return;
  // Grows by half again so that slowly growing batches do not reallocate every time; the
  // old buffer is released once the batches using it complete.
  buffer = Buffer(scheduler_.device(), name, std::max<uint64_t>(bytes, buffer.size() + buffer.size() / 2));
}

RegionDiscovery::Ticket RegionDiscovery::prepare(const BufferRange& rays, uint32_t rayCount, const RegionKey& origin,
                                                 int32_t regionSize, uint64_t regionEntries, uint64_t segmentCount,
                                                 const BufferRange& parts, uint32_t partCount) {
  Ticket ticket;
  ticket.parts = parts;
  ticket.partCount = partCount;
  ticket.copy = next_;
  next_ ^= 1u;
  ticket.rays = rays;
  ticket.rayCount = rayCount;
  ticket.origin = origin;
  ticket.regionSize = regionSize;
  ticket.regionEntries = regionEntries;
  ticket.segmentCount = segmentCount;
  Copy& copy = copies_[ticket.copy];
  ensure(copy.raySlots, "occupancy ray region slots", (uint64_t(maxRays_) + regionEntries) * 4);
  ensure(copy.segments, "occupancy segments", std::max<uint64_t>(segmentCount, 1) * 8);
  return ticket;
}

RegionDiscovery::Ticket RegionDiscovery::submit(const BufferRange& rays, uint32_t rayCount, const RegionKey& origin,
                                                int32_t regionSize, uint64_t regionEntries, uint64_t segmentCount,
                                                const BufferRange& parts, uint32_t partCount) {
  Ticket ticket = prepare(rays, rayCount, origin, regionSize, regionEntries, segmentCount, parts, partCount);
  record(ticket);
  scheduler_.submit();
  return ticket;
}

RegionDiscovery::Ticket RegionDiscovery::recordResolving(const BufferRange& rays, uint32_t rayCount,
                                                         const RegionKey& origin, int32_t regionSize,
                                                         uint64_t regionEntries, uint64_t segmentCount,
                                                         const BufferRange& parts, uint32_t partCount,
                                                         const Residency& residency) {
  Ticket ticket = prepare(rays, rayCount, origin, regionSize, regionEntries, segmentCount, parts, partCount);
  ticket.resolving = true;
  record(ticket, &residency);
  return ticket;
}

// Records the ticket's discovery and its list's readback into the current batch.
void RegionDiscovery::record(Ticket& ticket, const Residency* residency) {
  Copy& copy = copies_[ticket.copy];
  ensure(copy.list, "region discovery list", (gpu::kDiscoveryHeaderWords + uint64_t(setEntries_) * 4) * 4);
  gpu::DiscoveryPush push{};
  push.rays = ticket.rays.address;
  push.raySlots = copy.raySlots.address();
  push.segments = copy.segments.address();
  push.set = set_.address();
  push.list = copy.list.address();
  push.origin = {ticket.origin.x, ticket.origin.y, ticket.origin.z, ticket.regionSize};
  push.rayCount = ticket.rayCount;
  push.setMask = setEntries_ - 1;
  push.partCount = ticket.partCount;
  push.parts = ticket.partCount ? ticket.parts.address : 0;
  ticket.setEntries = setEntries_;
  std::vector<BufferUse> uses{readsWrites(ticket.rays), writes(copy.raySlots.range()), writes(copy.segments.range()),
                              readsWrites(set_.range()), readsWrites(copy.list.range())};
  if (ticket.partCount) uses.push_back(reads(ticket.parts));
  if (residency) {
    push.resolve = 1;
    push.table = residency->table.address;
    push.tableMask = residency->mask;
    push.tableMaxProbe = residency->maxProbe;
    push.entrySlots = entrySlots_.address();
    push.deferFlag = deferFlag_.address();
    uses.push_back(reads(residency->table));
    uses.push_back(writes(entrySlots_.range()));
    uses.push_back(readsWrites(deferFlag_.range()));
  }
  ticket.partCount = 0;  // added by this recording: a later one must not add them again
  scheduler_.fill(set_.range(), 0xFFFFFFFFu);  // kEmptyRegionKey
  scheduler_.fill(copy.list.range(0, gpu::kDiscoveryHeaderWords * 4), 0u);
  scheduler_.dispatchThreads({"region discovery", discoverKernel_.get(), {}, push, uses}, ticket.rayCount);
  scheduler_.dispatchThreads({"region discovery list", listKernel_.get(), {}, push, uses}, setEntries_);
  // The header and as many entries as the last batch had, plus slack: one readback for
  // almost every batch, without reading the whole set.
  ticket.listed = std::min(setEntries_, lastCount_ + kListSlack);
  ticket.list =
      scheduler_.readback<uint32_t>(copy.list.range(0, (gpu::kDiscoveryHeaderWords + uint64_t(ticket.listed) * 4) * 4));
}

std::vector<DiscoveredRegion> RegionDiscovery::collect(Ticket& ticket) {
  for (;;) {
    const std::vector<uint32_t> words = ticket.list.get();
    const uint32_t count = words[gpu::kDiscoveryCount];
    if (words[gpu::kDiscoveryOverflow] != 0) {
      // Doubled, unless a later ticket's overflow has grown it since this one was recorded.
      if (ticket.setEntries == setEntries_) {
        if (setEntries_ >= kMaxSetEntries)
          throw SettingError(SettingError::Kind::Change, "GpuIntegratorOptions::maxRaysPerBatch", "the batch size",
                             "region discovery: a batch touches more than " + std::to_string(kMaxSetEntries / 4) +
                                 " regions; lower {}",
                             std::to_string(maxRays_) + " rays");
        resizeSet(setEntries_ * 2);
        ++growths_;
      }
      // A resolving run that overflowed resolved nothing and raised the defer flag; the run
      // again only lists (the host makes every region resident).
      if (ticket.resolving) ticket.raisedDeferFlag = true;
      ticket.resolving = false;
      record(ticket);
      scheduler_.submit();
      continue;
    }
    // The rest of a long list from the ticket's own copy (no later recording reuses it before
    // this ticket is collected: copies alternate and tickets are collected in order).
    std::vector<uint32_t> rest;
    if (count > ticket.listed) {
      const uint64_t offset = (gpu::kDiscoveryHeaderWords + uint64_t(ticket.listed) * 4) * 4;
      rest = scheduler_.readback<uint32_t>(copies_[ticket.copy].list.range(offset, uint64_t(count - ticket.listed) * 16))
                 .get();
    }
    std::vector<DiscoveredRegion> regions(count);
    for (uint32_t i = 0; i < count; ++i) {
      const uint32_t* e = i < ticket.listed ? &words[gpu::kDiscoveryHeaderWords + i * 4] : &rest[(i - ticket.listed) * 4];
      const bool missed = (e[3] & gpu::kDiscoveryMissBit) != 0;
      regions[i] = {{int32_t(e[0]), int32_t(e[1]), int32_t(e[2])}, e[3] & ~gpu::kDiscoveryMissBit,
                    ticket.resolving && !missed};
    }
    std::sort(regions.begin(), regions.end());
    lastCount_ = count;
    return regions;
  }
}

void RegionDiscovery::clearDeferFlag() { scheduler_.fill(deferFlag_.range(), 0u); }

std::vector<DiscoveredRegion> RegionDiscovery::discover(const BufferRange& rays, uint32_t rayCount, const RegionKey& origin,
                                                        int32_t regionSize, uint64_t regionEntries, uint64_t segmentCount) {
  Ticket ticket = submit(rays, rayCount, origin, regionSize, regionEntries, segmentCount);
  return collect(ticket);
}

BufferRange RegionDiscovery::publishSlots(std::span<const uint32_t> slotOfEntry) {
  if (slotOfEntry.size() != setEntries_) throw Error("region discovery: a slot table must have one entry per set entry");
  scheduler_.upload(entrySlots_.range(), slotOfEntry.data(), slotOfEntry.size_bytes());
  return entrySlots_.range();
}

}  // namespace voxen
