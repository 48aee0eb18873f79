#include "sqlite_db.hpp"

#include <cctype>
#include <system_error>

#include "voxen/host/error.hpp"

namespace voxen::detail {

namespace {

// SQLite's URI for a file (https://sqlite.org/uri.html): every byte but unreserved ones and
// '/' percent-encoded, so that '?', '#' and '%' in a name stay part of it.
std::string fileUri(const std::filesystem::path& path, const char* query) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  const std::string text = (ec ? path : absolute).string();
  std::string uri = "file:";
  const char* hex = "0123456789ABCDEF";
  for (const unsigned char c : text) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      uri += char(c);
    } else {
      uri += '%';
      uri += hex[c >> 4];
      uri += hex[c & 15];
    }
  }
  return uri + "?" + query;
}

bool fileExists(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

}  // namespace

Db::Db(const std::filesystem::path& path, Mode mode) : name_("store '" + path.string() + "'") {
  // Readers open read-only and leave nothing behind. A connection to a store (a WAL database)
  // keeps its log, "-wal", beside the file while it is open, and SQLite removes it when the
  // last connection closes: no -wal means no connection has the store open and no commit waits
  // in a log, so the file alone is the store and immutable=1 reads it without locks, log or
  // shared-memory index (nothing is created: this works in a folder or on a mount the user
  // cannot write, and on a mode 444 file). With a -wal (a writer running, or killed) the
  // reader needs the log and its index to see those commits: a plain read-only connection,
  // which uses the -shm beside them.
  const std::filesystem::path wal = path.string() + "-wal";
  readOnlyImmutable_ = mode == Mode::ReadOnly && !fileExists(wal);
  int code = SQLITE_OK;
  if (mode == Mode::ReadWriteCreate)
    code = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  else if (readOnlyImmutable_)
    code = sqlite3_open_v2(fileUri(path, "mode=ro&immutable=1").c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  else
    code = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  if (code != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(code);
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(name_ + ": cannot open: " + why);
  }
  sqlite3_extended_result_codes(db_, 1);
  if (mode == Mode::ReadOnly && !readOnlyImmutable_) {
    // SQLite opens lazily: reach the log now, so that a log it cannot read is named as such.
    char* message = nullptr;
    const int probe = sqlite3_exec(db_, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, &message);
    const std::string why = message ? message : sqlite3_errstr(probe);
    sqlite3_free(message);
    if (probe != SQLITE_OK && (probe & 0xff) != SQLITE_NOTADB) {
      sqlite3_close(db_);
      db_ = nullptr;
      throw Error(name_ + ": cannot read it with its write-ahead log '" + wal.string() + "' (a writer running, or one that was " +
                  "killed): " + why + " (SQLite needs the log's shared-memory index '" + path.string() + "-shm', which it " +
                  "creates in the store's folder when missing: read the store where that folder is writable, or let its writer " +
                  "finish or resume it)");
    }
  }
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

}  // namespace voxen::detail
