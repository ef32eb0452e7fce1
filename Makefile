# The README's commands: `make run` starts the demo and shows `locctl status`; `make test` is what CI runs.
SWIFT ?= swift
BIN = $(shell $(SWIFT) build --show-bin-path)
RELEASE_BIN = $(shell $(SWIFT) build -c release --show-bin-path)
# The demo's socket: inside the checkout, so it works the same for root and for a user.
RUN_SOCKET ?= $(CURDIR)/.run/io.locd
LOCCTL = LOCD_SOCKET=$(RUN_SOCKET) $(BIN)/locctl

.PHONY: build run test boot-test lint format bench bench-quick bench-build clean

build:
	$(SWIFT) build

# Starts locd on the demo configuration, shows `locctl status`, and serves until Ctrl-C.
run: build
	@mkdir -p .run
	@$(BIN)/locd --config config/demo.toml --socket $(RUN_SOCKET) & pid=$$!; \
	trap 'kill $$pid 2>/dev/null; wait $$pid' INT TERM; \
	for i in $$(seq 100); do $(LOCCTL) status >/dev/null 2>&1 && break; sleep 0.05; done; \
	$(LOCCTL) status; \
	echo; echo "locd serves the demo on $(RUN_SOCKET); Ctrl-C stops it. From another terminal:"; \
	echo "  $(LOCCTL) status"; \
	wait $$pid

# Format check first (cheap), then every test, then the boot test in a container (skipped, with the
# reason, where it cannot run).
test: lint
	$(SWIFT) test
	$(MAKE) boot-test

# systemd as PID 1 in a throwaway container, with the project's units and the debug binaries.
boot-test:
	$(SWIFT) build --product locd
	$(SWIFT) build --product locctl
	Tests/System/boot-test.sh $(BIN)

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

# Both benchmarks, in release mode: the core alone, then the real daemon (which runs the locd beside it).
bench: bench-build
	$(SWIFT) run -c release locd-core-bench
	$(RELEASE_BIN)/locd-bench

bench-quick: bench-build
	$(SWIFT) run -c release locd-core-bench --quick
	$(RELEASE_BIN)/locd-bench --quick

bench-build:
	$(SWIFT) build -c release --product locd
	$(SWIFT) build -c release --product locd-bench

clean:
	rm -rf .build .run

include systemd/install.mk
