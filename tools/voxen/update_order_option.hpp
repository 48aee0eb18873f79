#pragma once
// --update-order, the same words for every command that integrates rays.
#include <string>

#include <CLI/CLI.hpp>

#include "voxen/occupancy/integration_options.hpp"

namespace voxen::cli {

inline CLI::Option* addUpdateOrderOption(CLI::App& command, UpdateOrder& order) {
  return command
      .add_option_function<std::string>(
          "--update-order",
          [&order](const std::string& name) {
            order = name == "sequential" ? UpdateOrder::Sequential : UpdateOrder::TwoPhase;
          },
          "how a batch's updates reach the map: sequential (each ray's misses, then its hit, ray after ray in "
          "input order, as OHM and OctoMap do; the map does not depend on --batch-size) or two-phase (a batch's "
          "misses, then its hits: faster, but a hit survives the later rays of its batch, so the map depends on "
          "--batch-size)")
      ->check(CLI::IsMember({"sequential", "two-phase"}))
      ->default_str(updateOrderName(order));
}

}  // namespace voxen::cli
