#pragma once
// The rows `voxen query` writes: named fields as CSV (a header row first) or JSON (an array
// of objects, null where the CSV field is empty). Numbers are written as the shortest text
// that reads back as the same number.
#include <charconv>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace voxen::cli {

// The shortest text that reads back as the same number.
inline void appendShortest(std::string& out, double value) {
  char text[32];
  out.append(text, std::to_chars(text, text + sizeof text, value).ptr);
}
inline void appendShortest(std::string& out, float value) {
  char text[32];
  out.append(text, std::to_chars(text, text + sizeof text, value).ptr);
}

// Rows of named fields, written as CSV or JSON: a field is a number, a string, or empty.
class Table {
 public:
  Table(std::vector<std::string> columns, bool json) : columns_(std::move(columns)), json_(json) {
    if (json_) {
      text_ = "[";
    } else {
      for (size_t c = 0; c < columns_.size(); ++c) text_ += (c ? "," : "") + columns_[c];
      text_ += "\n";
    }
  }
  void beginRow() {
    field_ = 0;
    if (json_) text_ += rows_ ? ",\n{" : "\n{";
    ++rows_;
  }
  template <class T>
  void number(T value) {
    next();
    appendShortest(text_, value);
  }
  void string(const char* value) {
    next();
    text_ += json_ ? std::string("\"") + value + "\"" : std::string(value);
  }
  void empty() {
    next();
    if (json_) text_ += "null";
  }
  void endRow() { text_ += json_ ? "}" : "\n"; }
  std::string finish() { return text_ + (json_ ? (rows_ ? "\n]\n" : "]\n") : ""); }

 private:
  void next() {
    if (field_ > 0) text_ += ",";
    if (json_) text_ += "\"" + columns_[field_] + "\":";
    ++field_;
  }
  std::vector<std::string> columns_;
  bool json_;
  std::string text_;
  size_t field_ = 0;
  uint64_t rows_ = 0;
};

}  // namespace voxen::cli
