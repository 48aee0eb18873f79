#include "../mid/m.glsl"
#include "../hidden/h.h"  // BAD: private to mid
