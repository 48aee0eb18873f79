#include "context_use.hpp"

#include <Python.h>

#include <optional>

#include "context.hpp"
#include "voxen/host/error.hpp"

namespace py = pybind11;

namespace voxen::python {
namespace {

// The name threading gives a thread ("MainThread", "Thread-1 (work)"), looked up only when a
// call is refused: taking the use stays a mutex and a thread id (a small query is ~1 us).
std::string threadName(unsigned long ident) {
  try {
    for (py::handle thread : py::module_::import("threading").attr("enumerate")()) {
      py::object id = thread.attr("ident");
      if (!id.is_none() && id.cast<unsigned long>() == ident) return "'" + thread.attr("name").cast<std::string>() + "'";
    }
  } catch (const py::error_already_set&) {
  }
  return "a thread threading does not know";  // started outside Python
}

std::string typeOf(const char* what) {
  const std::string text = what;
  return text.substr(0, text.find('.'));
}

std::string refusal(const PyContext& context, const void* user, const char* what, const void* holder,
                    const char* holderWhat, unsigned long holderThread) {
  const std::string holderType = typeOf(holderWhat);
  const std::string on = holder == user           ? "this same " + holderType
                         : holderType == "Context" ? "the Context itself"
                                                   : "another " + holderType;
  const std::string thread = holderThread == PyThread_get_thread_ident()
                                 ? "this thread (a call made from inside another voxen call)"
                                 : "thread " + threadName(holderThread) + " (ident " + std::to_string(holderThread) + ")";
  return "voxen." + std::string(what) + ": the voxen.Context it runs on" +
         (context.sharedDefault ? " (the shared default Context of every Mapper and TransformTree made without context=)"
                                : "") +
         " is in use: " + holderWhat + " is running on " + thread + ", on " + on + "; " + kOneThreadRule;
}

}  // namespace

ContextUse::ContextUse(PyContext& context, const void* user, const char* what) : state_(context.useState()) {
  const unsigned long self = PyThread_get_thread_ident();
  const void* holder = nullptr;
  const char* holderWhat = "";
  unsigned long holderThread = 0;
  {
    std::lock_guard lock(state_.mutex);
    if (!state_.held) {
      state_.held = true;
      state_.thread = self;
      state_.user = user;
      state_.what = what;
      return;
    }
    holder = state_.user;
    holderWhat = state_.what;
    holderThread = state_.thread;
  }
  // Outside the mutex: naming the thread runs Python code, which may switch threads.
  throw Error(refusal(context, user, what, holder, holderWhat, holderThread));
}

ContextUse::~ContextUse() {
  {
    std::lock_guard lock(state_.mutex);
    state_.held = false;
    state_.user = nullptr;
    state_.what = "";
  }
  state_.freed.notify_all();
}

void releaseOnContext(PyContext& context, const void* user, const char* what, const std::function<void()>& release,
                      const std::function<void()>& leak) noexcept {
  ContextUseState& state = context.useState();
  const unsigned long self = PyThread_get_thread_ident();
  std::unique_lock lock(state.mutex);
  if (state.held && state.thread == self) {
    // This thread holds the Context in a call that is not inside the engine now (a
    // destructor runs only where Python code runs, and the engine runs none): safe to free.
    lock.unlock();
    release();
    return;
  }
  if (state.held) {
    if (_Py_IsFinalizing()) {
      leak();
      return;
    }
    // The holder gives the Context back without needing the GIL, so waiting without it ends.
    // (pybind11 frees objects with the GIL held; without it there is nothing to release.)
    lock.unlock();
    {
      std::optional<py::gil_scoped_release> noGil;
      if (PyGILState_Check()) noGil.emplace();
      lock.lock();
      state.freed.wait(lock, [&] { return !state.held; });
      state.held = true;
      state.thread = self;
      state.user = user;
      state.what = what;
      lock.unlock();
      release();
    }
  } else {
    state.held = true;
    state.thread = self;
    state.user = user;
    state.what = what;
    lock.unlock();
    release();
  }
  lock.lock();
  state.held = false;
  state.user = nullptr;
  state.what = "";
  lock.unlock();
  state.freed.notify_all();
}

}  // namespace voxen::python
