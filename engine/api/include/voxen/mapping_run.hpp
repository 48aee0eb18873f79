#pragma once
// voxen::MappingRun: a recording mapped in one call. The input is read on threads (any format
// RayReader reads), integrated by a Mapper, saved into a map file at the end or into a region
// store as it grows (checkpoints, a host map bounded in memory, resuming an unfinished run:
// voxen/store/store_mapping.hpp), optionally followed by the clearance layer, and the run's
// statistics come back with their JSON form. `voxen map` and Python's voxen.map_file are this
// type with their own options and reports.
//
//   voxen::MappingRunOptions options;
//   options.input = "drive.mcap";
//   options.store = "drive.vxs";             // or options.output = "drive.vxm"
//   voxen::MappingRun run(options);          // opens the input: reading starts on its threads
//   voxen::Context context;
//   run.start(context);                      // the map, and the store opened (or resumed)
//   const voxen::MappingRunStats stats = run.run();
//   std::cout << stats.toJson() << "\n";
//
// A run is stopped between two chunks when options.stopRequested answers non-zero: a store
// run checkpoints first, and stats().stopped says which checkpoint it kept (a later run with
// resume = true continues from it).
//
// Errors are voxen::Error naming the file, setting or store; a run that updated no voxel is an
// EmptyMappingError (unless allowEmpty); a clearance that fails after the map was saved is a
// MappingClearanceError, whose map file holds the mapped work.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "voxen/clearance/clearance.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/ray_source.hpp"
#include "voxen/mapper.hpp"
#include "voxen/store/store_mapping.hpp"

namespace voxen {

class Context;

// Where a run stands, for a progress display: `done` of `total` (0: not known) in `unit`s.
struct MappingProgress {
  enum class Stage {
    Fingerprint,  // a store run reads each input whole once (its content fingerprint)
    Mapping,      // rays integrated (recordings count bytes of the file instead)
    Clearance,    // regions of the clearance layer computed
  };
  Stage stage = Stage::Mapping;
  std::string setting;  // Fingerprint: the input's setting name (MappingRunOptions::inputSettingName)
  uint64_t done = 0, total = 0;
  const char* unit = "rays";
  bool finished = false;  // the stage's last report
};

// Where a run maps (MappingRunOptions::backend).
// - Auto: the CPU reference when it is the faster start for the input and gives the GPU's map
//   bit for bit (autoCpuReproducesGpu: the input's ray count is known up front and at most
//   MappingRunOptions::autoCpuMaxRays; the sequential order without StopOnFirstOccupied, or the
//   two-phase order with the whole input in one batch; no NDT, no clearance), else the GPU. The
//   choice is made before the device is opened: a run on the CPU reference opens none.
// - Gpu: the GPU integrator, whatever the input.
// - CpuReference: the single-threaded CPU reference, in the run's update order.
enum class MappingBackend { Auto, Gpu, CpuReference };
const char* mappingBackendName(MappingBackend backend);  // "auto", "gpu", "cpu"

// Auto's limit: at most this many rays go to the CPU reference. A real GPU takes 0.16-0.2 s
// to start before its first ray (an H100: instance 86 ms, device 76 ms, shaders 10 ms), about
// what the CPU reference takes for this many rays of a lidar at 0.1 m; it maps the rest in a
// few ms. (On lavapipe, whose "GPU" is the same CPU cores, the CPU reference is faster at
// every size measured, up to 4.2 M rays: BENCHMARKS.md, "Start-up for small inputs".)
inline constexpr uint64_t kAutoCpuMaxRays = 20000;

// What a run mapped on, and why (MappingRunStats::backend, MappingRun::backendChoice()).
struct MappingBackendChoice {
  MappingBackend asked = MappingBackend::Auto;
  bool cpu = false;    // ran on the CPU reference (else the GPU)
  std::string reason;  // Auto's reason ("100 rays, at most 20,000: ..."); empty when asked for
};

struct MappingRunOptions {
  // The recording, cloud or folder to map (voxen/input/ray_source.hpp) and the trajectory
  // that poses it, if any; how it is read (threads, recording topics and frames, the PCD
  // viewpoint, returns from the robot dropped, a single scan's origin).
  std::filesystem::path input{};
  std::optional<std::filesystem::path> trajectory{};
  RayReaderOptions reader{};
  // The map: model, layers, integration settings, GPU cache and batch size. Its
  // run.backend is the run's to set from `backend` (a run refuses CpuReference there).
  MapperOptions mapper{};
  // The GPU, the CPU reference, or (Auto) whichever starts faster and gives the same map.
  MappingBackend backend = MappingBackend::Auto;
  uint64_t autoCpuMaxRays = kAutoCpuMaxRays;

