#include "voxen/gpu/stranger/s.h"
