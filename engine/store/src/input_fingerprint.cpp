#include "voxen/store/input_fingerprint.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "voxen/host/error.hpp"

namespace voxen {

namespace {

// XXH64's primes (xxhash.h, "XXH64 algorithm description").
constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kPrime3 = 0x165667B19E3779F9ull;
constexpr uint64_t kPrime4 = 0x85EBCA77C2B2AE63ull;
constexpr uint64_t kPrime5 = 0x27D4EB2F165667C5ull;

constexpr uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// Little-endian loads (the hash is defined on little-endian words): one move each on the
// hosts Voxen runs on, a byte swap elsewhere.
uint64_t load64(const std::byte* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}
uint32_t load32(const std::byte* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return v;
}

uint64_t xxRound(uint64_t acc, uint64_t input) { return rotl(acc + input * kPrime2, 31) * kPrime1; }
uint64_t mergeRound(uint64_t acc, uint64_t lane) { return (acc ^ xxRound(0, lane)) * kPrime1 + kPrime4; }

void stripe(uint64_t (&lanes)[4], const std::byte* p) {
  for (int i = 0; i < 4; ++i) lanes[i] = xxRound(lanes[i], load64(p + 8 * i));
}

std::string hex(uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", (unsigned long long)v);
  return text;
}

constexpr size_t kBufferBytes = size_t(1) << 20;

// Feeds the file's bytes to `hash`; `read` counts every byte read (for progress).
void hashFile(const std::filesystem::path& path, Xxh64& hash, std::vector<std::byte>& buffer, uint64_t& read,
              const std::function<void(uint64_t)>& progress) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot read '" + path.string() + "' to fingerprint it: " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error("cannot read '" + path.string() + "' to fingerprint it: " + std::strerror(errno));
    if (n == 0) return;
    hash.update(std::span<const std::byte>(buffer.data(), size_t(n)));
    read += uint64_t(n);
    if (progress) progress(read);
  }
}

// A folder's regular files (following links to files), by relative path.
std::vector<std::filesystem::path> filesUnder(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(folder, ec); !ec && it != std::filesystem::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file(ec)) files.push_back(it->path());
  if (ec) throw Error("cannot list '" + folder.string() + "' to fingerprint it: " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

Xxh64::Xxh64() : lanes_{kPrime1 + kPrime2, kPrime2, 0, uint64_t(0) - kPrime1} {}

void Xxh64::update(std::span<const std::byte> bytes) {
  totalBytes_ += bytes.size();
  const std::byte* p = bytes.data();
  size_t left = bytes.size();
  if (pendingBytes_ > 0) {
    const size_t take = std::min(left, sizeof pending_ - pendingBytes_);
    std::memcpy(pending_ + pendingBytes_, p, take);
    pendingBytes_ += take, p += take, left -= take;
    if (pendingBytes_ < sizeof pending_) return;
    stripe(lanes_, pending_);
    pendingBytes_ = 0;
  }
  for (; left >= 32; p += 32, left -= 32) stripe(lanes_, p);
  std::memcpy(pending_, p, left);
  pendingBytes_ = left;
}

uint64_t Xxh64::digest() const {
  uint64_t h;
  if (totalBytes_ >= 32) {
    h = rotl(lanes_[0], 1) + rotl(lanes_[1], 7) + rotl(lanes_[2], 12) + rotl(lanes_[3], 18);
    for (const uint64_t lane : lanes_) h = mergeRound(h, lane);
  } else {
    h = lanes_[2] + kPrime5;  // lanes_[2] is the seed
  }
  h += totalBytes_;
  const std::byte* p = pending_;
  size_t left = pendingBytes_;
  for (; left >= 8; p += 8, left -= 8) h = rotl(h ^ xxRound(0, load64(p)), 27) * kPrime1 + kPrime4;
  if (left >= 4) {
    h = rotl(h ^ (uint64_t(load32(p)) * kPrime1), 23) * kPrime2 + kPrime3;
    p += 4, left -= 4;
  }
  for (; left > 0; ++p, --left) h = rotl(h ^ (uint64_t(*p) * kPrime5), 11) * kPrime1;
  h ^= h >> 33;
  h *= kPrime2;
  h ^= h >> 29;
  h *= kPrime3;
  h ^= h >> 32;
  return h;
}

uint64_t fingerprintBytes(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) {
    const uintmax_t size = std::filesystem::file_size(path, ec);
    return ec ? 0 : uint64_t(size);
  }
  uint64_t total = 0;
  for (const std::filesystem::path& file : filesUnder(path)) {
    const uintmax_t size = std::filesystem::file_size(file, ec);
    if (!ec) total += uint64_t(size);
  }
  return total;
}

std::string inputFingerprint(const std::filesystem::path& path, const std::function<void(uint64_t bytesRead)>& progress) {
  Xxh64 hash;
  std::vector<std::byte> buffer(kBufferBytes);
  uint64_t read = 0;
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) {
    hashFile(path, hash, buffer, read, progress);
    return "xxh64 " + hex(hash.digest());
  }
  for (const std::filesystem::path& file : filesUnder(path)) {
    // The name and size first: a renamed or truncated file changes the fingerprint even when
    // the bytes run on into the next file's.
    const std::string name = file.lexically_relative(path).generic_string();
    const uint64_t size = uint64_t(std::filesystem::file_size(file, ec));
    hash.update(std::as_bytes(std::span<const char>(name.data(), name.size() + 1)));
    std::byte sizeBytes[8];
    for (int i = 0; i < 8; ++i) sizeBytes[i] = std::byte((size >> (8 * i)) & 0xff);
    hash.update(sizeBytes);
    hashFile(file, hash, buffer, read, progress);
  }
  return "xxh64 " + hex(hash.digest());
}

}  // namespace voxen
