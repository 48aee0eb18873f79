#pragma once
// Private: the store's tables (docs/architecture.md, "Region stores") and its description
// rows: written once when a store is created, read and checked whenever one is opened.
#include <vector>

#include "sqlite_db.hpp"
#include "voxen/store/region_store.hpp"

namespace voxen::detail {

// PRAGMA application_id of a Voxen store ("VXST"), so another SQLite database is named as such.
inline constexpr int32_t kStoreApplicationId = 0x56585354;

// Whether the database has Voxen's tables yet (false for a new, empty file).
bool hasSchema(Db& db);
// Creates the tables and writes the description; the caller holds a write transaction.
void createSchema(Db& db, const StoreDescription& description);
// Reads and checks the description (format version, model, layers known to this build).
StoreDescription readDescription(Db& db);
// Throws Error naming the store, the field and both values where `existing` (the store's)
// and `wanted` (the caller's map) differ in resolution, region size, model or layers.
void requireSameLayout(const Db& db, const StoreDescription& existing, const StoreDescription& wanted);
// Sets the time origin row; the caller holds a write transaction.
void writeTimeOrigin(Db& db, double timeOrigin);

}  // namespace voxen::detail
