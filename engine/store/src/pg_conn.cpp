#include "pg_conn.hpp"

#include <arpa/inet.h>

#include <bit>
#include <cstdio>
#include <cstring>

#include "voxen/store/map_store.hpp"

namespace voxen::detail {

namespace {

uint64_t bigEndian64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  return v;
}

// libpq's messages end in a newline.
std::string trimmed(const char* message) {
  std::string m = message ? message : "";
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  return m;
}

}  // namespace

int32_t PgResult::int4(int row, int column) const {
  uint32_t v;
  std::memcpy(&v, PQgetvalue(r_.get(), row, column), 4);
  return int32_t(ntohl(v));
}

int64_t PgResult::int8(int row, int column) const { return int64_t(bigEndian64(PQgetvalue(r_.get(), row, column))); }

double PgResult::float8(int row, int column) const {
  return std::bit_cast<double>(bigEndian64(PQgetvalue(r_.get(), row, column)));
}

std::string PgResult::text(int row, int column) const {
  return std::string(PQgetvalue(r_.get(), row, column), size_t(PQgetlength(r_.get(), row, column)));
}

std::span<const uint8_t> PgResult::bytes(int row, int column) const {
  return {reinterpret_cast<const uint8_t*>(PQgetvalue(r_.get(), row, column)), size_t(PQgetlength(r_.get(), row, column))};
}

PgParams& PgParams::add(const std::string& text) {
  values_.push_back(text);
  lengths_.push_back(0);
  formats_.push_back(0);
  nulls_.push_back(false);
  return *this;
}

PgParams& PgParams::addNull() {
  add(std::string());
  nulls_.back() = true;
  return *this;
}

PgParams& PgParams::add(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", v);
  return add(std::string(text));
}

PgParams& PgParams::addBytes(std::span<const uint8_t> bytes) {
  values_.emplace_back(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  lengths_.push_back(int(bytes.size()));
  formats_.push_back(1);
  nulls_.push_back(false);
  return *this;
}

const char* const* PgParams::values() const {
  pointers_.clear();
  for (size_t i = 0; i < values_.size(); ++i) pointers_.push_back(nulls_[i] ? nullptr : values_[i].data());
  return pointers_.data();
}

Pg::Pg(const std::string& url) : url_(url), name_(redactedStoreName(url)) { connect(); }

Pg::~Pg() {
  if (conn_) PQfinish(conn_);
}

void Pg::connect() {
  conn_ = PQconnectdb(url_.c_str());
  if (PQstatus(conn_) != CONNECTION_OK) {
    // libpq's message may quote the URL, or a piece of a password it could not parse.
    const std::string why = withoutStoreSecrets(trimmed(PQerrorMessage(conn_)), url_);
    PQfinish(conn_);
    conn_ = nullptr;
    throw PgError("store '" + name_ + "': cannot connect: " + why, "08001", true);
  }
  // Notices (e.g. "relation already exists, skipping") are not for the user.
  PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);
}

void Pg::reconnect() {
  if (conn_) PQfinish(conn_);
  conn_ = nullptr;
  connect();
}

void Pg::fail(const std::string& what) const { throw Error("store '" + name_ + "': " + what); }

PgResult Pg::check(PGresult* raw, const std::string& sql) {
  PgResult r(raw);
  const ExecStatusType status = raw ? PQresultStatus(raw) : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return r;
  const char* state = raw ? PQresultErrorField(raw, PG_DIAG_SQLSTATE) : nullptr;
  // A libpq-made error (no SQLSTATE), a connection exception (08) or a server shutting down
  // (57P0x) all leave this connection useless: the caller may reconnect.
  const std::string code = state ? state : "";
  const bool lost = !conn_ || PQstatus(conn_) != CONNECTION_OK || code.empty() || code.starts_with("08") || code.starts_with("57P");
  const std::string message = withoutStoreSecrets(trimmed(raw ? PQresultErrorMessage(raw) : PQerrorMessage(conn_)), url_);
  const std::string first = sql.substr(0, sql.find_first_of("(\n"));
  throw PgError("store '" + name_ + "': " + (lost ? "lost the server: " : "") + message + " (in: " + first + ")",
                code.empty() ? "08006" : code, lost);
}

void Pg::exec(const std::string& sql) {
  if (!conn_) throw PgError("store '" + name_ + "': not connected", "08003", true);
  check(PQexec(conn_, sql.c_str()), sql);
}

PgResult Pg::query(const std::string& sql, const PgParams& params) {
  if (!conn_) throw PgError("store '" + name_ + "': not connected", "08003", true);
  return check(PQexecParams(conn_, sql.c_str(), params.count(), nullptr, params.values(), params.lengths(), params.formats(), 1), sql);
}

}  // namespace voxen::detail
