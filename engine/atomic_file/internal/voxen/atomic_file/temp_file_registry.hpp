#pragma once
// Private to the library: the temporary files of the saves in progress, kept where a signal
// handler can remove them (voxen::removeTemporaryFilesNow in voxen/atomic_file/output_file.hpp).
// The slots are fixed arrays with atomic states, so the handler reads them without locks or
// allocation; a save registers its temporary name before creating the file, so no file
// exists unregistered.
#include <string>

namespace voxen::detail {

// Returns the slot to pass to unregisterTemporaryFile, or -1 when every slot is taken (the
// file is then not removed on a signal; nothing else changes).
int registerTemporaryFile(const std::string& path);
void unregisterTemporaryFile(int slot);

}  // namespace voxen::detail
