// Barrier derivation from declared accesses, without Vulkan.
#include <catch2/catch.hpp>

#include <vector>

#include "support/gpu_fixture.hpp"  // vt::Rng
#include "support/hazard_oracle.hpp"
#include "voxen/host/barrier_tracker.hpp"

namespace {

constexpr VkPipelineStageFlags C = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
constexpr VkPipelineStageFlags T = VK_PIPELINE_STAGE_TRANSFER_BIT;

voxen::ResourceAccess R(uint64_t resource) { return {resource, true, false}; }
voxen::ResourceAccess W(uint64_t resource) { return {resource, false, true}; }
voxen::ResourceAccess RW(uint64_t resource) { return {resource, true, true}; }

voxen::Barrier rec(voxen::BarrierTracker& tracker, VkPipelineStageFlags stage, std::vector<voxen::ResourceAccess> accesses) {
  return tracker.record(stage, accesses);
}

bool has(VkFlags set, VkFlags bits) { return (set & bits) == bits; }

}  // namespace

TEST_CASE("BarrierTracker: independent commands get no barrier", "[barrier][logic]") {
  voxen::BarrierTracker tracker;
  CHECK(rec(tracker, C, {W(1)}).empty());
  CHECK(rec(tracker, C, {W(2)}).empty());           // another buffer
  CHECK(rec(tracker, T, {W(3)}).empty());
  CHECK(rec(tracker, C, {R(4), W(5)}).empty());     // never written before: nothing to wait for
  CHECK(rec(tracker, C, {R(4), W(6)}).empty());     // read after read
  CHECK(rec(tracker, T, {R(4)}).empty());
  CHECK(rec(tracker, C, {RW(7)}).empty());
}

TEST_CASE("BarrierTracker: read-after-write gets a barrier from the writer's stage", "[barrier][logic]") {
  SECTION("compute -> compute") {
    voxen::BarrierTracker tracker;
    REQUIRE(rec(tracker, C, {W(1)}).empty());
    const auto b = rec(tracker, C, {R(1), W(2)});
    REQUIRE_FALSE(b.empty());
    CHECK(has(b.srcStages, C));
    CHECK(has(b.dstStages, C));
    CHECK(has(b.srcAccess, VK_ACCESS_SHADER_WRITE_BIT));
    CHECK(has(b.dstAccess, VK_ACCESS_SHADER_READ_BIT));
    CHECK_FALSE(b.srcStages & T);  // nothing ran in the transfer stage
    // Now visible to compute: another compute reader needs nothing more.
    CHECK(rec(tracker, C, {R(1), W(3)}).empty());
  }
  SECTION("transfer -> compute") {
    voxen::BarrierTracker tracker;
    REQUIRE(rec(tracker, T, {W(1)}).empty());
    const auto b = rec(tracker, C, {R(1)});
    REQUIRE_FALSE(b.empty());
    CHECK(has(b.srcStages, T));
    CHECK(has(b.dstStages, C));
    CHECK(has(b.srcAccess, VK_ACCESS_TRANSFER_WRITE_BIT));
    CHECK(has(b.dstAccess, VK_ACCESS_SHADER_READ_BIT));
  }
  SECTION("compute -> transfer (readback)") {
    voxen::BarrierTracker tracker;
    REQUIRE(rec(tracker, C, {W(1)}).empty());
    const auto b = rec(tracker, T, {R(1), W(9)});
    REQUIRE_FALSE(b.empty());
    CHECK(has(b.srcStages, C));
    CHECK(has(b.dstStages, T));
    CHECK(has(b.srcAccess, VK_ACCESS_SHADER_WRITE_BIT));
    CHECK(has(b.dstAccess, VK_ACCESS_TRANSFER_READ_BIT));
    // Visible to transfer, not to compute: a compute reader still needs a barrier.
    const auto again = rec(tracker, C, {R(1)});
    REQUIRE_FALSE(again.empty());
    CHECK(has(again.srcStages, C));
    CHECK(has(again.dstStages, C));
    CHECK(has(again.srcAccess, VK_ACCESS_SHADER_WRITE_BIT));
  }
  SECTION("read-write after write") {
    voxen::BarrierTracker tracker;
    REQUIRE(rec(tracker, C, {W(1)}).empty());
    const auto b = rec(tracker, C, {RW(1)});
    REQUIRE_FALSE(b.empty());
    CHECK(has(b.srcAccess, VK_ACCESS_SHADER_WRITE_BIT));
    CHECK(has(b.dstAccess, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT));
  }
}

