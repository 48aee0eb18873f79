# VOXEN_SANITIZE: build everything Voxen compiles and links under a sanitizer. Empty (the
# default) builds as usual; "thread" adds ThreadSanitizer (-fsanitize=thread, with -g so its
# reports name files and lines) to every target of the project, third-party code built here
# (volk) included. The thread-safety contract's tests run in such a build: scripts/tsan.sh
# configures build-tsan with it and runs voxen_thread_tests (tests/CMakeLists.txt), which is
# defined only when this option is set. Uninstrumented system libraries (the Vulkan loader,
# lavapipe, LLVM, the validation layer) are not rebuilt: tests/tsan.supp says what of theirs
# the runs ignore.
set(VOXEN_SANITIZE "" CACHE STRING "Sanitizer for the whole build: empty (none) or thread")
set_property(CACHE VOXEN_SANITIZE PROPERTY STRINGS "" thread)
if(VOXEN_SANITIZE STREQUAL "thread")
  # Directory-wide, from the top directory before any add_subdirectory(): every target below
  # gets the flags, so no instrumented object is linked with an uninstrumented one of ours
  # (a mixed build misses races and reports false ones).
  add_compile_options(-fsanitize=thread -g)
  add_link_options(-fsanitize=thread)
  message(STATUS "VOXEN_SANITIZE=thread: ThreadSanitizer build (voxen_thread_tests; scripts/tsan.sh)")
elseif(NOT VOXEN_SANITIZE STREQUAL "")
  message(FATAL_ERROR "VOXEN_SANITIZE='${VOXEN_SANITIZE}' is not supported: leave it empty or set it to 'thread'")
endif()
