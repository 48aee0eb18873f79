#include "app_options.hpp"

#include "text_parsing.hpp"

namespace voxel_painter {

const char* usageText() {
  return "usage:\n"
         "  voxel_painter [--width W] [--height H] [--input-script FILE] [--screenshot OUT.png --exit-after N]\n"
         "                [--no-vsync] [--hot-reload[=DIR] | --no-hot-reload] [--test-pattern]\n"
         "  voxel_painter --headless --script STROKES.txt [--frames-dir DIR] [--every N] [--width W] [--height H]\n"
         "                [--json] [--hot-reload[=DIR]]\n"
         "common: [--device INDEX|NAME] [--validation] [--sync-validation]\n"
         "Window controls: left-drag orbits, scroll zooms, right-drag or shift+left-drag paints with the tool,\n"
         "ctrl+left-drag erases, E toggles add/erase, [ and ] change the radius, 1-6 pick a colour,\n"
         "R resets the camera, Esc quits. See samples/voxel_painter/README.md.\n";
}

namespace {

// `--flag value` or `--flag=value`.
class ArgReader {
 public:
  explicit ArgReader(const std::vector<std::string>& args) : args_(args) {}
  bool next() {
    if (index_ >= args_.size()) return false;
    const std::string& arg = args_[index_++];
    const size_t eq = arg.find('=');
    inline_.reset();
    flag_ = arg;
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      flag_ = arg.substr(0, eq);
      inline_ = arg.substr(eq + 1);
    }
    return true;
  }
  const std::string& flag() const { return flag_; }
  bool hasInlineValue() const { return inline_.has_value(); }
  std::string text() {
    if (inline_) return *inline_;
    if (index_ >= args_.size()) throw UsageError(flag_ + " needs a value");
    return args_[index_++];
  }
  uint64_t integer(uint64_t lo, uint64_t hi) {
    const std::string word = text();
    const auto value = parseInteger(word);
    if (!value || *value < int64_t(lo) || uint64_t(*value) > hi)
      throw UsageError(flag_ + ": expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi) +
                       ", got '" + word + "'");
    return uint64_t(*value);
  }
  void noValue() {
    if (inline_) throw UsageError(flag_ + " takes no value");
  }

 private:
  const std::vector<std::string>& args_;
  size_t index_ = 0;
  std::string flag_;
  std::optional<std::string> inline_;
};

}  // namespace

AppOptions parseAppOptions(const std::vector<std::string>& args) {
  AppOptions o;
  ArgReader r(args);
  bool sawScreenshot = false;
  while (r.next()) {
    const std::string& f = r.flag();
    if (f == "--width") o.width = uint32_t(r.integer(16, 8192));
    else if (f == "--height") o.height = uint32_t(r.integer(16, 8192));
    else if (f == "--device") o.device = r.text();
    else if (f == "--validation") r.noValue(), o.validation = true;
    else if (f == "--sync-validation") r.noValue(), o.syncValidation = true;
    else if (f == "--hot-reload") o.hotReloadDir = r.hasInlineValue() ? r.text() : std::string();
    else if (f == "--no-hot-reload") r.noValue(), o.noHotReload = true;
    else if (f == "--test-pattern") r.noValue(), o.testPattern = true;
    else if (f == "--headless") r.noValue(), o.headless = true;
    else if (f == "--script") o.script = r.text();
    else if (f == "--frames-dir") o.framesDir = r.text();
    else if (f == "--every") o.every = uint32_t(r.integer(1, 1000000));
    else if (f == "--json") r.noValue(), o.json = true;
    else if (f == "--input-script") o.inputScript = r.text();
    else if (f == "--screenshot") o.screenshot = r.text(), sawScreenshot = true;
    else if (f == "--exit-after") o.exitAfter = r.integer(1, 100000000);
    else if (f == "--no-vsync") r.noValue(), o.vsync = false;
    else if (f == "--help" || f == "-h") throw UsageError("");
    else throw UsageError("unknown option '" + f + "'");
  }
  if (o.hotReloadDir && o.noHotReload) throw UsageError("--hot-reload and --no-hot-reload contradict each other");
  if (o.headless) {
    if (o.script.empty()) throw UsageError("--headless needs --script STROKES.txt");
    if (!o.inputScript.empty() || sawScreenshot || o.exitAfter || o.testPattern || !o.vsync)
      throw UsageError("--input-script, --screenshot, --exit-after, --test-pattern and --no-vsync belong to the windowed "
                       "mode, not --headless");
  } else {
    if (!o.script.empty() || !o.framesDir.empty() || o.json)
      throw UsageError("--script, --frames-dir and --json belong to --headless");
    if (sawScreenshot && o.exitAfter == 0) throw UsageError("--screenshot needs --exit-after N (the frame to capture)");
  }
  return o;
}

}  // namespace voxel_painter
