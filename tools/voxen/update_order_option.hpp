#pragma once
// --update-order, the same words for every command that integrates rays.
#include <string>

#include <CLI/CLI.hpp>

#include "voxen/occupancy/integration_options.hpp"

namespace voxen::cli {

// Measured on lavapipe and on an NVIDIA H100 (BENCHMARKS.md, "The one-pass order" and "Real
// GPU, second run"): how close it comes depends on how many rays the device runs at once.
inline constexpr const char* kOnePassAgreement =
    "on lavapipe 0.977 to 0.984 on the README's run and 0.971 on a real indoor scan, where two-phase gives 0.932 "
    "and 0.790; on an NVIDIA H100, which runs a whole batch at once, 0.933 and 0.790, as two-phase; two one-pass "
    "runs of the README's run agree at 0.987 on lavapipe";

// `given` (optional) is set when the option appears, so a command can choose another
// default (NDT runs default to two-phase). `note` ends the help with what only this command
// adds (a default that another of its flags changes): the shared words name no flag that
// some command lacks.
inline CLI::Option* addUpdateOrderOption(CLI::App& command, UpdateOrder& order, bool* given = nullptr,
                                         const std::string& note = "") {
  return command
      .add_option_function<std::string>(
          "--update-order",
          [&order, given](const std::string& name) {
            order = name == "sequential" ? UpdateOrder::Sequential
                    : name == "one-pass" ? UpdateOrder::OnePass
                                         : UpdateOrder::TwoPhase;
            if (given) *given = true;
          },
          "how a batch's updates reach the map: sequential (each ray's misses, then its hit, ray after ray in "
          "input order, as OHM and OctoMap do; the map does not depend on how the rays are cut into batches) or "
          "two-phase (a batch's misses, then its hits: faster, but a hit survives the later rays of its batch, so "
          "the map depends on the batch size) or one-pass (OHM's GPU order: each ray's misses, then its hit, the "
          "rays of a batch at the same time with nothing ordered between them; as fast as two-phase, closer to "
          "sequential where the device runs few rays at once, and not reproducible "
          "from run to run: against sequential, Jaccard index of occupied voxels " + std::string(kOnePassAgreement) + ")" +
              (note.empty() ? std::string() : ". " + note))
      ->check(CLI::IsMember({"sequential", "two-phase", "one-pass"}))
      ->default_str(updateOrderName(order));
}

}  // namespace voxen::cli
