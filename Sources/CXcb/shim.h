// libxcb and its X-Resource extension (libxcb1-dev, libxcb-res0-dev), for locd-agent's X11 desktop source: the
// active window, its WM_CLASS and state, and the X server's own view of the pid of the client that made it
// (SEMANTICS L15). timerfd(2), which Swift's Glibc module leaves out, debounces the active window's pass through None.
#pragma once

#include <xcb/xcb.h>
#include <xcb/res.h>
#include <xcb/xcbext.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>

// The X-Resource extension's data on `connection`: Swift 6 refuses to name libxcb-res's mutable global `xcb_res_id`,
// which libxcb only reads.
static inline const xcb_query_extension_reply_t *locd_xcb_res_extension(xcb_connection_t *connection) {
    return xcb_get_extension_data(connection, &xcb_res_id);
}
