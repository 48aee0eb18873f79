// The GPU primitives against their CPU references, bit for bit, at sizes past the limits
// that matter on real devices: stable radix sorts (32- and 64-bit keys; the 64-bit sort's
// per-item passes dispatch more than 65,535 workgroups, folded into y where the device's x
// limit is 65,535), the exclusive scan over many tiles, and stream compaction whose
// indirect command covers more than 65,535 workgroups, with a pass dispatched through it
// that must see exactly the kept items.
#include <algorithm>
#include <numeric>
#include <random>

#include "check_row.hpp"
#include "voxen/gpu/primitives/scan_tiles.h"
#include "voxen/host/buffer.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/primitives/exclusive_scan.hpp"
#include "voxen/primitives/radix_sort.hpp"
#include "voxen/primitives/stream_compaction.hpp"

namespace voxen {

namespace {

constexpr uint64_t kMaxX = 65535;  // the x workgroup limit of many devices (lavapipe's too)

template <class T>
std::vector<T> uploadedAndBack(Scheduler& s, const Buffer& buffer) {
  return s.readback<T>(buffer.range()).get();
}

template <class Key>
void checkSort(CheckContext& context, const std::string& name, uint32_t n, uint32_t keyBits, uint32_t distinct,
               uint64_t dispatchedGroups) {
  runRow(context, "primitives", name, [&](RowResult& row) {
    Scheduler& s = context.scheduler;
    std::mt19937_64 rng(n ^ keyBits);
    const Key mask = keyBits >= sizeof(Key) * 8 ? Key(~Key(0)) : Key((Key(1) << keyBits) - 1);
    // Keys from `distinct` values (duplicates, whose input order a stable sort keeps; 0:
    // every key random), with random bits above keyBits that the sort ignores and carries.
    std::vector<Key> palette(distinct);
    for (Key& p : palette) p = Key(rng()) & mask;
    std::vector<Key> keys(n);
    std::vector<uint32_t> values(n);
    for (uint32_t i = 0; i < n; ++i) {
      keys[i] = (distinct ? palette[rng() % distinct] : Key(rng()) & mask) | (Key(rng()) & ~mask);
      values[i] = i;
    }
    Buffer keyBuffer(s.device(), "check sort keys", uint64_t(n) * sizeof(Key));
    Buffer valueBuffer(s.device(), "check sort values", uint64_t(n) * 4);
    s.upload(keyBuffer.range(), keys.data(), keyBuffer.size());
    s.upload(valueBuffer.range(), values.data(), valueBuffer.size());
    if constexpr (sizeof(Key) == 8) {
      RadixSort64 sort(s, n);
      sort.record(keyBuffer.range(), valueBuffer.range(), n, keyBits);
    } else {
      RadixSort sort(s, n);
      sort.record(keyBuffer.range(), valueBuffer.range(), n, keyBits);
    }
    const std::vector<Key> gotKeys = uploadedAndBack<Key>(s, keyBuffer);
    const std::vector<uint32_t> gotValues = uploadedAndBack<uint32_t>(s, valueBuffer);
    // The reference: the permutation std::stable_sort gives by the low key bits.
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return (keys[a] & mask) < (keys[b] & mask); });
    if (context.breakReferences()) std::swap(order[0], order[n - 1]);
    uint64_t wrong = 0;
    for (uint32_t i = 0; i < n; ++i) wrong += gotKeys[i] != keys[order[i]] || gotValues[i] != order[i];
    row.figure("pairs", n, "{} pairs");
    row.figure("key_bits", keyBits, "{} key bits");
    row.figure("workgroups_per_pass", double(dispatchedGroups), "{} workgroups in its widest pass");
    row.figure("misplaced", double(wrong), "{} misplaced");
    row.require(wrong == 0, std::to_string(wrong) + " pairs differ from std::stable_sort");
  });
}

void checkScan(CheckContext& context, uint32_t n) {
  const uint64_t tiles = (uint64_t(n) + gpu::kTileItems - 1) / gpu::kTileItems;
  runRow(context, "primitives", "exclusive scan over " + checkNumber(double(tiles)) + " tiles (one workgroup each)",
         [&](RowResult& row) {
           Scheduler& s = context.scheduler;
           std::vector<uint32_t> in(n);
           uint32_t state = 0x9e3779b9u;  // xorshift: cheap values, some sums wrap past 2^32
           for (uint32_t& v : in) {
             state ^= state << 13, state ^= state >> 17, state ^= state << 5;
             v = (state & 0xff) == 0 ? state : state & 0x3ff;
           }
           Buffer buffer(s.device(), "check scan", uint64_t(n) * 4), total(s.device(), "check scan total", 4);
           s.upload(buffer.range(), in.data(), buffer.size());
           const BufferRange totalRange = total.range();
           ExclusiveScan scan(s);
           scan.record(buffer.range(), buffer.range(), n, &totalRange);  // in place
           const std::vector<uint32_t> got = uploadedAndBack<uint32_t>(s, buffer);
           const uint32_t gotTotal = uploadedAndBack<uint32_t>(s, total)[0];
           uint32_t sum = 0;
           uint64_t wrong = 0;
           const uint32_t broken = context.breakReferences() ? n / 2 : n;
           for (uint32_t i = 0; i < n; ++i) {
             wrong += got[i] != sum + (i == broken);
             sum += in[i];
           }
           row.figure("items", n, "{} items");
           row.figure("tiles", double(tiles), "{} tiles");
           row.figure("wrong_items", double(wrong), "{} wrong");
           row.require(wrong == 0, std::to_string(wrong) + " prefix sums differ from the CPU's");
           row.require(gotTotal == sum, "total " + std::to_string(gotTotal) + ", the CPU's " + std::to_string(sum));
         });
}

