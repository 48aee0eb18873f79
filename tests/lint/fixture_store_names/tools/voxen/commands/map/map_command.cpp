// Fixture for store_names_selftest.sh: store_names.py must report exactly the lines marked BAD.
void fixture(const Args& args, const Summary& st) {
  throw UsageError("--store " + args.store + " is a server");  // BAD
  throw UsageError("--store " + redactedStoreName(args.store) + " is a server");
  std::printf("store %s: %s checkpoints\n", args.store.c_str(), n);  // BAD
  std::printf("store %s: %s checkpoints\n", redactedStoreName(args.store).c_str(), n);
  Json summary = {{"output", args.store}};  // BAD
  Json fine = {{"output", redactedStoreName(args.store)}};
  const std::string text = args.store +  // BAD
                           " is written";
  if (isPostgresTarget(args.store) && args.store.empty()) return;
  checkOutputs({}, {{"--store", args.store}});
  openMapStoreForWriting(args.store, description);
  std::filesystem::file_size(args.store + "-wal");  // store-name: not shown
  // store-name: not shown
  std::filesystem::file_size(args.store + "-shm");
  // A comment may say args.store + anything.
  const std::string hint = "voxen map --store " + args.store;  // BAD
}
