#include "bench/bench_table.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "voxen/host/device.hpp"

namespace voxen::cli {

namespace {

std::string padded(const std::string& text, const Column& column) {
  if (!column.padded || text.size() >= column.width) return text;
  const std::string fill(column.width - text.size(), ' ');
  return column.align == Align::Left ? text + fill : fill + text;
}

// printf into a string: the one place the cells' number forms are written.
template <class... Args>
std::string printed(const char* format, Args... args) {
  char text[400];  // the widest double "%.6f" writes, and more
  std::snprintf(text, sizeof text, format, args...);
  return text;
}

}  // namespace

TextTable::TextTable(std::vector<Column> columns, std::string indent)
    : columns_(std::move(columns)), indent_(std::move(indent)) {}

void TextTable::fit(const std::vector<std::string>& cells) {
  for (size_t i = 0; i < cells.size() && i < columns_.size(); ++i)
    if (columns_[i].padded) columns_[i].width = std::max(columns_[i].width, cells[i].size());
}

std::string TextTable::line(const std::vector<std::string>& cells) const {
  std::string out = indent_;
  for (size_t i = 0; i < cells.size() && i < columns_.size(); ++i)
    out += (i ? columns_[i].gap : "") + padded(cells[i], columns_[i]);
  return out;
}

std::string TextTable::headLine() const {
  std::vector<std::string> heads;
  for (const Column& column : columns_) heads.push_back(column.head);
  return line(heads);
}

std::string TextTable::markdownLine(const std::vector<std::string>& cells) const {
  std::string out = "|";
  for (std::string cell : cells) {
    for (size_t at = 0; (at = cell.find('|', at)) != std::string::npos; at += 2) cell.replace(at, 1, "\\|");
    out += " " + cell + " |";
  }
  return out;
}

std::string TextTable::markdownRule() const {
  std::string rule = "|";
  for (const Column& column : columns_) rule += column.align == Align::Right ? "---:|" : "---|";
  return rule;
}

std::string TextTable::markdownHead() const {
  std::vector<std::string> heads;
  for (const Column& column : columns_) heads.push_back(column.head);
  return markdownLine(heads) + "\n" + markdownRule();
}

void TextTable::printHead() const { std::printf("%s\n", headLine().c_str()); }

void TextTable::printRow(const std::vector<std::string>& cells, const std::string& after) const {
  std::printf("%s%s\n", line(cells).c_str(), after.c_str());
}

std::string fixed(double value, int decimals, const std::string& suffix) { return printed("%.*f", decimals, value) + suffix; }
std::string general(double value, int digits) { return printed("%.*g", digits, value); }
std::string scientific(double value, int decimals) { return printed("%.*e", decimals, value); }
std::string count(uint64_t value) { return printed("%llu", (unsigned long long)value); }
std::string percent(double fraction, int decimals) { return fixed(fraction * 100.0, decimals, "%"); }

Json benchSummary(const Device& device, const Json& fields) {
  Json summary = {{"device", device.info().name}, {"driver", device.info().driverName}};
  for (const auto& [key, value] : fields.items()) summary[key] = value;
  return summary;
}

Json roundedList(const std::vector<double>& values, int decimals) {
  Json list = Json::array();
  for (double value : values) list.push_back(rounded(value, decimals));
  return list;
}

double totalPassMs(const Profile& profile) {
  double ms = 0.0;
  for (const auto& [name, timing] : profile.passes()) ms += timing.totalMs;
  return ms;
}

std::string profileText(const Profile& profile) {
  std::ostringstream text;
  profile.print(text);
  return text.str();
}

}  // namespace voxen::cli
