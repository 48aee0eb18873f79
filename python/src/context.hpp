#pragma once
// voxen.Context: a voxen::Context shared by the Python objects made on it (a Mapper keeps
// its Context alive), with the validation messages it received kept for the caller.
#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "context_use.hpp"
#include "voxen/context.hpp"

namespace voxen::python {

class PyContext {
 public:
  PyContext(const pybind11::object& device, bool validation);
  voxen::Context& get() { return *context_; }
  std::vector<std::string> validationMessages() const;
  void clearValidationMessages();
  // Which thread uses the Context now (context_use.hpp: one at a time).
  ContextUseState& useState() { return use_; }
  // The module's default Context, which every Mapper made without context= shares: the
  // one-thread message says so, since those Mappers look unrelated to their caller.
  bool sharedDefault = false;

 private:
  struct Messages {
    mutable std::mutex mutex;
    std::vector<std::string> list;
  };
  std::shared_ptr<Messages> messages_ = std::make_shared<Messages>();
  std::unique_ptr<voxen::Context> context_;
  ContextUseState use_;
};

// `context` or, for None, the module's default Context (made at first use, best device).
std::shared_ptr<PyContext> contextOrDefault(const pybind11::object& context);

}  // namespace voxen::python
