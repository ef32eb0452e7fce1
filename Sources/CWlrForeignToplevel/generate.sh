#!/bin/sh
# Regenerates this target's C glue from the protocol's XML with wayland-scanner (libwayland-bin); SwiftPM does not run
# it at build time, so the output is kept here, and a test (WlrootsSourceTests) regenerates it and compares.
# Usage: generate.sh [OUTPUT_DIRECTORY] (this folder by default).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
mkdir -p "$out/include"
xml=$here/wlr-foreign-toplevel-management-unstable-v1.xml
wayland-scanner client-header "$xml" "$out/include/wlr-foreign-toplevel-management-unstable-v1-client-protocol.h"
wayland-scanner private-code "$xml" "$out/wlr-foreign-toplevel-management-unstable-v1-protocol.c"
