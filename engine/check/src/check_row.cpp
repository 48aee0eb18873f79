#include "check_row.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>

#include "voxen/host/device.hpp"
#include "voxen/host/scheduler.hpp"

namespace voxen {

std::string checkNumber(double value) {
  char text[64];
  if (std::isfinite(value) && value == std::floor(value) && std::abs(value) < 1e15) {
    std::snprintf(text, sizeof text, "%.0f", std::abs(value));
    std::string digits = text, grouped;
    for (size_t i = 0; i < digits.size(); ++i) {
      if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
      grouped += digits[i];
    }
    return (value < 0 ? "-" : "") + grouped;
  }
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

void RowResult::figure(const std::string& key, double value, const std::string& words) {
  row_.figures.push_back({key, value});
  std::string text = words;
  const size_t at = text.find("{}");
  if (at != std::string::npos) text.replace(at, 2, checkNumber(value));
  note(text);
}

void RowResult::note(const std::string& words) { row_.summary += (row_.summary.empty() ? "" : ", ") + words; }

void RowResult::require(bool condition, const std::string& reason) {
  ++requirements_;
  if (condition) return;
  row_.failure += (row_.failure.empty() ? "" : "; ") + reason;
}

void runRow(CheckContext& context, const std::string& subsystem, const std::string& name,
            const std::function<void(RowResult&)>& body) {
  if (context.options.onStart) context.options.onStart(subsystem, name);
  RowResult result;
  const auto start = std::chrono::steady_clock::now();
  // With the validation layer on, a message during a row fails it: invalid usage is a bug
  // even where this driver computes the right result anyway.
  const Device& device = context.scheduler.device();
  const uint64_t messagesBefore = device.validationMessageCount();
  try {
    body(result);
    if (result.requirements() == 0) result.require(false, "the check compared nothing");
  } catch (const std::exception& e) {
    result.require(false, e.what());
  }
  const uint64_t messages = device.validationMessageCount() - messagesBefore;
  if (device.validationEnabled()) result.require(messages == 0, std::to_string(messages) + " validation messages");
  CheckRow& row = result.row();
  row.subsystem = subsystem;
  row.name = name;
  row.seconds = result.measuredSeconds() >= 0.0 ? result.measuredSeconds()
                                                : std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  row.passed = row.failure.empty();
  context.rows.push_back(row);
  if (context.options.onRow) context.options.onRow(row);
}

}  // namespace voxen
