// libwayland-client (libwayland-dev), for locd-agent's wlroots desktop source (SEMANTICS L17).
#pragma once

#include <wayland-client.h>
