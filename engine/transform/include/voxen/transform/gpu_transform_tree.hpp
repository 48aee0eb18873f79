#pragma once
// A TransformTree processed on the GPU. process() uploads only what changed (the changed
// local matrices, packed, scattered by a pass that also sets their dirty bits; the
// structure's arrays when nodes were added or removed), then records the level passes over
// the breadth-first level order (the nodes, their parents' slots, their dirty bits, world
// matrices and changed marks stored by order position, so a level reads and writes them
// contiguously; local matrices stay indexed by node): a
// level wider than gpu::kNarrowLevel is one dispatch with an invocation per node, a run of
// narrow levels is one single-workgroup dispatch that walks them with barriers (a chain of
// thousands of levels costs a few dispatches, not thousands). All of it in one command
// buffer and submission. World matrices stay on the device for consumers, in level order
// (levelWorlds(), with slots() for consumers that hold node ids: the culling, the painter's
// box instances) or, once asked for, by node (worlds()); world(n) and download() read back
// only when asked, and translate positions to nodes on the host.
#include <glm/mat4x4.hpp>

#include <cstdint>
#include <memory>
#include <vector>

#include "voxen/host/buffer.hpp"
#include "voxen/transform/transform_tree.hpp"

namespace voxen {

class Kernel;
class Scheduler;
class StreamedInput;
class DirtySubtrees;
struct DeviceInfo;

// How the level pass spreads one matrix product over invocations (transform_levels.comp).
enum class TransformProduct {
  Auto,         // chosen for the device (chooseTransformProduct)
  Matrix,       // one invocation per matrix
  QuadShuffle,  // four invocations per matrix, one column each, the parent's columns shared by subgroup shuffles
  QuadShared,   // the same quads sharing through shared memory
};
const char* transformProductName(TransformProduct product);
// Matrix on CPU drivers (where every component of a load through a buffer address is a loop
// over the lanes, so spreading a matrix over lanes only adds shuffles); QuadShuffle where
// subgroup shuffles work and subgroups are made of whole quads (coalesced loads of each
// matrix's 64 contiguous bytes); QuadShared otherwise.
TransformProduct chooseTransformProduct(const DeviceInfo& device);
// Subgroup shuffles in compute shaders, and subgroups made of whole quads.
bool supportsQuadShuffle(const DeviceInfo& device);

struct GpuTransformOptions {
  TransformProduct product = TransformProduct::Auto;
};

struct TransformStats {
  uint64_t uploadedLocals = 0;  // changed local matrices uploaded by the last process()
  uint32_t dispatches = 0;      // level dispatches it recorded
  TransformProduct product = TransformProduct::Auto;  // the variant the level passes ran
  bool sparse = false;          // the nodes to recompute were listed on the host (few changed locals)
  uint64_t listedNodes = 0;     // how many (sparse only)
  bool wholeLocals = false;     // most locals changed: the whole local array was copied (no scatter pass)
  bool structureUploaded = false;
};

class GpuTransformTree {
 public:
  GpuTransformTree(Scheduler& scheduler, TransformTree& tree, GpuTransformOptions options = {});
  ~GpuTransformTree();