TEST_CASE("BarrierTracker: write-after-write gets a barrier", "[barrier][logic]") {
  voxen::BarrierTracker tracker;
  REQUIRE(rec(tracker, C, {W(1)}).empty());
  const auto b = rec(tracker, T, {W(1)});
  REQUIRE_FALSE(b.empty());
  CHECK(has(b.srcStages, C));
  CHECK(has(b.dstStages, T));
  CHECK(has(b.srcAccess, VK_ACCESS_SHADER_WRITE_BIT));
  const auto b2 = rec(tracker, C, {W(1)});
  REQUIRE_FALSE(b2.empty());
  CHECK(has(b2.srcStages, T));
  CHECK(has(b2.dstStages, C));
  CHECK(has(b2.srcAccess, VK_ACCESS_TRANSFER_WRITE_BIT));
}

TEST_CASE("BarrierTracker: write-after-read gets a barrier", "[barrier][logic]") {
  SECTION("compute read, transfer write") {
    voxen::BarrierTracker tracker;
    REQUIRE(rec(tracker, C, {R(1), W(2)}).empty());
    const auto b = rec(tracker, T, {W(1)});
    REQUIRE_FALSE(b.empty());
    CHECK(has(b.srcStages, C));
    CHECK(has(b.dstStages, T));
  }
  SECTION("readers in both stages, then a write") {
    voxen::BarrierTracker tracker;
    REQUIRE(rec(tracker, T, {R(1)}).empty());
    REQUIRE(rec(tracker, C, {R(1)}).empty());
    const auto b = rec(tracker, C, {W(1)});
    REQUIRE_FALSE(b.empty());
    CHECK(has(b.srcStages, C | T));
    CHECK(has(b.dstStages, C));
  }
  SECTION("reset forgets") {
    voxen::BarrierTracker tracker;
    REQUIRE(rec(tracker, C, {W(1)}).empty());
    tracker.reset();
    CHECK(rec(tracker, C, {R(1)}).empty());
  }
}

TEST_CASE("BarrierTracker: random command sequences against the hazard oracle", "[barrier][logic]") {
  constexpr VkPipelineStageFlags stages[] = {C, T};
  size_t barriers = 0, commandsTotal = 0;
  for (uint64_t seed = 1; seed <= 3000; ++seed) {
    vt::Rng rng(seed);
    voxen::BarrierTracker tracker;
    const uint64_t resources = rng.range(1, 4);
    const size_t length = rng.range(1, 14);
    std::vector<vt::OracleCommand> commands;
    for (size_t n = 0; n < length; ++n) {
      vt::OracleCommand command;
      command.name = "cmd" + std::to_string(n);
      command.stage = stages[rng.range(0, 1)];
      const size_t accessCount = rng.range(1, 3);
      for (size_t a = 0; a < accessCount; ++a) {
        voxen::ResourceAccess access;
        access.resource = 100 + rng.range(0, resources - 1);
        switch (rng.range(0, 2)) {
          case 0: access.read = true; break;
          case 1: access.write = true; break;
          default: access.read = access.write = true;
        }
        command.accesses.push_back(access);
      }
      command.barrierBefore = tracker.record(command.stage, command.accesses);
      if (!command.barrierBefore.empty()) {
        ++barriers;
        // A barrier always has a destination, and only names stages that exist.
        REQUIRE(has(command.barrierBefore.dstStages, command.stage));
        REQUIRE((command.barrierBefore.srcStages & ~(C | T)) == 0);
      }
      commands.push_back(std::move(command));
    }
    commandsTotal += commands.size();
    INFO("seed " << seed);
    const auto direct = vt::checkDirectBarriers(commands);
    if (!direct.empty()) FAIL(direct.front());
    const auto chains = vt::checkChains(commands);
    if (!chains.empty()) FAIL(chains.front());
    const auto spurious = vt::checkNoSpuriousBarriers(commands);
    if (!spurious.empty()) FAIL(spurious.front());
  }
  // The sequences must have produced plenty of hazards to check.
  CHECK(barriers > commandsTotal / 5);
}

