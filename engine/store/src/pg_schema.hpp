#pragma once
// Private: the PostgreSQL store's tables (docs/architecture.md, "PostgreSQL store"): created by
// the first writer, in one transaction under an advisory lock so that two writers creating
// them at once do not collide; the description is read and checked whenever one is opened.
#include "pg_conn.hpp"
#include "voxen/store/store_types.hpp"

namespace voxen::detail {

// Advisory lock keys (two-int form: class, object): the schema's creation, and one per session
// name (hashtext). The region locks of a push use the one-bigint form, a separate key space.
inline constexpr int32_t kPgSchemaLockClass = 0x56585355;
inline constexpr int32_t kPgSessionLockClass = 0x56585354;

// Whether the database holds a Voxen store.
bool pgHasSchema(Pg& db);
// Creates the tables when missing and writes `description`, or checks the stored one against
// it (another resolution, region size, model or layers is refused naming both values).
// Returns the stored description (its time origin: `description`'s). One transaction.
StoreDescription pgCreateOrCheck(Pg& db, const StoreDescription& description);
// Reads and checks the description (time origin 0: it is per session).
StoreDescription pgReadDescription(Pg& db);

}  // namespace voxen::detail
