#include "../common/shared.h"
#include "../mid/m.h"  // BAD: base does not link mid
