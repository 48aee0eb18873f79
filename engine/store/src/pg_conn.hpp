#pragma once
// Private: a thin RAII layer over libpq for the PostgreSQL store (pg_store.cpp). Every failure
// is thrown as a PgError naming the server (redactedStoreName: its URL without the password;
// libpq's own words pass through withoutStoreSecrets, as they may quote the URL or a piece of
// its password) and carrying the
// SQLSTATE, so that the push loop can tell a deadlock or a lost connection (retried) from
// anything else (reported).
#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "voxen/host/error.hpp"
#include "voxen/store/store_name.hpp"

namespace voxen::detail {

class PgError : public Error {
 public:
  PgError(const std::string& message, std::string sqlState, bool connectionLost)
      : Error(message), sqlState_(std::move(sqlState)), connectionLost_(connectionLost) {}
  const std::string& sqlState() const { return sqlState_; }
  // Deadlock detected or serialization failure: the whole transaction may simply be retried.
  bool retryable() const { return sqlState_ == "40P01" || sqlState_ == "40001"; }
  bool connectionLost() const { return connectionLost_; }

 private:
  std::string sqlState_;
  bool connectionLost_;
};

// One statement's results; columns come back in binary (see Pg::query).
class PgResult {
 public:
  explicit PgResult(PGresult* r) : r_(r, &PQclear) {}
  int rows() const { return PQntuples(r_.get()); }
  bool null(int row, int column) const { return PQgetisnull(r_.get(), row, column); }
  int32_t int4(int row, int column) const;
  int64_t int8(int row, int column) const;
  double float8(int row, int column) const;
  std::string text(int row, int column) const;
  std::span<const uint8_t> bytes(int row, int column) const;

 private:
  std::unique_ptr<PGresult, decltype(&PQclear)> r_;
};

// A statement's parameters: integers and text are sent as text, byte arrays as binary.
class PgParams {
 public:
  PgParams& add(const std::string& text);
  PgParams& add(int64_t v) { return add(std::to_string(v)); }
  PgParams& add(double v);
  PgParams& addBytes(std::span<const uint8_t> bytes);
  PgParams& addNull();
  int count() const { return int(values_.size()); }
  const char* const* values() const;
  const int* lengths() const { return lengths_.data(); }
  const int* formats() const { return formats_.data(); }

 private:
  std::vector<std::string> values_;
  std::vector<int> lengths_, formats_;
  std::vector<bool> nulls_;
  mutable std::vector<const char*> pointers_;
};

class Pg {
 public:
  explicit Pg(const std::string& url);
  ~Pg();
  Pg(const Pg&) = delete;
  Pg& operator=(const Pg&) = delete;

  const std::string& name() const { return name_; }
  // Drops the connection and opens a new one (a lost server); throws PgError when it cannot.
  void reconnect();
  // Runs SQL that returns no rows (several statements allowed).
  void exec(const std::string& sql);
  // A statement with parameters $1..; results in binary.
  PgResult query(const std::string& sql, const PgParams& params = {});
  // "store 'URL': <what>"
  [[noreturn]] void fail(const std::string& what) const;

 private:
  PgResult check(PGresult* r, const std::string& sql);
  void connect();

  std::string url_, name_;
  PGconn* conn_ = nullptr;
};

}  // namespace voxen::detail
