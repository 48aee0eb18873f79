#include "voxen/host/freed_heap.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace voxen {

void returnFreedHeap() {
#if defined(__GLIBC__)
  malloc_trim(0);  // every arena, not only the calling thread's
#endif
}

}  // namespace voxen
