#include "sqlite_db.hpp"

#include "voxen/host/error.hpp"

namespace voxen::store_detail {

Db::Db(const std::filesystem::path& path, Mode mode) : name_("store '" + path.string() + "'") {
  // A reader opens read-write where it may (SQLite falls back to read-only for a write-protected
  // file) and sets query_only: a read-only connection cannot remove the -wal and -shm files it
  // creates, so every read would leave them behind; a read-write one folds them in on close.
  const int flags = mode == Mode::ReadOnly ? SQLITE_OPEN_READWRITE : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  const int code = sqlite3_open_v2(path.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (code != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(code);
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(name_ + ": cannot open: " + why);
  }
  sqlite3_extended_result_codes(db_, 1);
  if (mode == Mode::ReadOnly) exec("PRAGMA query_only=1");
}

Db::~Db() { sqlite3_close_v2(db_); }

void Db::exec(const std::string& sql) {
  char* message = nullptr;
  const int code = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
  if (code != SQLITE_OK) {
    const std::string why = message ? message : sqlite3_errstr(code);
    sqlite3_free(message);
    throw Error(name_ + ": " + sql.substr(0, sql.find_first_of("(;")) + ": " + why);
  }
}

void Db::fail(const std::string& what) const { throw Error(name_ + ": " + what); }

void Db::fail(const std::string& what, int code) const {
  (void)code;
  throw Error(name_ + ": " + what + ": " + sqlite3_errmsg(db_));
}

Statement::Statement(Db& db, const char* sql) : db_(db) {
  if (sqlite3_prepare_v2(db.handle(), sql, -1, &stmt_, nullptr) != SQLITE_OK)
    db.fail(std::string("cannot prepare \"") + sql + "\"", 0);
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}
Statement& Statement::bind(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
  return *this;
}
Statement& Statement::bind(int index, const std::string& value) {
  sqlite3_bind_text(stmt_, index, value.data(), int(value.size()), SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::bindBlob(int index, std::span<const uint8_t> bytes) {
  // SQLITE_STATIC: the caller's buffer outlives the step that reads it.
  sqlite3_bind_blob64(stmt_, index, bytes.data(), bytes.size(), SQLITE_STATIC);
  return *this;
}

bool Statement::step() {
  const int code = sqlite3_step(stmt_);
  if (code == SQLITE_ROW) return true;
  sqlite3_reset(stmt_);
  if (code == SQLITE_DONE) return false;
  db_.fail(std::string("\"") + sqlite3_sql(stmt_) + "\" failed", code);
}

void Statement::run() {
  while (step()) {
  }
  reset();
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string Statement::text(int column) const {
  const unsigned char* t = sqlite3_column_text(stmt_, column);
  return t ? std::string(reinterpret_cast<const char*>(t), size_t(sqlite3_column_bytes(stmt_, column))) : std::string();
}

std::span<const uint8_t> Statement::blob(int column) const {
  const void* data = sqlite3_column_blob(stmt_, column);
  return {static_cast<const uint8_t*>(data), size_t(sqlite3_column_bytes(stmt_, column))};
}

}  // namespace voxen::store_detail