TEST_CASE("Hazard oracle rejects missing or wrong barriers", "[barrier][logic]") {
  // The oracle itself must be able to fail: hand it broken sequences.
  std::vector<vt::OracleCommand> raw = {{"w", C, {W(1)}, {}}, {"r", C, {R(1)}, {}}};
  CHECK_FALSE(vt::checkDirectBarriers(raw).empty());
  CHECK_FALSE(vt::checkChains(raw).empty());
  raw[1].barrierBefore = {T, C, VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT};  // wrong source stage
  CHECK_FALSE(vt::checkDirectBarriers(raw).empty());
  raw[1].barrierBefore = {C, C, 0, VK_ACCESS_SHADER_READ_BIT};  // execution only: write not made available
  CHECK_FALSE(vt::checkDirectBarriers(raw).empty());
  CHECK(vt::checkChains(raw).empty());
  raw[1].barrierBefore = {C, C, VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT};
  CHECK(vt::checkDirectBarriers(raw).empty());

  std::vector<vt::OracleCommand> war = {{"r", C, {R(1)}, {}}, {"w", T, {W(1)}, {}}};
  CHECK_FALSE(vt::checkDirectBarriers(war).empty());
  war[1].barrierBefore = {C, T, 0, VK_ACCESS_TRANSFER_WRITE_BIT};
  CHECK(vt::checkDirectBarriers(war).empty());

  std::vector<vt::OracleCommand> spurious = {{"a", C, {W(1)}, {}}, {"b", C, {W(2)}, {C, C, VK_ACCESS_SHADER_WRITE_BIT, 0}}};
  CHECK_FALSE(vt::checkNoSpuriousBarriers(spurious).empty());
}

namespace {

constexpr VkPipelineStageFlags I = VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT;

voxen::ResourceAccess at(voxen::ResourceAccess access, uint64_t offset, uint64_t size) {
  access.offset = offset;
  access.size = size;
  return access;
}

}  // namespace

TEST_CASE("BarrierTracker: disjoint byte ranges of one buffer need no barrier", "[barrier][logic][ranges]") {
  voxen::BarrierTracker tracker;
  CHECK(rec(tracker, C, {at(W(1), 0, 100)}).empty());
  CHECK(rec(tracker, T, {at(W(1), 100, 100)}).empty());  // adjacent, not overlapping
  CHECK(rec(tracker, C, {at(R(1), 200, 50)}).empty());   // never written there
  CHECK(rec(tracker, C, {at(RW(1), 300, 8)}).empty());
  CHECK(rec(tracker, T, {at(W(1), 250, 50)}).empty());   // after the read of [200, 250)
}

