// LiveStore (live_store.hpp): StoreMapping driven from a stream's clouds.
#include "commands/live/live_store.hpp"

#include "voxen/store/map_store.hpp"

namespace voxen::cli {

LiveStore::LiveStore(const MapArgs& args, const OccupancyModel& model, Mapper& mapper) {
  RunSettings settings = runSettingsOf(args, model, mapper.map().layout());
  // A stream's run is the same run whatever its --duration: a resumed run gives its own.
  for (auto& [name, value] : settings)
    if (name == "--duration") value.clear();
  settings.emplace_back("--live", args.live.url);
  std::unique_ptr<MapStore> store =
      openMapStoreForWriting(args.store, StoreDescription::of(mapper.map()), {.session = args.session});
  run_ = args.resume ? StoreMapping::resume(std::move(store), settings, args.storeMapping)
                     : StoreMapping::start(std::move(store), settings, args.storeMapping, recordedOptions(args));
  mapper.setRegionSource(run_.get());
}

void LiveStore::afterCloud(Mapper& mapper, uint64_t rays) {
  mapper.atBoundary(run_->resumeRays() + rays, false, [this](MapperChunkBoundary& b) {
    run_->betweenChunks(b.map(), b.raysTaken(), false, [&b] { b.sync(); });
  });
}

uint64_t LiveStore::keep(Mapper& mapper, uint64_t rays) {
  uint64_t checkpoint = 0;
  mapper.atBoundary(run_->resumeRays() + rays, false, [&](MapperChunkBoundary& b) {
    checkpoint = run_->checkpointNow(b.map(), b.raysTaken(), [&b] { b.sync(); });
  });
  return checkpoint;
}

void LiveStore::complete(Mapper& mapper, uint64_t rays) {
  mapper.atBoundary(run_->resumeRays() + rays, true, [this](MapperChunkBoundary& b) {
    run_->betweenChunks(b.map(), b.raysTaken(), true, [&b] { b.sync(); });
  });
}

}  // namespace voxen::cli
