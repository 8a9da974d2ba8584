# The README's two commands. `make ladder` builds (Release) and runs the ladder benchmark on its
# default input; `make test` builds and runs the whole suite through CTest (GPU tests report as
# skipped where there is no GPU). ARGS passes options to the ladder: make ladder ARGS="--type float32".
BUILD ?= build
CMAKE_ARGS ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
ARGS ?=
GENERATOR := $(if $(shell command -v ninja 2>/dev/null),-G Ninja,)

.PHONY: all configure build ladder test clean

all: build

configure:
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: configure
	cmake --build $(BUILD) --parallel

# Only the CLI: the ladder needs none of the tests and probes.
ladder: configure
	cmake --build $(BUILD) --parallel --target gpureduce_cli
	$(BUILD)/gpureduce ladder $(ARGS)

# Tests run side by side, one per core; those that use the GPU (label gpu) run alone
# (RUN_SERIAL, tests/CMakeLists.txt).
test: build
	ctest --test-dir $(BUILD) --output-on-failure --parallel $(JOBS)

clean:
	rm -rf $(BUILD)
