#include "mapped_file.hpp"

#include <cstdint>
#include <utility>

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define VOXEN_HAVE_MMAP 1
#endif

namespace voxen::detail {

std::optional<MappedFile> MappedFile::open(const std::filesystem::path& path) {
#ifdef VOXEN_HAVE_MMAP
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  void* p = MAP_FAILED;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
    p = ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);  // the mapping keeps the file
  if (p == MAP_FAILED) return std::nullopt;
  // The body is read front to back (by several threads, a chunk each): ask for read-ahead.
  ::madvise(p, size_t(st.st_size), MADV_SEQUENTIAL);
  return MappedFile(static_cast<const char*>(p), size_t(st.st_size));
#else
  (void)path;
  return std::nullopt;
#endif
}

void MappedFile::doneWith(const char* begin, size_t bytes) const {
#ifdef VOXEN_HAVE_MMAP
  const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
  // Only whole pages inside the range: its first and last pages may hold a neighbour's bytes.
  const uintptr_t first = (uintptr_t(begin) + page - 1) / page * page;
  const uintptr_t end = (uintptr_t(begin) + bytes) / page * page;
  if (end > first) ::madvise(reinterpret_cast<void*>(first), end - first, MADV_DONTNEED);
#else
  (void)begin, (void)bytes;
#endif
}

MappedFile::~MappedFile() { release(); }

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void MappedFile::release() {
#ifdef VOXEN_HAVE_MMAP
  if (data_) ::munmap(const_cast<char*>(data_), size_);
#endif
  data_ = nullptr;
  size_ = 0;
}

}  // namespace voxen::detail
