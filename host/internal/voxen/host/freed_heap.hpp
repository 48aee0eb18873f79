#pragma once
// Giving freed heap back to the system. Driver compilers (lavapipe's LLVM, at a pipeline's
// creation or first dispatch) free tens of megabytes that glibc keeps resident in the
// calling thread's malloc arena; a run's later growth then stacks on top of them. Called
// where such a burst has just ended. Nothing happens where the C library has no such call.
namespace voxen {

void returnFreedHeap();

}  // namespace voxen
