#include "voxen/gpu/common/shared.h"
#include "voxen/gpu/mid/m.h"
#include "voxen/gpu/base/b.h"  // through mid's public link
#include "voxen/gpu/hidden/h.h"  // BAD: mid links hidden privately
#include "voxen/gpu/stranger/s.h"  // BAD: top does not link stranger
// "voxen/gpu/stranger/s.h" in a comment is not an include
