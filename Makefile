# inflow: the two commands a new user types are `make demo` and `make test`;
# each installs what is missing first (scripts/install-deps).

JOBS ?= $(shell nproc)
CMAKE_GEN := -G Ninja
PY := .venv/bin/python
# Sanitizer builds: clang, so that gcc (release) and clang both build it.
# No benchmarks and no CLI: no sanitizer test runs them (the CLI's tests are
# tests/py, against the release build).
# -O1 and line tables only: sanitizer reports keep file:line, and the
# builds compile faster than with RelWithDebInfo's -O2 -g.
SAN_FLAGS := -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
             "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
             -DINFLOW_BUILD_BENCH=OFF -DINFLOW_BUILD_TOOLS=OFF -DINFLOW_BUILD_PYTHON=OFF
# TSan needs a fixed memory layout; setarch -R turns off ASLR for the run.
TSAN_RUN := setarch $(shell uname -m) -R

.PHONY: all deps build demo test test-release test-py test-asan test-tsan \
        check-format format bench bench-peers stress clean

all: build

deps:
	scripts/install-deps

build/release/build.ninja:
	cmake -S . -B build/release $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++

build: build/release/build.ninja
	cmake --build build/release -j $(JOBS)

# The demo needs only the CLI: no tests, benchmarks or examples are built.
# scripts/demo: convert (cached), train with an interruption, resume, eval.
demo: deps build/release/build.ninja
	cmake --build build/release -j $(JOBS) --target inflow_cli
	scripts/demo build/release/bin/inflow

test: deps
	@scripts/run-tests

test-release: build
	cd build/release && ctest --output-on-failure -j $(JOBS)

test-py: build
	$(PY) -m pytest -q tests/py

test-asan:
	cmake -S . -B build/asan $(CMAKE_GEN) $(SAN_FLAGS) -DINFLOW_SANITIZE=address,undefined
	cmake --build build/asan -j $(JOBS)
	cd build/asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) -LE release-only

test-tsan:
	cmake -S . -B build/tsan $(CMAKE_GEN) $(SAN_FLAGS) -DINFLOW_SANITIZE=thread
	cmake --build build/tsan -j $(JOBS)
	cd build/tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  $(TSAN_RUN) ctest --output-on-failure -j $(JOBS) -LE release-only

check-format:
	@scripts/check-format

format:
	@scripts/check-format --fix

bench: build
	@scripts/run-benchmarks

# The benchmarks' peers (PyTorch for bench_train_vs_torch), then the
# training benchmark against them.
bench-peers: build/release/build.ninja
	scripts/install-peers
	cmake --build build/release -j $(JOBS) --target bench_train_vs_torch
	build/release/bin/bench_train_vs_torch

stress: build
	cd build/release && INFLOW_STRESS=long ctest --output-on-failure -L stress

clean:
	rm -rf build
