# The README's two commands. `make ladder` builds (Release) and runs the ladder benchmark on its
# default input; `make test` builds and runs the whole suite through CTest (GPU tests report as
# skipped where there is no GPU). ARGS passes options to the ladder: make ladder ARGS="--type float32".
BUILD ?= build
CMAKE_ARGS ?=
ARGS ?=
GENERATOR := $(if $(shell command -v ninja 2>/dev/null),-G Ninja,)

.PHONY: all configure build ladder test clean

all: build

configure:
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: configure
	cmake --build $(BUILD) --parallel

ladder: build
	$(BUILD)/gpureduce ladder $(ARGS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure

clean:
	rm -rf $(BUILD)
