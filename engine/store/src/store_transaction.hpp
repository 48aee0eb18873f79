#pragma once
// Private: write transactions (BEGIN IMMEDIATE, so a writer learns at once, within the busy
// timeout, whether it may write) and the writer registration that names who holds a store.
#include <string>

#include "sqlite_db.hpp"

namespace voxen::detail {

class WriteTransaction {
 public:
  // Throws Error naming the registered writer (pid and host) when SQLite's write lock is not
  // granted within the busy timeout.
  explicit WriteTransaction(Db& db);
  ~WriteTransaction();  // rolls back unless committed
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;
  void commit();

 private:
  Db& db_;
  bool open_ = false;
};

// "pid 123 on host h since 2024-..." for the writer registered in the store; empty when none
// (or the store has no writer table yet).
std::string registeredWriter(Db& db);
// Inside a write transaction: records this process as the store's writer. A registered
// writer that is still alive (or on another host, where that cannot be told) is refused with
// an Error naming it; one on this host whose process is gone (a killed run) is replaced.
void registerWriter(Db& db);
// Removes this process's registration (best effort: never throws).
void unregisterWriter(Db& db) noexcept;
// Outside a transaction: copies the write-ahead log's frames into the database file and
// truncates the log (PRAGMA wal_checkpoint(TRUNCATE)), so that the file alone holds every
// commit. It does not wait for readers: frames a reader's older snapshot still needs stay in
// the log until the next fold (SQLITE_BUSY is not an error here). Then restores the busy
// timeout `busyTimeoutMs`.
void foldLogIntoFile(Db& db, int busyTimeoutMs);

}  // namespace voxen::detail
