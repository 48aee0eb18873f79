#pragma once
// Creates pipelines on worker threads ahead of their first dispatch. Driver compilers take
// 10-30 ms per compute pipeline (lavapipe: its NIR passes, which no cache keeps between
// processes), and a run creates a dozen or more at its first batch, one after another on
// the recording thread. The shader library hands the warmer the kernels a run asks for that
// the previous run with the same cache also dispatched; the workers take them from the back
// of the list while the recording thread meets them from the front (it dispatches in about
// the order the kernels were asked for), so the two share the work instead of queueing
// behind each other. Kernel::pipeline() creates each pipeline once under the kernel's lock,
// whichever thread comes first.
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace voxen {

class Kernel;

class PipelineWarmer {
 public:
  explicit PipelineWarmer(unsigned threads);
  ~PipelineWarmer();  // waits for the pipeline being created; the rest are left to pipeline()
  PipelineWarmer(const PipelineWarmer&) = delete;
  PipelineWarmer& operator=(const PipelineWarmer&) = delete;

  void add(std::shared_ptr<Kernel> kernel);
  // Returns once no worker is creating a pipeline and none is waiting: for the shader
  // library before it swaps or rebuilds pipelines (hot reload) or destroys them.
  void drain();

 private:
  void work();

  unsigned threads_;
  std::vector<std::thread> workers_;  // started at the first add()
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::shared_ptr<Kernel>> waiting_;
  unsigned busy_ = 0;
  bool stopping_ = false;
};

}  // namespace voxen
