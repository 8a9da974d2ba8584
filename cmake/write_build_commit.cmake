# Run at every build (the gpureduce_build_commit target): writes OUTPUT, a header defining
# GPUREDUCE_GIT_COMMIT as `git describe --always --dirty` of SOURCE_DIR. It is rewritten only when
# the commit changes, so results record the commit a binary was built from, not the one its build
# folder was configured at, and an unchanged commit recompiles nothing.
set(commit "unknown")
if(GIT_EXECUTABLE AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" describe --always --dirty --abbrev=40
    WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE described RESULT_VARIABLE rc
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND NOT described STREQUAL "")
    set(commit "${described}")
  endif()
endif()
set(text "// Written at build time by cmake/write_build_commit.cmake.\n#define GPUREDUCE_GIT_COMMIT \"${commit}\"\n")
set(old "")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
