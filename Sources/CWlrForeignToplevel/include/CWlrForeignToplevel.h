// libwayland-client and the wlr foreign-toplevel management protocol (v3), for locd-agent's wlroots desktop source
// (SEMANTICS L17). The protocol's header and code are wayland-scanner's output (generate.sh).
#pragma once

#include <wayland-client.h>
#include "wlr-foreign-toplevel-management-unstable-v1-client-protocol.h"

// Binds the manager global `name` at `version`: the interface's address must be libwayland's own, which Swift cannot
// take of an imported constant.
static inline struct zwlr_foreign_toplevel_manager_v1 *locd_bind_toplevel_manager(struct wl_registry *registry,
                                                                                  uint32_t name, uint32_t version) {
    return (struct zwlr_foreign_toplevel_manager_v1 *)wl_registry_bind(
        registry, name, &zwlr_foreign_toplevel_manager_v1_interface, version);
}
