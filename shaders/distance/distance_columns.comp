#version 460
// The distance transform's column pass (distance_shared.h): one thread per column x, over the
// row pass's distances g(p) (kDistanceNone: no parabola at row p). First the lower envelope of
// the parabolas (y - p)^2 + g(p)^2, kept as a stack of rows in `envelope` (entry k at
// k * width + x, so neighbouring threads touch neighbouring words); then each cell's value on
// it. Both are single flat loops, at most 2 x height iterations each (height <=
// kMaxDistanceLine): a pop or an advance along the envelope is an iteration of its own.
// Integers only, the same envelope as the CPU reference (voxen/distance/distance_transform_2d.hpp),
// so the squared distances match it bit for bit.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "distance_shared.h"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push { DistanceColumnPush pc; };

int64_t squareOf(uint g) { return int64_t(g) * int64_t(g); }

// The parabola of row p with apex value f at row q.
int64_t valueAt(int64_t p, int64_t f, int64_t q) { return (q - p) * (q - p) + f; }

void main() {
  uint x = voxenThreadIndex();
  uint width = pc.width, height = pc.height;
  if (x >= width) return;
  UintArray rowDistance = UintArray(pc.rowDistance);
  UintArray envelope = UintArray(pc.envelope);
  Uint64Array squared = Uint64Array(pc.squared);

  // The envelope: k parabolas; the top two in registers (row and apex value).
  uint k = 0u;
  int64_t topRow = 0l, topF = 0l, belowRow = 0l, belowF = 0l;
  uint y = 0u;
  int64_t f = 0l;
  bool pending = false;  // row y's parabola read and waiting to be pushed
  while (y < height) {
    if (!pending) {
      uint g = rowDistance.v[y * width + x];
      if (g == kDistanceNone) {
        ++y;
        continue;
      }
      f = squareOf(g);
      pending = true;
    }
    int64_t q = int64_t(y);
    if (k >= 2u) {
      // Pop the top while the new parabola hides it: its breakpoint with the new one,
      // n1 / d1, is at or before its breakpoint with the one below, n0 / d0.
      int64_t n1 = (f + q * q) - (topF + topRow * topRow), d1 = 2l * (q - topRow);
      int64_t n0 = (topF + topRow * topRow) - (belowF + belowRow * belowRow), d0 = 2l * (topRow - belowRow);
      if (n1 * d0 <= n0 * d1) {
        --k;
        topRow = belowRow, topF = belowF;
        if (k >= 2u) {
          belowRow = int64_t(envelope.v[(k - 2u) * width + x]);
          belowF = squareOf(rowDistance.v[uint(belowRow) * width + x]);
        }
        continue;
      }
    }
    envelope.v[k * width + x] = y;
    belowRow = topRow, belowF = topF;
    topRow = q, topF = f;
    ++k;
    pending = false;
    ++y;
  }

  if (k == 0u) {
    for (uint row = 0u; row < height; ++row) squared.v[row * width + x] = 0xFFFFFFFFFFFFFFFFul;
    return;
  }
  // The values: walk the envelope while the next parabola is at least as low at row y.
  uint j = 0u;
  int64_t row = int64_t(envelope.v[x]);
  int64_t value = squareOf(rowDistance.v[uint(row) * width + x]);
  int64_t nextRow = 0l, nextF = 0l;
  bool nextRead = false;
  y = 0u;
  while (y < height) {
    int64_t q = int64_t(y);
    if (j + 1u < k) {
      if (!nextRead) {
        nextRow = int64_t(envelope.v[(j + 1u) * width + x]);
        nextF = squareOf(rowDistance.v[uint(nextRow) * width + x]);
        nextRead = true;
      }
      if (valueAt(nextRow, nextF, q) <= valueAt(row, value, q)) {
        ++j;
        row = nextRow, value = nextF;
        nextRead = false;
        continue;
      }
    }
    squared.v[y * width + x] = uint64_t(valueAt(row, value, q));
    ++y;
  }
}
