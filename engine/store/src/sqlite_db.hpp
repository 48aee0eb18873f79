#pragma once
// Private: a thin RAII layer over the SQLite C API that turns every failure into a
// voxen::Error naming the store's file.
#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>

namespace voxen::detail {

class Db {
 public:
  // ReadOnly: SQLITE_OPEN_READONLY, and immutable where no connection has the store open
  // (sqlite_db.cpp); nothing is created beside the file.
  enum class Mode { ReadOnly, ReadWriteCreate };
  Db(const std::filesystem::path& path, Mode mode);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  sqlite3* handle() const { return db_; }
  const std::string& name() const { return name_; }
  // A reader of a store no connection had open (no -wal beside it): opened immutable=1, it
  // takes no locks and sees no later commit.
  bool readOnlyImmutable() const { return readOnlyImmutable_; }
  // Runs SQL with no results (several statements allowed).
  void exec(const std::string& sql);
  // "store 'PATH': <what>: <sqlite message>"
  [[noreturn]] void fail(const std::string& what) const;
  [[noreturn]] void fail(const std::string& what, int code) const;

 private:
  sqlite3* db_ = nullptr;
  std::string name_;
  bool readOnlyImmutable_ = false;
};

class Statement {
 public:
  Statement(Db& db, const char* sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, const std::string& value);
  Statement& bindBlob(int index, std::span<const uint8_t> bytes);
  // Advances to the next row: true while there is one. Resets itself after the last.
  bool step();
  // Steps a statement that returns no rows, then resets it for reuse.
  void run();
  void reset();

  int64_t integer(int column) const { return sqlite3_column_int64(stmt_, column); }
  double real(int column) const { return sqlite3_column_double(stmt_, column); }
  std::string text(int column) const;
  std::span<const uint8_t> blob(int column) const;
  bool isNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

 private:
  Db& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace voxen::detail
