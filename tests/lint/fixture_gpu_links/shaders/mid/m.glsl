#include "../common/shared.h"
#include "../base/b.h"
#include "../hidden/h.h"