  // Records and submits the update of every world matrix that depends on a changed local
  // (does not wait); clears the tree's dirty marks.
  void process();
  // The world matrix of one node (waits for the GPU, reads back 64 bytes). Throws for a node
  // that is not live or was added since the last process().
  glm::mat4 world(uint32_t node);
  // Every world matrix into the tree (TransformTree::world), waiting for the GPU.
  void download();
  // The world matrices on the device in level order: mat4 per slot (column-major), slot 0
  // the virtual root (the identity), slot p + 1 the node at order() position p. What the
  // level passes write (a level's matrices contiguous); slots() maps node indices to slots.
  BufferRange levelWorlds() const { return levelWorlds_.range(0, (uint64_t(capacity_) + 1) * 64); }
  // uint32 per slot: the generation() of the last process() that recomputed its world.
  BufferRange levelChangedMarks() const { return levelChanged_.range(0, (uint64_t(capacity_) + 1) * 4); }
  // uint32 per node index: its slot in levelWorlds() (0 for a node that is not live).
  // Changes with the structure (every process() that adds, removes or moves nodes).
  BufferRange slots() const { return slots_.range(0, uint64_t(capacity_) * 4); }
  // The world matrices on the device by node: mat4 per node index (column-major). The
  // first call records (into the batch being recorded) a pass that copies every world from
  // its slot to its node; from then on every process() ends with that copy for the nodes
  // it recomputed (one more read and write of each such matrix), so the range stays current
  // like the level-order one. Consumers that can read levelWorlds() with slots() avoid it.
  BufferRange worlds();
  // uint32 per node index: the generation() of the last process() that recomputed its world
  // (for consumers that act only on moved nodes, and for tests that no clean node was
  // rewritten). Equal to generation(): moved by the last process(). Kept like worlds() (the
  // same copy pass, started by whichever is asked for first).
  BufferRange changedMarks();
  uint32_t generation() const { return generation_; }
  const TransformStats& stats() const { return stats_; }
  // For device-side consumers (culling): the local boxes (vec4 lo, vec4 hi per node), the
  // live nodes breadth first (level after level, a level grouped by parent in the parents'
  // order: TransformTree::breadthFirst()), their number, and the arrays' node capacity.
  BufferRange boxes() const { return boxes_.range(0, uint64_t(capacity_) * 32); }
  BufferRange order() const { return order_.range(0, uint64_t(capacity_) * 4); }
  uint32_t liveNodes() const { return levelStarts_.empty() ? 0 : levelStarts_.back(); }
  uint32_t capacity() const { return capacity_; }
  TransformProduct product() const { return product_; }

 private:
  void ensureCapacity();
  // keepWorlds: the worlds computed so far move to their nodes' new slots (a structure
  // change); otherwise every node is recomputed anyway (the arrays were just allocated).
  void uploadStructure(bool keepWorlds);
  // The node-indexed worlds and marks, from the first worlds() or changedMarks() on.
  void keepNodeIndexed();
  // Copies `count` entries' worlds and marks from their slots to their nodes: order
  // positions listed in `positions`, or the first `count` positions when it is empty; with
  // `onlyGeneration` not 0 only the entries whose mark equals it.
  void recordNodeWorlds(const BufferRange& positions, uint32_t count, uint32_t onlyGeneration);
  // Which of a level pass's entries it recomputes: those whose dirty bit or parent's changed
  // mark is set, or every one (every live node changed, or the entries list exactly the
  // nodes to recompute).
  enum class Recompute { Marked, Every };
  void recordLevels(const std::vector<uint32_t>& starts, const BufferRange& startsOnDevice, const BufferRange& listed,
                    Recompute recompute);
  // Returns the listed positions (empty when nothing was listed).
  BufferRange recordSparseLevels();
  void uploadBoxes();

  Scheduler& scheduler_;
  TransformTree& tree_;
  std::shared_ptr<Kernel> scatterKernel_, levelsKernel_, nodeWorldsKernel_, reorderKernel_;
  TransformProduct product_;
  uint32_t lanesPerNode_;
  // The changed nodes' indices and locals, packed (written in place on unified memory).
  std::unique_ptr<StreamedInput> changedInput_;
  // Sparse updates: the breadth-first order that finds dirty subtrees, and their node lists.
  std::unique_ptr<DirtySubtrees> subtrees_;
  std::unique_ptr<StreamedInput> listedInput_;
  uint32_t capacity_ = 0;
  uint32_t generation_ = 0;  // of the last process()
  // locals_, boxes_ and slots_ per node; order_, parentSlots_ and the dirty bits per
  // breadth-first position; levelWorlds_ and levelChanged_ per slot (position + 1; slot 0
  // the root); nodeWorlds_ and nodeChanged_ per node, only when nodeIndexed_.
  Buffer locals_, levelWorlds_, parentSlots_, order_, starts_, dirty_, levelChanged_, boxes_, slots_;
  Buffer nodeWorlds_, nodeChanged_;
  bool nodeIndexed_ = false;
  std::vector<uint32_t> levelStarts_;  // host copy: positions of `order` per level
  // download()'s landing place, kept between calls: a fresh vector of every world matrix
  // costs its page faults again on each download (about as much as the copy itself).
  std::vector<glm::mat4> downloaded_;
  TransformStats stats_;
};

}  // namespace voxen
