# inflow: the two commands a new user types are `make demo` and `make test`;
# each installs what is missing first: `make demo` what the demo needs
# (scripts/install-deps --for demo), `make test` everything
# (scripts/install-deps).

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

# The demo needs only the CLI, built in its own tree without the tests,
# benchmarks, examples and Python extension (whose packages
# `install-deps --for demo` does not install); scripts/demo: convert
# (cached), train with an interruption, resume, eval.
build/cli/build.ninja:
	cmake -S . -B build/cli $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ \
	  -DINFLOW_BUILD_TESTS=OFF -DINFLOW_BUILD_BENCH=OFF -DINFLOW_BUILD_EXAMPLES=OFF \
	  -DINFLOW_BUILD_PYTHON=OFF

demo:
	scripts/install-deps --for demo
	$(MAKE) --no-print-directory build/cli/build.ninja
	cmake --build build/cli -j $(JOBS) --target inflow_cli
	scripts/demo build/cli/bin/inflow

test: deps
	@scripts/run-tests

test-release: build
	cd build/release && ctest --output-on-failure -j $(JOBS)

test-py: build
	$(PY) -m pytest -q -rs tests/py

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

# The benchmarks' peers (scripts/install-deps installs PyTorch for
# bench_train_vs_torch and makes .venv-torch over it for bench/py/peers.py),
# then the training benchmark and the Python input pipeline benchmark
# (inflow vs tf.data vs PyTorch's DataLoader vs C++).
bench-peers:
	scripts/install-deps
	$(MAKE) --no-print-directory build/release/build.ninja
	cmake --build build/release -j $(JOBS) --target bench_train_vs_torch \
	  bench_pipeline inflow_cli _inflow
	build/release/bin/bench_train_vs_torch
	$(PY) bench/py/peers.py
	$(PY) bench/py/sequence_peers.py

stress: build
	cd build/release && INFLOW_STRESS=long ctest --output-on-failure -L stress

clean:
	rm -rf build
