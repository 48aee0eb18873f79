#pragma once
// PLY files: a streaming reader for one element's scalar properties (normally "vertex") and a
// streaming writer for vertices with named scalar properties.
//
// Reading: formats ascii 1.0 and binary_little_endian 1.0 (binary_big_endian is parsed in the
// header but PlyReader refuses it: "not supported"). Property types char/uchar/short/ushort/
// int/uint/float/double and their int8/uint8/int16/uint16/int32/uint32/float32/float64
// aliases. List properties are skipped (in the element read and in every element before it).
// The body is streamed in chunks; nothing holds the whole file.
//
// Strict about the body: when the element read is the header's last, data after its declared
// rows is an Error (ASCII: the first extra line; binary: the bytes past the body), found when
// the last row is read (or at once for a count of 0); a header declaring a binary format over
// a body of ASCII numbers is an Error when the reader opens; a UTF-8 byte order mark before
// "ply" is skipped; an ASCII body whose last line has no line end (cut short?) gets a warning
// through voxen::logMessage. Inputs that are directories, pipes or unreadable are Errors that
// say so (with the system's reason).
//
// Errors are voxen::Error and name the file and, for the header and ASCII bodies, the line
// ("cloud.ply:12: ..."); for binary bodies the element index and byte offset ("cloud.ply:
// vertex 7 (byte offset 301): ..."); and the property when one is concerned.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace voxen {

namespace detail {
class AtomicFileWriter;  // the library's one output writer (rules: docs/architecture.md, "Output files")
}

enum class PlyFormat { Ascii, BinaryLittleEndian, BinaryBigEndian };

enum class PlyType : uint8_t { Int8, UInt8, Int16, UInt16, Int32, UInt32, Float32, Float64 };

size_t plyTypeSize(PlyType type);
// The canonical (PLY 1.0) name: char, uchar, short, ushort, int, uint, float, double.
const char* plyTypeName(PlyType type);
// Canonical names and the sized aliases (int8 ... float64); nullopt when unknown.
std::optional<PlyType> parsePlyType(std::string_view name);
const char* plyFormatName(PlyFormat format);  // "ascii", "binary_little_endian", ...

struct PlyProperty {
  std::string name;
  PlyType type = PlyType::Float32;  // the item type for lists
  bool isList = false;
  PlyType countType = PlyType::UInt8;  // lists only
};

struct PlyElement {
  std::string name;
  uint64_t count = 0;
  std::vector<PlyProperty> properties;
  // Index into properties, or nullopt.
  std::optional<size_t> find(std::string_view propertyName) const;
};

struct PlyHeader {
  PlyFormat format = PlyFormat::Ascii;
  std::vector<PlyElement> elements;
  std::vector<std::string> comments;  // "comment" and "obj_info" lines without the keyword
  uint64_t bodyOffset = 0;            // byte offset of the body
  uint64_t lineCount = 0;             // header lines, "ply" and "end_header" included
  const PlyElement* find(std::string_view elementName) const;
};

// Parses the header and leaves `in` at the first byte of the body. `name` prefixes errors.
PlyHeader readPlyHeader(std::istream& in, const std::string& name);
PlyHeader readPlyHeader(const std::filesystem::path& path);

// Streams the rows of one element. Its columns are the element's scalar properties; read()
// converts the selected columns to double.
class PlyReader {
 public:
  struct Options {
    std::string element = "vertex";
    size_t bufferBytes = size_t(1) << 20;  // binary read chunk
  };

  explicit PlyReader(const std::filesystem::path& path);
  PlyReader(const std::filesystem::path& path, Options options);
  ~PlyReader();
  PlyReader(PlyReader&&) noexcept;
  PlyReader& operator=(PlyReader&&) noexcept;

  const std::filesystem::path& path() const;
  const PlyHeader& header() const;
  const PlyElement& element() const;
  uint64_t count() const;     // rows the header declares
  uint64_t rowsRead() const;  // rows returned so far
  bool done() const { return rowsRead() == count(); }

  // Index into element().properties of a scalar property, or nullopt (lists never match).
  std::optional<size_t> findProperty(std::string_view name) const;
  // The columns read() produces, as indices into element().properties (scalar properties
  // only). Default: every scalar property in declaration order.
  void selectColumns(std::vector<size_t> propertyIndices);
  // Throws Error naming the file and every missing (or list) property.
  void selectColumns(const std::vector<std::string>& names);
  const std::vector<size_t>& columns() const;

  // Appends up to maxRows rows of columns().size() doubles each (row-major) to `out` and
  // returns the number of rows appended: 0 at the end of the element (or for maxRows 0).
  // On an Error nothing is appended and the reader is spent: later calls throw too.
  size_t read(std::vector<double>& out, size_t maxRows);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct PlyColumn {
  std::string name;
  PlyType type = PlyType::Float64;
};

// Writes one "vertex" element with the given scalar columns. The vertex count is patched
// into the header on close(), so rows can be streamed without knowing their number. The
// file appears complete on close() (written through a temporary file and renamed); a
// writer destroyed by an exception leaves the target as it was.
// Integer columns take values rounded to nearest; out-of-range or non-finite values for an
// integer column are an Error. Formats: ascii and binary_little_endian.
class PlyWriter {
 public:
  PlyWriter(const std::filesystem::path& path, std::vector<PlyColumn> columns,
            PlyFormat format = PlyFormat::BinaryLittleEndian, std::vector<std::string> comments = {});
  // Closes if still open (errors there are swallowed: call close() to see them), except
  // while an exception unwinds: then the rows are discarded and the target left as it was.
  ~PlyWriter();
  PlyWriter(const PlyWriter&) = delete;
  PlyWriter& operator=(const PlyWriter&) = delete;

  const std::vector<PlyColumn>& columns() const { return columns_; }
  uint64_t rows() const { return rows_; }

  // One vertex: exactly columns().size() values.
  void write(std::span<const double> row);
  void write(std::initializer_list<double> row) { write(std::span<const double>(row.begin(), row.size())); }
  // Several vertices, row-major.
  void writeRows(std::span<const double> rowMajor);
  // Flushes and patches the vertex count; throws Error on I/O failure. Idempotent.
  void close();

 private:
  void flush();

  std::filesystem::path path_;
  std::vector<PlyColumn> columns_;
  PlyFormat format_;
  std::unique_ptr<detail::AtomicFileWriter> out_;
  int uncaughtAtStart_ = 0;  // std::uncaught_exceptions() when constructed
  std::string buffer_;
  uint64_t countOffset_ = 0;
  uint64_t rows_ = 0;
  bool closed_ = false;
};

// Writes a whole vertex table at once (row-major values).
void writePly(const std::filesystem::path& path, const std::vector<PlyColumn>& columns,
              std::span<const double> rowMajor, PlyFormat format = PlyFormat::BinaryLittleEndian,
              const std::vector<std::string>& comments = {});

}  // namespace voxen
