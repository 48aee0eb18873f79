#pragma once
// One thread at a time on a Context. The engine's Context, and every Mapper and transform
// tree on it, is not yet safe to drive from two threads at once (two Mappers integrating on
// one Context abort in vkCreateBuffer or segfault), and the bindings release the GIL during
// GPU work, so Python threads would otherwise race inside it. Every binding method that
// reaches the device or an engine object made on a Context takes the Context's use for its
// call; a second thread that tries meanwhile gets voxen.Error naming the rule and who holds
// the Context, never a crash. A try-lock, not a wait: a thread waiting for the use while
// holding the GIL would deadlock with a holder that needs the GIL back before it returns.
#include <pybind11/pybind11.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <utility>

namespace voxen::python {

class PyContext;

// Who holds a Context, kept by PyContext.
struct ContextUseState {
  std::mutex mutex;
  std::condition_variable freed;
  bool held = false;
  unsigned long thread = 0;     // PyThread_get_thread_ident(), as threading.get_ident()
  const void* user = nullptr;   // the object whose method holds it
  const char* what = "";        // "Mapper.integrate_rays": a string literal
};

// Holds the Context for one call, or throws voxen::Error (voxen.Error) when another thread
// (or, from a callback, this one) holds it. `user` is the object whose method `what` runs
// ("Mapper.occupancy"), so the message can tell "this Mapper" from another object.
class ContextUse {
 public:
  ContextUse(PyContext& context, const void* user, const char* what);
  ~ContextUse();
  ContextUse(const ContextUse&) = delete;
  ContextUse& operator=(const ContextUse&) = delete;

 private:
  ContextUseState& state_;
};

// For a destructor, which cannot refuse: runs `release` (which frees an engine object's
// GPU resources) once no other thread holds the Context, waiting with the GIL released.
// While the interpreter shuts down a holder may never come back (a daemon thread stopped
// at the GIL): then the object is leaked through `leak` instead, as the process is ending.
// `what` names the destruction as a refused call reports it ("Mapper.__del__").
void releaseOnContext(PyContext& context, const void* user, const char* what, const std::function<void()>& release,
                      const std::function<void()>& leak) noexcept;

// `method` (a free function taking the object first) wrapped so that each call holds the
// object's Context (its member `context`): .def("occupancy", onContext("Mapper.occupancy", &occupancy)).
template <typename Self, typename Result, typename... Args>
auto onContext(const char* what, Result (*method)(Self&, Args...)) {
  return [what, method](Self& self, Args... args) -> Result {
    ContextUse use(*self.context, &self, what);
    return method(self, std::forward<Args>(args)...);
  };
}

// The rule, as every refusal states it (also in the docstrings).
inline constexpr const char* kOneThreadRule =
    "a voxen.Context, with every Mapper and TransformTree on it, is used by one thread at a time: give each "
    "thread its own Context (voxen.Mapper(context=voxen.Context())), or hold a threading.Lock around the calls";

}  // namespace voxen::python
