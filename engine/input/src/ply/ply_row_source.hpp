#pragma once
// The rows of the PLY element a RayReader reads, cut into numbered chunks, so that worker
// threads can each take a chunk: chunk k holds rows [k * chunkRows, min((k + 1) * chunkRows,
// count)) of the reader's selected columns, as doubles, row-major (as PlyReader::read).
//
// Two kinds. A binary little-endian body whose rows have a fixed size is memory-mapped: a
// chunk's bytes are found by arithmetic, so chunks are decoded concurrently and in any order.
// Everything else (ASCII, rows with lists, a body shorter than the header says) streams
// through the PlyReader: chunks are read one at a time and in order, and the errors are
// PlyReader's own (file, line or vertex and byte offset), word for word.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "point_source.hpp"
#include "voxen/input/ply.hpp"

namespace voxen::detail {

class PlyRowSource : public PointSource {
 public:
  PlyRowSource(uint64_t rows, size_t chunkRows) : rows_(rows), chunkRows_(chunkRows) {}

  uint64_t rows() const { return rows_; }
  size_t chunkRows() const { return chunkRows_; }
  uint64_t chunks() const override { return (rows_ + chunkRows_ - 1) / chunkRows_; }
  uint64_t firstRow(uint64_t chunk) const { return chunk * chunkRows_; }

 private:
  uint64_t rows_;
  size_t chunkRows_;
};

// A mapped source when `mapFile` is set and the body allows it, else a stream through
// `ply`, which must outlive the source and have its columns selected already.
std::unique_ptr<PlyRowSource> makePlyRowSource(PlyReader& ply, size_t chunkRows, bool mapFile);

}  // namespace voxen::detail