  // Where the map goes, exactly one of: a map file written at the end (atomically), or a
  // region store (an SQLite file or a postgresql:// URL with a session) saved into at every
  // checkpoint as the map grows.
  std::filesystem::path output{};
  std::string store{};
  std::string session{};
  StoreMappingOptions storeMapping{};
  // Continue the unfinished run in `store` from its last checkpoint (the same settings).
  bool resume = false;
  // The settings a store run records and a resumed run must share, by the caller's names;
  // empty: mappingRunSettings(*this). `storeNotes` are recorded and not compared.
  RunSettings storeSettings{};
  RunSettings storeNotes{};
  // The names the inputs' content fingerprints are recorded under ("NAME (content)").
  std::string inputSettingName = "input", trajectorySettingName = "trajectory";

  // After mapping, the clearance layer with these settings (the map file is saved first,
  // and again with the layer). Not with a store.
  std::optional<ClearanceOptions> clearance{};
  // Save the map even when no voxel was updated; otherwise EmptyMappingError.
  bool allowEmpty = false;

  // Called as the run goes (on the calling thread).
  std::function<void(const MappingProgress&)> progress{};
  // Asked between two chunks of a store run: non-zero (a signal number, say) stops the run
  // at a checkpoint (MappingRunStats::stopped).
  std::function<int()> stopRequested{};
  // Called on the mapping thread between two chunks (after a store run's checkpoint, if any):
  // the host map as the run has it (MapperChunkBoundary::sync() brings it up to date with the
  // GPU first; in the two-phase order that cuts a batch, as flush() does), for a caller that
  // shows the map as it grows (voxen map --serve).
  std::function<void(MapperChunkBoundary&)> betweenChunks{};
};

// The settings of a run under the library's names, for a store run whose caller names none.
RunSettings mappingRunSettings(const MappingRunOptions& options);

// A store run stopped on request, after its checkpoint.
struct MappingStop {
  uint64_t checkpoint = 0;  // the checkpoint's number, over the run and those it resumes
  uint64_t raysTaken = 0;   // rays of the input the store's map holds
  int request = 0;          // what stopRequested answered
};

// What a store run did (voxen/store/store_mapping.hpp).
struct MappingStoreStats {
  bool resumed = false;
  uint64_t resumedFromRays = 0;  // rays of the input passed over, held by the store already
  StoreMappingStats mapping;
};

// One field of a JSON object: a small typed form of MappingRunStats::toJson() for callers that
// build their own JSON (or Python dicts). Numbers are rounded as the JSON shows them.
struct JsonField {
  using Object = std::vector<JsonField>;
  using Value = std::variant<std::nullptr_t, bool, uint64_t, int64_t, double, std::string, std::vector<std::string>, Object>;
  std::string name;
  Value value;
};

struct MappingRunStats {
  std::string inputSummary;                // RayReader::summary(): points, rays, skips
  RayLoadStats load;                       // what the reader read and dropped
  std::vector<std::string> inputWarnings;  // RayReader::warnings()
  IntegrationStats integration;            // what the integrator did
  OccupancyMap::Counts counts;             // the map's (a store's: over every region it holds)
  double wallSeconds = 0.0;                // the whole run, saving included
  double integrateSeconds = 0.0;           // up to the map synced after the last ray
  double firstBatchSeconds = 0.0;          // from the integration's start to its first batch
  double syncSeconds = 0.0;                // from the first batch to the map synced
  std::string device;                      // the GPU's name, or "CPU reference (ORDER)"
  bool gpu = false;
  MappingBackendChoice backend;            // asked for, ran on, and Auto's reason
  uint64_t batchSize = 0;                  // rays integrated together
  UpdateOrder order = UpdateOrder::Sequential;
  NdtMode ndt = NdtMode::Off;
  std::optional<double> clearanceRange;    // with a clearance
  ClearanceStats clearance;
  std::string written;                     // the map file, or the store's name (no password)
  int peakResidentMb = 0;                  // the process's peak resident memory
  // The most device memory held at once (a GPU run), by memory type.
  struct DeviceMemory {
    double deviceLocalMb = 0.0, hostVisibleMb = 0.0;
    bool unified = false;
  };
  std::optional<DeviceMemory> deviceMemory;
  std::optional<MappingStoreStats> store;  // a store run
  std::optional<MappingStop> stopped;      // a store run stopped on request: only `store` and this are filled

