# The README's two commands. Both install what they need (scripts/bootstrap.sh)
# and configure the build on first use.
BUILD_DIR := build
JOBS ?= $(shell nproc)

.PHONY: all bootstrap configure build demo test clean

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

clean:
	rm -rf $(BUILD_DIR)
