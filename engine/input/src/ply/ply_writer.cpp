// PlyWriter and writePly: PLY files written through the atomic writer (ASCII or binary).
#include "voxen/input/ply.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <limits>

#include "ply/ply_values.hpp"
#include "voxen/host/error.hpp"
#include "voxen/atomic_file/atomic_file.hpp"

namespace voxen {

using namespace detail::ply_values;

namespace {

template <typename T>
void storeLittle(std::string& out, T v) {
  char tmp[sizeof(T)];
  std::memcpy(tmp, &v, sizeof(T));
  if constexpr (std::endian::native != std::endian::little && sizeof(T) > 1) std::reverse(tmp, tmp + sizeof(T));
  out.append(tmp, sizeof(T));
}

}  // namespace


// ---- writer --------------------------------------------------------------------------------

PlyWriter::PlyWriter(const std::filesystem::path& path, std::vector<PlyColumn> columns, PlyFormat format,
                     std::vector<std::string> comments)
    : path_(path), columns_(std::move(columns)), format_(format) {
  if (format_ == PlyFormat::BinaryBigEndian)
    throw Error(path_.string() + ": writing binary_big_endian PLY is not supported");
  if (columns_.empty()) throw Error(path_.string() + ": a PLY vertex needs at least one property");
  for (size_t i = 0; i < columns_.size(); ++i) {
    const auto& n = columns_[i].name;
    if (n.empty() || n.find_first_of(" \t\r\n") != std::string::npos)
      throw Error(path_.string() + ": invalid PLY property name " + inQuotes(n));
    for (size_t j = 0; j < i; ++j)
      if (columns_[j].name == n) throw Error(path_.string() + ": property " + inQuotes(n) + " given twice");
  }
  out_ = std::make_unique<detail::AtomicFileWriter>(path_, "PLY", detail::AtomicFileWriter::Patching::Needed);
  uncaughtAtStart_ = std::uncaught_exceptions();
  std::string h = "ply\nformat ";
  h += plyFormatName(format_);
  h += " 1.0\n";
  for (const auto& c : comments) {
    if (c.find_first_of("\r\n") != std::string::npos) throw Error(path_.string() + ": a PLY comment cannot span lines");
    h += "comment " + c + "\n";
  }
  h += "element vertex ";
  countOffset_ = h.size();
  h += std::string(20, ' ');  // the count, patched on close(); readers ignore trailing blanks
  h += "\n";
  for (const auto& c : columns_) h += "property " + std::string(plyTypeName(c.type)) + " " + c.name + "\n";
  h += "end_header\n";
  buffer_ = std::move(h);
  // The header with a count of 0, which close() patches (the file appears only then).
  std::string zero = "0";
  buffer_.replace(countOffset_, zero.size(), zero);
  flush();
}

PlyWriter::~PlyWriter() {
  if (std::uncaught_exceptions() > uncaughtAtStart_) return;  // out_ dies uncommitted: no partial file
  try {
    close();
  } catch (...) {
  }
}

void PlyWriter::write(std::span<const double> row) {
  if (closed_) throw Error(path_.string() + ": write after close");
  if (row.size() != columns_.size()) {
    throw Error(path_.string() + ": vertex " + std::to_string(rows_) + " has " + std::to_string(row.size()) +
                " values for " + std::to_string(columns_.size()) + " properties");
  }
  for (size_t c = 0; c < columns_.size(); ++c) {
    const PlyType type = columns_[c].type;
    double v = row[c];
    if (isInteger(type)) {
      v = std::nearbyint(v);
      if (!std::isfinite(v) || v < typeMin(type) || v > typeMax(type)) {
        throw Error(path_.string() + ": vertex " + std::to_string(rows_) + ", property " + inQuotes(columns_[c].name) +
                    ": " + std::to_string(row[c]) + " does not fit " + plyTypeName(type));
      }
    }
    if (format_ == PlyFormat::Ascii) {
      if (c) buffer_.push_back(' ');
      char text[64];
      std::to_chars_result r;
      if (type == PlyType::Float64) r = std::to_chars(text, text + sizeof(text), v);
      else if (type == PlyType::Float32) r = std::to_chars(text, text + sizeof(text), float(v));
      else r = std::to_chars(text, text + sizeof(text), int64_t(v));
      buffer_.append(text, r.ptr);
    } else {
      switch (type) {
        case PlyType::Int8: storeLittle(buffer_, int8_t(v)); break;
        case PlyType::UInt8: storeLittle(buffer_, uint8_t(v)); break;
        case PlyType::Int16: storeLittle(buffer_, int16_t(v)); break;
        case PlyType::UInt16: storeLittle(buffer_, uint16_t(v)); break;
        case PlyType::Int32: storeLittle(buffer_, int32_t(v)); break;
        case PlyType::UInt32: storeLittle(buffer_, uint32_t(v)); break;
        case PlyType::Float32: storeLittle(buffer_, float(v)); break;
        case PlyType::Float64: storeLittle(buffer_, v); break;
      }
    }
  }
  if (format_ == PlyFormat::Ascii) buffer_.push_back('\n');
  ++rows_;
  if (buffer_.size() >= (size_t(1) << 20)) flush();
}

void PlyWriter::writeRows(std::span<const double> rowMajor) {
  const size_t n = columns_.size();
  if (rowMajor.size() % n != 0) {
    throw Error(path_.string() + ": " + std::to_string(rowMajor.size()) + " values are not whole rows of " +
                std::to_string(n));
  }
  for (size_t i = 0; i < rowMajor.size(); i += n) write(rowMajor.subspan(i, n));
}

void PlyWriter::flush() {
  if (buffer_.empty()) return;
  out_->write(buffer_.data(), buffer_.size());
  buffer_.clear();
}

void PlyWriter::close() {
  if (closed_) return;
  closed_ = true;
  flush();
  std::string count = std::to_string(rows_);
  count.resize(20, ' ');
  out_->patch(countOffset_, count.data(), count.size());
  out_->commit();
}

void writePly(const std::filesystem::path& path, const std::vector<PlyColumn>& columns, std::span<const double> rowMajor,
              PlyFormat format, const std::vector<std::string>& comments) {
  PlyWriter writer(path, columns, format, comments);
  writer.writeRows(rowMajor);
  writer.close();
}

}  // namespace voxen
