#pragma once
// Runs SQL on a region store's file behind Voxen's back: the store tests damage and move rows
// this way to prove that the readers notice.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include <sqlite3.h>

namespace vt {

inline void execSql(const std::filesystem::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  char* message = nullptr;
  const int code = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  INFO((message ? message : ""));
  sqlite3_free(message);
  sqlite3_close(db);
  REQUIRE(code == SQLITE_OK);
}

}  // namespace vt
