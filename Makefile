# The README's commands: `make run` starts the demo, `make test` is what CI runs.
SWIFT ?= swift
PREFIX ?= /usr
DESTDIR ?=

.PHONY: build run test lint format bench bench-quick clean

build:
	$(SWIFT) build

run: build
	$(SWIFT) run locd --help

# Format check first (cheap), then every test.
test: lint
	$(SWIFT) test

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

bench:
	$(SWIFT) run -c release locd-core-bench

bench-quick:
	$(SWIFT) run -c release locd-core-bench --quick

clean:
	rm -rf .build .run