void checkCompaction(CheckContext& context, uint32_t n) {
  runRow(context, "primitives", "stream compaction and a pass dispatched through its command past 65,535 workgroups",
         [&](RowResult& row) {
           Scheduler& s = context.scheduler;
           constexpr uint32_t kGroup = 64;  // compaction_probe.comp's workgroup size
           std::mt19937 rng(n);
           std::vector<uint32_t> flags(n);
           for (uint32_t& f : flags) f = rng() % 100 < 97 ? 1u : 0u;
           std::vector<uint32_t> expected;
           for (uint32_t i = 0; i < n; ++i)
             if (flags[i]) expected.push_back(i);
           Buffer flagBuffer(s.device(), "check compaction flags", uint64_t(n) * 4);
           Buffer indices(s.device(), "check compaction indices", uint64_t(n) * 4);
           Buffer seen(s.device(), "check compaction seen", uint64_t(n) * 4);
           Buffer small(s.device(), "check compaction total, command and counters", 32);
           s.upload(flagBuffer.range(), flags.data(), flagBuffer.size());
           s.fill(seen.range(), 0);
           s.fill(small.range(), 0);
           const BufferRange total = small.range(0, 4), args = small.range(4, 12), counters = small.range(16, 8);
           StreamCompaction compaction(s);
           compaction.record(flagBuffer.range(), indices.range(), n, total, &args, kGroup);
           auto probe = s.library().kernel("primitives/compaction_probe.comp");
           gpu::CompactionProbePush push{counters.address, total.address, indices.range().address, seen.range().address};
           s.dispatchIndirect({"check compaction probe", probe.get(), {}, push,
                               {readsWrites(counters), reads(total), reads(indices.range()), readsWrites(seen.range())}},
                              args);
           std::vector<uint32_t> got = uploadedAndBack<uint32_t>(s, indices);
           const std::vector<uint32_t> header = uploadedAndBack<uint32_t>(s, small);
           const std::vector<uint32_t> marks = uploadedAndBack<uint32_t>(s, seen);
           if (context.breakReferences()) expected.back() ^= 1u;
           const uint32_t kept = header[0];
           got.resize(std::min<size_t>(kept, got.size()));
           const uint64_t groups = (uint64_t(expected.size()) + kGroup - 1) / kGroup;
           uint64_t wrongMarks = 0;
           for (uint32_t i = 0; i < n; ++i) wrongMarks += marks[i] != flags[i];
           row.figure("flags", n, "{} flags");
           row.figure("kept", kept, "{} kept");
           row.figure("workgroups", double(groups), "{} workgroups");
           row.figure("command_rows", header[2], "command folded into {} rows");
           row.require(groups > kMaxX, "only " + std::to_string(groups) + " workgroups: not past 65,535");
           row.require(kept == expected.size() && got == expected, "the kept indices differ from the CPU's");
           const uint64_t covered = uint64_t(header[1]) * header[2] * header[3];
           row.require(header[1] <= kMaxX && covered >= groups && covered < groups + header[2],
                       "the command (" + std::to_string(header[1]) + ", " + std::to_string(header[2]) + ", " +
                           std::to_string(header[3]) + ") does not cover " + std::to_string(groups) + " workgroups");
           row.require(header[4] == covered * kGroup, std::to_string(header[4]) + " invocations launched, not " +
                                                          std::to_string(covered * kGroup));
           row.require(header[5] == expected.size(), std::to_string(header[5]) + " invocations had an item, not " +
                                                         std::to_string(expected.size()));
           row.require(wrongMarks == 0, std::to_string(wrongMarks) + " items seen other than once by the pass");
         });
}

}  // namespace

void checkPrimitives(CheckContext& context) {
  const uint32_t sortPairs = context.sized(1000003u, (1u << 24) + 5);
  checkSort<uint32_t>(context, "radix sort, 32-bit keys (27 bits sorted, high bits carried, duplicates)", sortPairs, 27, 5000,
                      (sortPairs + 4095) / 4096);
  // The 64-bit sort's gather runs one invocation per pair in workgroups of 64.
  const uint32_t sort64Pairs = context.sized(uint32_t(kMaxX * 64 + 4101), (1u << 24) + 5);
  checkSort<uint64_t>(context, "radix sort, 64-bit keys, per-pair passes past 65,535 workgroups", sort64Pairs, 64, 0,
                      (sort64Pairs + 63) / 64);
  checkScan(context, uint32_t((kMaxX + 2) * gpu::kTileItems + 5));  // past 65,535 tiles at both sizes
  checkCompaction(context, context.sized(uint32_t(kMaxX * 64 * 100 / 96), 1u << 24));
}

}  // namespace voxen