TEST_CASE("BarrierTracker: overlapping byte ranges keep their hazards", "[barrier][logic][ranges]") {
  SECTION("read-after-write, partial overlap") {
    voxen::BarrierTracker tracker;
    REQUIRE(rec(tracker, C, {at(W(1), 0, 100)}).empty());
    const auto b = rec(tracker, C, {at(R(1), 99, 10)});
    REQUIRE_FALSE(b.empty());
    CHECK(has(b.srcStages, C));
    CHECK(has(b.srcAccess, VK_ACCESS_SHADER_WRITE_BIT));
    CHECK(has(b.dstAccess, VK_ACCESS_SHADER_READ_BIT));
  }
  SECTION("write-after-read, partial overlap") {
    voxen::BarrierTracker tracker;
    REQUIRE(rec(tracker, C, {at(R(1), 0, 100)}).empty());
    CHECK(rec(tracker, T, {at(W(1), 100, 20)}).empty());
    const auto b = rec(tracker, T, {at(W(1), 50, 100)});
    REQUIRE_FALSE(b.empty());
    CHECK(has(b.srcStages, C));
    CHECK(has(b.dstStages, T));
  }
  SECTION("write-after-write, one range inside the other") {
    voxen::BarrierTracker tracker;
    REQUIRE(rec(tracker, T, {at(W(1), 0, 1000)}).empty());
    const auto b = rec(tracker, C, {at(W(1), 400, 8)});
    REQUIRE_FALSE(b.empty());
    CHECK(has(b.srcStages, T));
    CHECK(has(b.srcAccess, VK_ACCESS_TRANSFER_WRITE_BIT));
  }
  SECTION("a read overlapping two earlier writes waits for both") {
    voxen::BarrierTracker tracker;
    REQUIRE(rec(tracker, T, {at(W(1), 0, 100)}).empty());
    REQUIRE(rec(tracker, C, {at(W(1), 100, 100)}).empty());
    const auto b = rec(tracker, C, {at(R(1), 50, 100)});
    REQUIRE_FALSE(b.empty());
    CHECK(has(b.srcStages, C | T));
    CHECK(has(b.srcAccess, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT));
    CHECK(has(b.dstAccess, VK_ACCESS_SHADER_READ_BIT));
    // Both are now visible to compute, including the parts the read did not cover.
    CHECK(rec(tracker, C, {at(R(1), 0, 200)}).empty());
  }
  SECTION("a whole-buffer access overlaps every range") {
    voxen::BarrierTracker tracker;
    REQUIRE(rec(tracker, C, {at(W(1), 4096, 16)}).empty());
    CHECK_FALSE(rec(tracker, T, {R(1)}).empty());
  }
}

TEST_CASE("BarrierTracker: a command in several stages needs the write visible to each", "[barrier][logic][ranges]") {
  // An indirect dispatch reads its counts in the draw-indirect stage and its buffers in
  // compute: a write made visible to compute only is not visible to the indirect read.
  voxen::BarrierTracker tracker;
  REQUIRE(rec(tracker, C, {at(W(1), 0, 12)}).empty());
  REQUIRE_FALSE(rec(tracker, C, {at(R(1), 0, 12)}).empty());
  const auto b = rec(tracker, C | I, {at(R(1), 0, 12)});
  REQUIRE_FALSE(b.empty());
  CHECK(has(b.srcStages, C));
  CHECK(has(b.srcAccess, VK_ACCESS_SHADER_WRITE_BIT));
  CHECK(has(b.dstStages, C | I));
  CHECK(has(b.dstAccess, VK_ACCESS_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_SHADER_READ_BIT));
  CHECK(rec(tracker, C | I, {at(R(1), 0, 12)}).empty());
}

TEST_CASE("BarrierTracker: neighbouring ranges in the same state merge", "[barrier][logic][ranges]") {
  voxen::BarrierTracker tracker;
  for (uint64_t i = 0; i < 1000; ++i) REQUIRE(rec(tracker, C, {at(W(1), 16 * i, 16)}).empty());
  CHECK(tracker.segmentCount(1) == 1);
  // Alternating stages stay apart until a read of the whole buffer publishes them all...
  for (uint64_t i = 0; i < 100; ++i) rec(tracker, i % 2 ? T : C, {at(W(2), 16 * i, 16)});
  CHECK(tracker.segmentCount(2) == 100);
  CHECK_FALSE(rec(tracker, C, {R(2)}).empty());
  // ...and a write over all of them leaves one.
  rec(tracker, C, {W(2)});
  CHECK(tracker.segmentCount(2) == 1);
  CHECK(tracker.touched(2));
  tracker.reset();
  CHECK_FALSE(tracker.touched(2));
}

