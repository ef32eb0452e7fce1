# The one release build: the binaries the Debian packages ship (debian/rules) and the ones the benchmarks measure
# (`make bench`), built with the same flags in the same scratch folder, so that either reuses the other's objects and
# only links what it lacks. Included by the Makefile and by debian/rules.
#
# The Swift runtime is linked into each executable (--static-swift-stdlib): the packages depend on no Swift.
# Hardening: full RELRO (-z now, beside -z relro) for the executables, and the fortified functions and stack protector
# for the C that SwiftPM compiles (the project's CSdBus and its dependencies' C).
#
# No network and no home directory (a package build has neither): SwiftPM's cache, configuration and security folders
# and the compilers' own caches (clang's module cache, which the manifest's compilation uses, would go to the home
# directory's .cache) are in the scratch folder, and dependencies are never resolved here
# (--disable-automatic-resolution): they are the checkouts in .build/checkouts at the revisions Package.resolved pins,
# which `make deb` and `make bench-build` (swift package resolve) put there first; `release-scratch` links the scratch
# folder to them.

SWIFT ?= swift
RELEASE_SCRATCH = .build/static-release
RELEASE_SWIFTPM_DIRS = $(CURDIR)/$(RELEASE_SCRATCH)/swiftpm
RELEASE_BUILD = env XDG_CACHE_HOME=$(CURDIR)/$(RELEASE_SCRATCH)/cache \
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path $(RELEASE_SCRATCH) \
	--disable-automatic-resolution --manifest-cache local \
	--cache-path $(RELEASE_SWIFTPM_DIRS)/cache --config-path $(RELEASE_SWIFTPM_DIRS)/config \
	--security-path $(RELEASE_SWIFTPM_DIRS)/security \
	-Xlinker -z -Xlinker now -Xlinker -z -Xlinker relro \
	-Xcc -D_FORTIFY_SOURCE=2 -Xcc -fstack-protector-strong
# Where RELEASE_BUILD puts the executables (what `--show-bin-path` prints, without running SwiftPM).
RELEASE_BIN = $(RELEASE_SCRATCH)/release

.PHONY: release-scratch

# The scratch folder on the checkout's resolved dependencies.
release-scratch:
	@[ -f Package.resolved ] && [ -d .build/checkouts ] && [ -f .build/workspace-state.json ] || { \
		echo "release.mk: no dependencies in .build/checkouts: run 'make deb' or 'make bench-build', which resolve them" >&2; \
		exit 1; }
	mkdir -p $(RELEASE_SCRATCH)
	ln -sfn ../checkouts $(RELEASE_SCRATCH)/checkouts
	cp .build/workspace-state.json $(RELEASE_SCRATCH)/workspace-state.json
