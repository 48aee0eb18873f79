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
