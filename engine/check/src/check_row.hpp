#pragma once
// What the subsystem checks share: the context they run in and one row being filled.
#include <functional>
#include <string>
#include <vector>

#include "voxen/check/device_check.hpp"

namespace voxen {

struct CheckContext {
  Scheduler& scheduler;
  const CheckOptions& options;
  std::vector<CheckRow>& rows;
  bool quick() const { return options.scale == CheckScale::Quick; }
  bool breakReferences() const { return options.breakReferences; }
  // The quick or the full size of something.
  template <class T>
  T sized(T quick, T full) const {
    return this->quick() ? quick : full;
  }
};

// One row: its figures (numbers for --json, words for the table) and the requirements that
// decide it. A row that requires nothing fails: a check that cannot fail is no check.
class RowResult {
 public:
  // `words` holds "{}" where the value goes: figure("rays", 131072, "{} rays") reads
  // "131,072 rays". Integral values get thousands separators, others 4 significant digits.
  void figure(const std::string& key, double value, const std::string& words);
  // Words in the summary without a number of their own.
  void note(const std::string& words);
  // Fails the row with `reason` unless `condition` holds; every reason is kept.
  void require(bool condition, const std::string& reason);

  // The row's time when its work ran before the row (the self-test's checks run together).
  void timeTaken(double seconds) { measuredSeconds_ = seconds; }

  CheckRow& row() { return row_; }
  double measuredSeconds() const { return measuredSeconds_; }
  uint32_t requirements() const { return requirements_; }

 private:
  CheckRow row_;
  uint32_t requirements_ = 0;
  double measuredSeconds_ = -1.0;
};

// Runs `body` as the row `name` of `subsystem`: timed, an exception it throws is the row's
// failure, and the row goes to options.onRow and into the report.
void runRow(CheckContext& context, const std::string& subsystem, const std::string& name,
            const std::function<void(RowResult&)>& body);

// The number as figure() writes it ("131,072", "0.0123").
std::string checkNumber(double value);

// The subsystems' checks (one file each).
void checkCore(CheckContext& context);
void checkOccupancy(CheckContext& context);
void checkPrimitives(CheckContext& context);
void checkHeightmap(CheckContext& context);
void checkTsdf(CheckContext& context);
void checkClearance(CheckContext& context);
void checkQuery(CheckContext& context);
void checkTransform(CheckContext& context);
void checkPainter(CheckContext& context);

}  // namespace voxen