TEST_CASE("BarrierTracker: random ranged command sequences against the hazard oracle", "[barrier][logic][ranges]") {
  constexpr VkPipelineStageFlags stages[] = {C, T, C | I};
  size_t barriers = 0, commandsTotal = 0, sparedByRanges = 0;
  for (uint64_t seed = 1; seed <= 3000; ++seed) {
    vt::Rng rng(seed);
    voxen::BarrierTracker tracker;
    const uint64_t resources = rng.range(1, 3);
    const size_t length = rng.range(1, 14);
    std::vector<vt::OracleCommand> commands;
    for (size_t n = 0; n < length; ++n) {
      vt::OracleCommand command;
      command.name = "cmd" + std::to_string(n);
      command.stage = stages[rng.range(0, 2)];
      const size_t accessCount = rng.range(1, 3);
      for (size_t a = 0; a < accessCount; ++a) {
        voxen::ResourceAccess access;
        access.resource = 100 + rng.range(0, resources - 1);
        switch (rng.range(0, 2)) {
          case 0: access.read = true; break;
          case 1: access.write = true; break;
          default: access.read = access.write = true;
        }
        // Ranges on an 8-byte grid in a 64-byte buffer, or now and then the whole buffer.
        if (rng.range(0, 5) > 0) {
          access.offset = 8 * rng.range(0, 7);
          access.size = 8 * rng.range(1, 8 - access.offset / 8);
        }
        command.accesses.push_back(access);
      }
      command.barrierBefore = tracker.record(command.stage, command.accesses);
      if (!command.barrierBefore.empty()) {
        ++barriers;
        REQUIRE(has(command.barrierBefore.dstStages, command.stage));
      } else {
        // No barrier though an earlier command wrote one of its buffers: other bytes (or
        // a write already published).
        bool sameBufferWritten = false;
        for (const auto& earlier : commands)
          for (const auto& e : earlier.accesses)
            for (const auto& a : command.accesses) sameBufferWritten |= e.write && e.resource == a.resource;
        sparedByRanges += sameBufferWritten;
      }
      commands.push_back(std::move(command));
    }
    commandsTotal += commands.size();
    INFO("seed " << seed);
    const auto direct = vt::checkDirectBarriers(commands);
    if (!direct.empty()) FAIL(direct.front());
    const auto chains = vt::checkChains(commands);
    if (!chains.empty()) FAIL(chains.front());
    const auto spurious = vt::checkNoSpuriousBarriers(commands);
    if (!spurious.empty()) FAIL(spurious.front());
  }
  CHECK(barriers > commandsTotal / 6);
  CHECK(sparedByRanges > commandsTotal / 20);
}

TEST_CASE("Hazard oracle sees byte ranges", "[barrier][logic][ranges]") {
  std::vector<vt::OracleCommand> disjoint = {{"w", C, {at(W(1), 0, 8)}, {}}, {"r", C, {at(R(1), 8, 8)}, {}}};
  CHECK(vt::checkDirectBarriers(disjoint).empty());
  CHECK(vt::checkChains(disjoint).empty());
  std::vector<vt::OracleCommand> overlap = {{"w", C, {at(W(1), 0, 9)}, {}}, {"r", C, {at(R(1), 8, 8)}, {}}};
  CHECK_FALSE(vt::checkDirectBarriers(overlap).empty());
  CHECK_FALSE(vt::checkChains(overlap).empty());
  // The first write is shadowed by the second only where the second covers it.
  std::vector<vt::OracleCommand> shadowed = {{"w0", T, {at(W(1), 0, 16)}, {}},
                                             {"w1", C, {at(W(1), 0, 8)}, {T, C, VK_ACCESS_TRANSFER_WRITE_BIT, 0}},
                                             {"r", C, {at(R(1), 0, 16)}, {C, C, VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT}}};
  // w0's bytes [8, 16) reach r directly: the barrier before r has no TRANSFER source.
  CHECK_FALSE(vt::checkDirectBarriers(shadowed).empty());
  shadowed[2].accesses = {at(R(1), 0, 8)};
  CHECK(vt::checkDirectBarriers(shadowed).empty());
}
