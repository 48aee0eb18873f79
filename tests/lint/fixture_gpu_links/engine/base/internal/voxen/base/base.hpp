#pragma once
#include "voxen/gpu/common/shared.h"
  #  include "voxen/gpu/top/t.h"  // BAD: the layering upside down
