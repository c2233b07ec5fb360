# The README's two commands. Both install what they need (scripts/bootstrap.sh)
# and configure the build on first use.
BUILD_DIR := build
JOBS ?= $(shell nproc)

.PHONY: all bootstrap configure build demo test test-llvm19 clean

all: build

bootstrap:
	@bash scripts/bootstrap.sh

$(BUILD_DIR)/build.ninja: | bootstrap
	cmake --preset default

configure: bootstrap $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target gradlint dense_block_bench
	@bash scripts/demo.sh $(BUILD_DIR)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# The same sources against LLVM 19 (Debian 12's clang-tidy-19), in
# build-llvm19: the command, the plugin and gradlint-clangd, and every lint
# case through the three front ends (CMakePresets.json, preset llvm19).
test-llvm19:
	@bash scripts/bootstrap.sh --llvm19
	cmake --preset llvm19
	cmake --build --preset llvm19 -j $(JOBS)
	ctest --preset llvm19 -j $(JOBS)

clean:
	rm -rf $(BUILD_DIR) build-llvm19