  double raysPerSecond() const { return integrateSeconds > 0 ? double(integration.rays) / integrateSeconds : 0.0; }
  // The fields of toJson(), in its order.
  JsonField::Object jsonFields() const;
  // One JSON object on one line: rays, samples, skip and reject counts, voxel counts, times,
  // device, settings, clearance, output, memory and (a store run) "store".
  std::string toJson() const;
};

// "ray 12, origin (x, y, z), sample (x, y, z): a non-finite coordinate" (and the other reasons).
std::string rejectedRayText(const RejectedRay& ray);

// No voxel updated (without allowEmpty): almost always a wrong input (times, fields, units,
// poses). Nothing was written (a store may hold the map of the run a resumed run continues).
class EmptyMappingError : public Error {
 public:
  EmptyMappingError(const std::string& message, RayLoadStats load, IntegrationStats integration, bool store)
      : Error(message), load(load), integration(integration), store(store) {}
  RayLoadStats load;
  IntegrationStats integration;
  bool store = false;  // a store run (it holds an empty map) rather than a map file (not written)
};

// The clearance failed after the map was saved without it: `cause` is the clearance's error.
class MappingClearanceError : public Error {
 public:
  MappingClearanceError(const std::string& cause, const std::string& output)
      : Error(cause + " (the map is saved without its clearance in " + output + ")"), cause(cause) {}
  std::string cause;
};

class MappingRun {
 public:
  // Checks the options, fingerprints the inputs of a store run and opens the input (its
  // threads start reading). Throws SettingError / Error.
  explicit MappingRun(MappingRunOptions options);
  ~MappingRun();
  MappingRun(const MappingRun&) = delete;
  MappingRun& operator=(const MappingRun&) = delete;

  // The map on `context` (which must outlive this run), and the store opened (created, or resumed and checked against the
  // run's settings) before anything is integrated, so a wrong store fails at once.
  void start(Context& context);
  // Maps every ray, checkpoints, computes the clearance, saves; the statistics.
  MappingRunStats run();

  // Maps `options` in one call: MappingRun(options), start(context), run().
  static MappingRunStats map(Context& context, MappingRunOptions options);

  const MappingRunOptions& options() const;
  RayReader& reader();
  Mapper& mapper();  // after start()
  // After start(): whether the store run resumes one, and from how many rays of the input.
  bool resumed() const;
  uint64_t resumeRays() const;
  // The rays integrated together: the GPU's batch size, the CPU reference's chunk.
  uint64_t batchSize() const;
  // The device's name, or "CPU reference (ORDER)"; after start().
  std::string deviceName() const;
  // Where the run maps: decided by the constructor (before any device is opened).
  const MappingBackendChoice& backendChoice() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace voxen
