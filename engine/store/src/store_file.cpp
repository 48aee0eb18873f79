#include "voxen/store/store_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "voxen/host/error.hpp"
#include "voxen/atomic_file/output_target.hpp"
#include "voxen/atomic_file/temp_file_registry.hpp"

namespace voxen {

namespace {

std::filesystem::path temporarySibling(const std::filesystem::path& target) {
  static std::atomic<unsigned> counter{0};
  std::string name = ".";
  name += target.filename().string().substr(0, 200);
  name += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  return target.parent_path() / name;
}

std::filesystem::path withSuffix(const std::filesystem::path& p, const char* suffix) { return p.string() + suffix; }

void removeStoreFiles(const std::filesystem::path& p) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(withSuffix(p, suffix), ec);
}

void syncFile(const std::filesystem::path& file, const std::string& context, bool folder) {
  const int fd = ::open(file.c_str(), (folder ? O_RDONLY | O_DIRECTORY : O_RDWR) | O_CLOEXEC);
  if (fd < 0) {
    if (folder) return;  // the rename is done; syncing the folder only hastens it to the disk
    throw Error(context + ": cannot open '" + file.string() + "' to sync it: " + std::strerror(errno));
  }
  const int status = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (status != 0 && !folder) throw Error(context + ": fsync failed: " + std::strerror(error));
}

}  // namespace

StoreFileKind storeFileKind(const std::filesystem::path& path, std::string* damage) {
  std::ifstream in(path, std::ios::binary);
  // SQLite's header is 100 bytes; a store's application id sits at byte 68, big-endian.
  unsigned char head[100] = {};
  in.read(reinterpret_cast<char*>(head), sizeof head);
  const size_t got = size_t(in.gcount());
  if (got < sizeof kSqliteMagic) return StoreFileKind::Other;
  if (std::memcmp(head, kSqliteMagic, sizeof kSqliteMagic) == 0) return StoreFileKind::Store;
  if (got < sizeof head) return StoreFileKind::Other;
  size_t same = 0, first = sizeof kSqliteMagic;
  for (size_t i = 0; i < sizeof kSqliteMagic; ++i) {
    if (head[i] == static_cast<unsigned char>(kSqliteMagic[i])) ++same;
    else if (first == sizeof kSqliteMagic) first = i;
  }
  const uint32_t applicationId = uint32_t(head[68]) << 24 | uint32_t(head[69]) << 16 | uint32_t(head[70]) << 8 | head[71];
  if (applicationId != 0x56585354u && same < 12) return StoreFileKind::Other;
  if (damage) {
    const char expected = kSqliteMagic[first];
    char text[200];
    std::snprintf(text, sizeof text,
                  "%zu of the 16 bytes of SQLite's header \"SQLite format 3\\0\" differ, the first at byte %zu (0x%02x, not 0x%02x%s%c%s)",
                  sizeof kSqliteMagic - same, first, head[first], unsigned(static_cast<unsigned char>(expected)), expected ? " '" : "",
                  expected ? expected : ' ', expected ? "'" : "");
    *damage = text;
  }
  return StoreFileKind::DamagedStore;
}

bool isRegionStoreFile(const std::filesystem::path& path) { return storeFileKind(path) != StoreFileKind::Other; }

void buildStore(const std::filesystem::path& path, const StoreDescription& description, const RegionStoreOptions& options,
                const std::function<void(RegionStore&)>& fill) {
  const std::string context = "cannot save store to '" + path.string() + "'";
  const detail::OutputTarget target = detail::resolveOutputTarget(path, "cannot save store to");
  if (target.kind == detail::OutputKind::Stream)
    throw Error(context + ": it is a device or pipe; a store must be a regular file (SQLite seeks and locks it)");
  std::error_code ec;
  // An empty log (a reader's, or a writer's after its last checkpoint) holds nothing to lose.
  if (std::filesystem::file_size(withSuffix(target.path, "-wal"), ec) > 0 && !ec)
    throw Error(context + ": '" + withSuffix(target.path, "-wal").string() +
                "' exists: the store there is open in another process or was not closed cleanly; replacing the file would pair "
                "that log with the new store (its writer folds the log in when it ends, or when its run is resumed; or remove both)");

  const std::filesystem::path temp = temporarySibling(target.path);
  const int slot = detail::registerTemporaryFile(temp.string());
  try {
    removeStoreFiles(temp);
    {
      RegionStore store = RegionStore::openForWriting(temp, description, options);
      fill(store);
    }  // closed: the last connection folds the log into the file and removes it
    if (std::filesystem::exists(withSuffix(temp, "-wal"), ec))
      throw Error(context + ": SQLite left a write-ahead log beside the temporary store");
    if (target.kind == detail::OutputKind::RegularFile) {
      if (::chown(temp.c_str(), target.owner, target.group) != 0 && errno != EPERM)
        throw Error(context + ": cannot set the owner: " + std::strerror(errno));
      if (::chmod(temp.c_str(), target.mode) != 0) throw Error(context + ": cannot set the permissions: " + std::strerror(errno));
    }
    syncFile(temp, context, false);
    if (::rename(temp.c_str(), target.path.c_str()) != 0)
      throw Error(context + ": rename from '" + temp.string() + "' failed: " + std::strerror(errno));
    // The replaced store's empty log and its shared-memory index describe the old file.
    std::filesystem::remove(withSuffix(target.path, "-wal"), ec);
    std::filesystem::remove(withSuffix(target.path, "-shm"), ec);
  } catch (...) {
    removeStoreFiles(temp);
    detail::unregisterTemporaryFile(slot);
    throw;
  }
  detail::unregisterTemporaryFile(slot);
  syncFile(target.path.has_parent_path() ? target.path.parent_path() : ".", context, true);
}

void saveMapToStore(const OccupancyMap& map, const std::filesystem::path& path, const RegionStoreOptions& options) {
  buildStore(path, StoreDescription::of(map), options, [&](RegionStore& store) {
    std::vector<const Region*> regions;
    regions.reserve(map.regions().size());
    for (const auto& [key, region] : map.regions()) regions.push_back(&region);
    std::sort(regions.begin(), regions.end(), [](const Region* a, const Region* b) { return a->key < b->key; });
    for (size_t first = 0; first < regions.size(); first += kStoreBuildBatchRegions) {
      StoreBatch batch;
      batch.regions.assign(regions.begin() + first, regions.begin() + std::min(regions.size(), first + kStoreBuildBatchRegions));
      store.write(batch);
    }
  });
}

OccupancyMap loadMapFromStore(const std::filesystem::path& path, const std::optional<StoreBox>& box) {
  RegionStore store = RegionStore::openForReading(path);
  return store.readMap(box);
}

}  // namespace voxen
