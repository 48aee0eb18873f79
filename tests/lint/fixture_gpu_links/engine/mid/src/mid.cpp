#include "voxen/gpu/hidden/h.h"
#include "voxen/gpu/base/b.h"
