// `voxen bench transform`: world-matrix updates of a transform tree on the GPU beside the
// single-threaded CPU reference in the same run, for forests of `--nodes` nodes and `--depth`
// levels (nodes / depth chains of depth nodes each), with all or 1% of the locals changed.
// Transforms/s count the world matrices recomputed (a changed node and its descendants);
// the GPU's time is split as in NVIDIA's talk: upload (packing and copying the changed
// locals), process (the passes), download (all world matrices back, when the CPU needs
// them), and the total with and without the download.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

#include "bench/bench_stats.hpp"
#include "bench/bench_table.hpp"
#include "commands.hpp"
#include "report/json_output.hpp"
#include "option_checks.hpp"
#include "stopwatch.hpp"
#include "report/text_format.hpp"
#include "voxen/host/allocation.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/map/memory_budget.hpp"
#include "voxen/transform/gpu_transform_tree.hpp"
#include "voxen/transform/transform_tree.hpp"

namespace voxen::cli {

namespace {

// Host memory a node of the benchmark's forests takes: two trees (CPU and GPU) of ~300 bytes
// per node, and the device arrays.
constexpr uint64_t kBytesPerNode = 900;

struct BenchTransformArgs {
  std::vector<uint64_t> nodes{16384, 1u << 20};
  std::vector<uint32_t> depths{2, 8, 64};
  std::vector<double> dirty{1.0, 0.01};
  std::vector<std::string> products{"auto"};
  int repeat = 3;
};

TransformProduct parseProduct(const std::string& name) {
  for (TransformProduct p : {TransformProduct::Auto, TransformProduct::Matrix, TransformProduct::QuadShuffle, TransformProduct::QuadShared})
    if (name == transformProductName(p)) return p;
  throw UsageError("--product " + name + ": not a product variant");
}

struct Result {
  uint64_t nodes = 0;
  uint32_t depth = 0;
  double dirty = 0;
  std::string product;
  bool sparse = false;            // the GPU listed the dirty subtrees (few changed locals)
  double maxRelativeError = 0.0;  // GPU worlds against the CPU reference's
  uint64_t recomputed = 0;
  double cpuSeconds = 0, uploadSeconds = 0, processSeconds = 0, downloadSeconds = 0, gpuPassMs = 0;
  double cpuRate() const { return recomputed / std::max(cpuSeconds, 1e-9); }
  double gpuRate() const { return recomputed / std::max(uploadSeconds + processSeconds, 1e-9); }
  double gpuRateWithDownload() const { return recomputed / std::max(uploadSeconds + processSeconds + downloadSeconds, 1e-9); }
};

glm::mat4 randomLocal(std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-0.2f, 0.2f);
  glm::mat4 m(1.0f);
  m[3] = glm::vec4(u(rng), u(rng), 1.0f + u(rng), 1.0f);
  m[0][1] = u(rng), m[1][0] = -m[0][1];
  return m;
}

Result runConfiguration(Scheduler& scheduler, uint64_t nodes, uint32_t depth, double dirty, TransformProduct product,
                        int repeat, bool profile) {
  std::mt19937 rng(5);
  TransformTree cpu;
  const uint64_t chains = std::max<uint64_t>(1, nodes / depth);
  std::vector<uint32_t> all;
  all.reserve(chains * depth);
  for (uint64_t c = 0; c < chains; ++c) {
    uint32_t parent = TransformTree::kRoot;
    for (uint32_t d = 0; d < depth; ++d) all.push_back(parent = cpu.add(parent, randomLocal(rng)));
  }
  TransformTree tree = cpu;
  GpuTransformTree gpu(scheduler, tree, GpuTransformOptions{product});
  gpu.process();  // the first upload of everything, and the pipelines compiled
  cpu.processCpu();
  scheduler.readback<uint32_t>(gpu.levelWorlds().first(4)).get();
  Result r;
  r.nodes = all.size();
  r.depth = depth;
  r.dirty = dirty;
  r.product = transformProductName(gpu.product());
  std::vector<double> cpuTimes, uploadTimes, processTimes, downloadTimes, passTimes;
  // Two untimed rounds first: the changed-locals input has two buffers used in turn, each
  // allocated at its first use of this size.
  constexpr int kWarmup = 2;
  for (int rep = 0; rep < repeat + kWarmup; ++rep) {
    const bool timed = rep >= kWarmup;
    // The same random nodes changed on both sides (setting them is not timed).
    std::vector<uint32_t> changed;
    std::vector<glm::mat4> locals;
    for (uint32_t n : all)
      if (dirty >= 1.0 || std::uniform_real_distribution<double>(0, 1)(rng) < dirty) changed.push_back(n), locals.push_back(randomLocal(rng));
    cpu.setLocal(changed, locals);
    tree.setLocal(changed, locals);
    auto start = Clock::now();
    r.recomputed = cpu.processCpu();
    if (timed) cpuTimes.push_back(secondsSince(start));
    scheduler.resetProfile();
    start = Clock::now();
    gpu.process();  // packs and uploads the changed locals, records and submits the passes
    if (timed) uploadTimes.push_back(secondsSince(start));
    start = Clock::now();
    scheduler.readback<uint32_t>(gpu.levelWorlds().first(4)).get();  // waits for the passes
    if (timed) processTimes.push_back(secondsSince(start));
    if (timed) passTimes.push_back(totalPassMs(scheduler.profile()));
    if (profile && rep + 1 == repeat + kWarmup) {
      std::fprintf(stderr, "%llu nodes, depth %u, %g dirty: GPU time per pass (last repetition)\n",
                   (unsigned long long)nodes, depth, dirty);
      std::fputs(profileText(scheduler.profile()).c_str(), stderr);
    }
    start = Clock::now();
    gpu.download();
    if (timed) downloadTimes.push_back(secondsSince(start));
    // The GPU's worlds against the CPU reference's: a rate of wrong results is no rate.
    r.sparse = gpu.stats().sparse;
    r.maxRelativeError = std::max(r.maxRelativeError, largestRelativeError(cpu, tree.worlds()));
  }
  r.cpuSeconds = median(cpuTimes);
  r.uploadSeconds = median(uploadTimes);
  r.processSeconds = median(processTimes);
  r.downloadSeconds = median(downloadTimes);
  r.gpuPassMs = median(passTimes);
  return r;
}

int benchTransform(const CommonOptions& options, const BenchTransformArgs& args) {
  const uint64_t largest = *std::max_element(args.nodes.begin(), args.nodes.end());
  try {  // two trees (CPU and GPU) of ~300 bytes per node, and the device arrays
    checkMemoryBudget(largest * kBytesPerNode, options.memoryBudgetBytes(), "--nodes " + std::to_string(largest),
                      options.memoryBudgetHint() + " or lower --nodes");
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  Device device(options.device);
  ShaderLibrary library(device, options.libraryOptions());
  Scheduler scheduler(device, library);
  std::vector<Result> results;
  for (uint64_t nodes : args.nodes)
    for (uint32_t depth : args.depths)
      for (double dirty : args.dirty)
        for (const std::string& product : args.products) {
          // The budget check above trusts --memory-budget; memory the process cannot get
          // after all (a ulimit, other programs) is named here, not as a bare bad_alloc.
          const std::string what = "the transform trees of " + withCommas(nodes) +
                                   " nodes (the CPU reference's, the GPU's copy and their arrays, about " +
                                   std::to_string(kBytesPerNode) + " bytes a node)";
          const std::string setBy = "set by --nodes " + std::to_string(nodes) + ": lower it; --memory-budget " +
                                    std::to_string(options.memoryBudgetBytes() >> 20) +
                                    " MB allowed it, but this process could not get the memory";
          results.push_back(allocating(what, allocationBytes(nodes, kBytesPerNode), setBy, [&] {
            return runConfiguration(scheduler, nodes, depth, dirty, parseProduct(product), args.repeat, options.profile);
          }));
        }
  if (options.json) {
    printJson(jsonArray(results, [&](const Result& r) -> Json {
      return {{"nodes", r.nodes},
              {"depth", r.depth},
              {"product", r.product},
              {"gpu_update", r.sparse ? "sparse" : "dense"},
              {"max_relative_error", r.maxRelativeError},
              {"dirty_fraction", r.dirty},
              {"recomputed", r.recomputed},
              {"gpu_transforms_per_s", rounded(r.gpuRate(), 1)},
              {"gpu_transforms_per_s_with_download", rounded(r.gpuRateWithDownload(), 1)},
              {"cpu_transforms_per_s", rounded(r.cpuRate(), 1)},
              {"upload_ms", rounded(r.uploadSeconds * 1e3, 3)},
              {"process_ms", rounded(r.processSeconds * 1e3, 3)},
              {"gpu_pass_ms", rounded(r.gpuPassMs, 3)},
              {"download_ms", rounded(r.downloadSeconds * 1e3, 3)},
              {"cpu_ms", rounded(r.cpuSeconds * 1e3, 3)},
              {"device", device.info().name}};
    }));
    return 0;
  }
  std::printf("voxen bench transform on %s: medians of %d repetitions\n\n", device.info().name.c_str(), args.repeat);
  const TextTable table({{"nodes", 10},
                         {"depth", 6},
                         {"dirty", 7},
                         {"product", 13},
                         {"update", 7},
                         {"max err", 9},
                         {"recomputed", 11},
                         {"GPU Mtf/s", 12},
                         {"+download", 13},
                         {"CPU Mtf/s", 12},
                         {"upload", 9},
                         {"process", 9},
                         {"download", 9},
                         {"CPU", 9}});
  table.printHead();
  for (const Result& r : results)
    table.printRow({withCommas(r.nodes), std::to_string(r.depth), percent(r.dirty, 0), r.product, r.sparse ? "sparse" : "dense",
                    scientific(r.maxRelativeError, 1), withCommas(r.recomputed), fixed(r.gpuRate() / 1e6, 2),
                    fixed(r.gpuRateWithDownload() / 1e6, 2), fixed(r.cpuRate() / 1e6, 2), fixed(r.uploadSeconds * 1e3, 2, "ms"),
                    fixed(r.processSeconds * 1e3, 2, "ms"), fixed(r.downloadSeconds * 1e3, 2, "ms"),
                    fixed(r.cpuSeconds * 1e3, 2, "ms")});
  std::printf("\nMtf/s: million world matrices recomputed per second. upload: packing and queueing the changed locals, "
              "and for sparse updates listing the dirty subtrees (host); process: until the passes are done; download: "
              "every world matrix back to the host. update: dense (the GPU reads every node's marks) or sparse (the host "
              "lists the dirty subtrees). max err: largest relative difference of a world matrix element from the CPU's.\n");
  return 0;
}

CommandRun setupBenchTransform(CLI::App& command) {
  auto args = std::make_shared<BenchTransformArgs>();
  command.add_option("--nodes", args->nodes, "tree sizes (default 16384 1048576; 10485760 needs about 9 GB)")
      ->check(integerIn(64, int64_t(1) << 26));
  command.add_option("--depth", args->depths, "levels (default 2 8 64)")->check(integerIn(1, 100000));
  command.add_option("--dirty", args->dirty, "fractions of the locals changed (default 1 0.01)")->check(numberIn(0.0, 1.0, "", LowEnd::Open));
  command.add_option("--product", args->products, "matrix product variants to compare (default auto: chosen for the device)")
      ->check(CLI::IsMember({"auto", "matrix", "quad-shuffle", "quad-shared"}));
  command.add_option("--repeat", args->repeat, "repetitions (medians are reported)")->check(integerIn(1, 100))->capture_default_str();
  return [args](const CommonOptions& options) { return benchTransform(options, *args); };
}

}  // namespace

static CommandRegistration registration{"bench transform", "transform tree world matrices, GPU beside the CPU reference",
                                        &setupBenchTransform,
                                        Uses::Gpu | Uses::Profile | Uses::Json | Uses::MemoryBudget};

}  // namespace voxen::cli
