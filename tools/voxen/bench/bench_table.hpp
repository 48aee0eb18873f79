#pragma once
// What every bench command prints alike, written once: its text tables (a head line, then
// rows of cells, each column padded to its width on the left or the right), the same tables in
// GitHub markdown (bench all), the cells as printf writes numbers, and the JSON summaries'
// shared pieces (the device fields, arrays of rows, lists of rounded times).
//
//   TextTable table({{"path", 15, Align::Left}, {"seconds", 10}, {"rays/s", 14}});
//   table.printHead();
//   table.printRow({"GPU (Voxen)", fixed(seconds, 3), general(rate, 4)});
#include <cstdint>
#include <string>
#include <vector>

#include "report/json_output.hpp"
#include "voxen/host/profile.hpp"

namespace voxen {
class Device;
}

namespace voxen::cli {

enum class Align { Left, Right };

struct Column {
  std::string head;
  size_t width = 0;           // the cells are padded to it
  Align align = Align::Right;
  std::string gap = " ";      // before the column (not before the first)
  bool padded = true;         // false: free text at the end of the line, never padded nor fitted
};

class TextTable {
 public:
  explicit TextTable(std::vector<Column> columns, std::string indent = "");

  // Widens the columns to fit these cells (a table sized to what it holds).
  void fit(const std::vector<std::string>& cells);

  // One line without its newline. A row of fewer cells than columns ends after its last cell
  // (a row that says why it has no figures: "exact  5  refused: ...").
  std::string line(const std::vector<std::string>& cells) const;
  std::string headLine() const;
  // The same in GitHub markdown: "| a | b |" ('|' in a cell escaped), the alignment row
  // "|---|---:|", and the head: the heads' line and the alignment row.
  std::string markdownLine(const std::vector<std::string>& cells) const;
  std::string markdownRule() const;
  std::string markdownHead() const;

  // To stdout, each with its newline; `after` goes at the end of the line.
  void printHead() const;
  void printRow(const std::vector<std::string>& cells, const std::string& after = "") const;

  const std::vector<Column>& columns() const { return columns_; }

 private:
  std::vector<Column> columns_;
  std::string indent_;
};

// Cells as printf's conversions write them: fixed(1.5, 2) is "%.2f" ("1.50"), general(v, 4)
// "%.4g", scientific(v, 1) "%.1e", count(n) "%llu"; `suffix` follows the number ("x", "%",
// "ms"). percent(f, d) writes the fraction f as "%.df%%" of f * 100.
std::string fixed(double value, int decimals, const std::string& suffix = "");
std::string general(double value, int digits = 6);
std::string scientific(double value, int decimals);
std::string count(uint64_t value);
std::string percent(double fraction, int decimals);

// A bench command's --json summary: the device's name and its driver's, then `fields` in order.
Json benchSummary(const Device& device, const Json& fields);

// A JSON array of `rows`, each written by `toJson`.
template <class Rows, class ToJson>
Json jsonArray(const Rows& rows, ToJson&& toJson) {
  Json array = Json::array();
  for (const auto& row : rows) array.push_back(toJson(row));
  return array;
}

// Values rounded to `decimals` (times of every repetition or frame).
Json roundedList(const std::vector<double>& values, int decimals);

// A profile's passes summed (GPU ms), and its table as Profile::print writes it.
double totalPassMs(const Profile& profile);
std::string profileText(const Profile& profile);

}  // namespace voxen::cli
