#include "store_transaction.hpp"

#include <unistd.h>

#include <algorithm>

#include "voxen/host/error.hpp"
#include "voxen/store/writer_process.hpp"

namespace voxen::detail {

namespace {

// On this host: a pid that answers and is not a zombie (a killed writer its parent has not
// reaped yet holds no lock and writes nothing).
bool processAlive(int64_t pid) { return writerStatus({.pid = pid, .host = thisHostName(), .started = {}}) == WriterStatus::Alive; }

}  // namespace

WriteTransaction::WriteTransaction(Db& db) : db_(db) {
  const int code = sqlite3_exec(db.handle(), "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
  if (code == SQLITE_OK) {
    open_ = true;
    return;
  }
  if ((code & 0xff) == SQLITE_BUSY) {
    const std::string writer = registeredWriter(db);
    db.fail("locked by another writer (" + (writer.empty() ? std::string("no writer registered: another SQLite connection") : writer) +
            "); SQLite's write lock was not granted within the busy timeout");
  }
  db.fail("cannot begin a write transaction", code);
}

WriteTransaction::~WriteTransaction() {
  if (open_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void WriteTransaction::commit() {
  const int code = sqlite3_exec(db_.handle(), "COMMIT", nullptr, nullptr, nullptr);
  if (code != SQLITE_OK) db_.fail("cannot commit", code);  // the destructor rolls back
  open_ = false;
}

std::string registeredWriter(Db& db) {
  sqlite3_stmt* q = nullptr;
  if (sqlite3_prepare_v2(db.handle(), "SELECT pid, host, since FROM writer WHERE id = 1", -1, &q, nullptr) != SQLITE_OK) {
    sqlite3_finalize(q);
    return {};
  }
  std::string text;
  if (sqlite3_step(q) == SQLITE_ROW) {
    const auto column = [&](int i) {
      const unsigned char* t = sqlite3_column_text(q, i);
      return t ? std::string(reinterpret_cast<const char*>(t)) : std::string();
    };
    text = "pid " + std::to_string(sqlite3_column_int64(q, 0)) + " on host " + column(1) + " since " + column(2);
  }
  sqlite3_finalize(q);
  return text;
}

void registerWriter(Db& db) {
  const std::string host = thisHostName();
  {
    Statement q(db, "SELECT pid, host FROM writer WHERE id = 1");
    if (q.step()) {
      const int64_t pid = q.integer(0);
      const std::string theirHost = q.text(1);
      q.reset();
      if (theirHost != host || processAlive(pid))
        db.fail("locked by another writer (" + registeredWriter(db) + ")" +
                (theirHost == host ? std::string() : "; if that process is gone, delete the writer row (DELETE FROM writer)"));
    }
  }
  Statement put(db, "INSERT OR REPLACE INTO writer(id, pid, host, since) VALUES (1, ?1, ?2, datetime('now'))");
  put.bind(1, int64_t(getpid())).bind(2, host).run();
}

void unregisterWriter(Db& db) noexcept {
  try {
    WriteTransaction t(db);
    Statement del(db, "DELETE FROM writer WHERE id = 1 AND pid = ?1 AND host = ?2");
    del.bind(1, int64_t(getpid())).bind(2, thisHostName()).run();
    t.commit();
  } catch (...) {
  }
}

void foldLogIntoFile(Db& db, int busyTimeoutMs) {
  // No busy wait: TRUNCATE would otherwise wait (up to the timeout) for every reader to leave
  // the log, stalling the run behind a long export.
  sqlite3_busy_timeout(db.handle(), 0);
  int logFrames = 0, foldedFrames = 0;
  const int code = sqlite3_wal_checkpoint_v2(db.handle(), nullptr, SQLITE_CHECKPOINT_TRUNCATE, &logFrames, &foldedFrames);
  sqlite3_busy_timeout(db.handle(), std::max(0, busyTimeoutMs));
  if (code != SQLITE_OK && (code & 0xff) != SQLITE_BUSY && (code & 0xff) != SQLITE_LOCKED)
    db.fail("cannot fold the write-ahead log into the file", code);
}

}  // namespace voxen::detail
