#include "voxen/gpu/common/shared.h"
