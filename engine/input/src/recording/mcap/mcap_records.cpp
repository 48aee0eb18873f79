#include "voxen/input/mcap_records.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdio>

#include "voxen/host/error.hpp"

namespace voxen::mcap::format {

uint32_t crc32Of(const uint8_t* data, uint64_t bytes, uint32_t crc) {
  uLong c = crc;
  // crc32_z takes a size_t, but keep to uInt-sized steps for zlib builds where that is narrower.
  while (bytes > 0) {
    const uint64_t step = std::min<uint64_t>(bytes, 1u << 30);
    c = ::crc32_z(c, data, size_t(step));
    data += step;
    bytes -= step;
  }
  return uint32_t(c);
}

std::string hex32(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", value);
  return text;
}

Record recordAt(std::span<const uint8_t> region, uint64_t offset, const std::string& where, uint64_t base) {
  const uint64_t size = region.size();
  if (offset > size || size - offset < kRecordPrefix)
    throw Error(where + ": byte " + std::to_string(base + offset) + ": a record starts there but only " +
                std::to_string(size - std::min(offset, size)) + " bytes are left (truncated file?)");
  Record r;
  r.op = region[offset];
  uint64_t length;
  std::memcpy(&length, region.data() + offset + 1, 8);
  if (length > size - offset - kRecordPrefix)
    throw Error(where + ": byte " + std::to_string(base + offset) + ": record (opcode 0x" + hex32(r.op).substr(8) +
                ") of " + std::to_string(length) + " bytes runs past the end: only " +
                std::to_string(size - offset - kRecordPrefix) + " bytes are left (truncated file?)");
  r.offset = offset;
  r.content = region.subspan(size_t(offset + kRecordPrefix), size_t(length));
  return r;
}

void FieldReader::fail(const char* field, uint64_t count) const {
  throw Error(where_ + ": byte " + std::to_string(base_ + pos_) + ": " + record_ + " record's " + field + " needs " +
              std::to_string(count) + " bytes, only " + std::to_string(size_ - pos_) + " are left in the record");
}

}  // namespace voxen::mcap::format
