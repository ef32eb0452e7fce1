// What Swift cannot take from sd-bus by itself: the vtable macros (initialisers of a struct with unions and
// bit fields, which do not import), and fixed-arity twins of the variadic calls that locd-geoclue makes
// (sd_bus_reply_method_return, sd_bus_reply_method_errorf, sd_bus_emit_signal, sd_bus_message_append with a
// struct). Everything else of sd-bus is called from Swift directly through CSystemd's headers.
#pragma once

#include <stdint.h>
#include <sys/eventfd.h>  // the bus thread's wake-up; Glibc's module map leaves it out
#include <sys/signalfd.h>  // locd-agent stops between events on SIGTERM; Glibc's module map leaves it out too
#include <systemd/sd-bus.h>

// The vtable flags, as constants Swift can read (the header's anonymous enum imports without a type).
static const uint64_t CSDBUS_VTABLE_UNPRIVILEGED = SD_BUS_VTABLE_UNPRIVILEGED;
static const uint64_t CSDBUS_VTABLE_PROPERTY_CONST = SD_BUS_VTABLE_PROPERTY_CONST;
static const uint64_t CSDBUS_VTABLE_PROPERTY_EMITS_CHANGE = SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE;
static const uint64_t CSDBUS_VTABLE_PROPERTY_EMITS_INVALIDATION = SD_BUS_VTABLE_PROPERTY_EMITS_INVALIDATION;
// The credentials locd-geoclue asks the bus for a peer: its uid (GeoClue agents answer for the apps of their uid).
static const uint64_t CSDBUS_CREDS_UID = SD_BUS_CREDS_UID | SD_BUS_CREDS_EUID;

// SD_BUS_VTABLE_START(flags).
sd_bus_vtable csdbus_vtable_start(uint64_t flags);
// SD_BUS_METHOD_WITH_NAMES(member, signature, in_names, result, out_names, handler, flags), with the
// argument names already joined: the in names then the out names, each NUL-terminated ("path\0"), or "".
sd_bus_vtable csdbus_vtable_method(const char *member, const char *signature, const char *result,
                                   const char *names, sd_bus_message_handler_t handler, uint64_t flags);
// SD_BUS_SIGNAL_WITH_NAMES(member, signature, names, flags).
sd_bus_vtable csdbus_vtable_signal(const char *member, const char *signature, const char *names, uint64_t flags);
// SD_BUS_PROPERTY(member, signature, get, 0, flags).
sd_bus_vtable csdbus_vtable_property(const char *member, const char *signature, sd_bus_property_get_t get,
                                     uint64_t flags);
// SD_BUS_WRITABLE_PROPERTY(member, signature, get, set, 0, flags).
sd_bus_vtable csdbus_vtable_writable_property(const char *member, const char *signature, sd_bus_property_get_t get,
                                              sd_bus_property_set_t set, uint64_t flags);
// SD_BUS_VTABLE_END.
sd_bus_vtable csdbus_vtable_end(void);

// sd_bus_reply_method_return(call, NULL).
int csdbus_reply_empty(sd_bus_message *call);
// sd_bus_reply_method_return(call, "o", path).
int csdbus_reply_object_path(sd_bus_message *call, const char *path);
// sd_bus_reply_method_errorf(call, name, "%s", message).
int csdbus_reply_error(sd_bus_message *call, const char *name, const char *message);
// sd_bus_emit_signal(bus, path, interface, member, "oo", first, second), sent to one destination only
// (a unicast signal) when destination is not NULL.
int csdbus_emit_signal_oo(sd_bus *bus, const char *destination, const char *path, const char *interface,
                          const char *member, const char *first, const char *second);
// sd_bus_message_append(m, "(tt)", first, second).
int csdbus_append_tt_struct(sd_bus_message *m, uint64_t first, uint64_t second);
// sd_bus_add_match(bus, slot, "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged'", ...):
// every change of a name's owner, for learning when a peer leaves the bus.
int csdbus_match_name_owner_changed(sd_bus *bus, sd_bus_slot **slot, sd_bus_message_handler_t callback,
                                    void *userdata);

// What the bus says of a peer's connection through org.freedesktop.DBus.GetConnectionCredentials: the uid and pid it
// recorded when the peer connected, and a pidfd of the peer's process where the bus gives one (ProcessFD).
typedef struct {
    uint32_t uid;
    int has_uid;
    uint32_t pid;
    int has_pid;
    // A duplicate (close-on-exec) of the bus's ProcessFD, which the caller closes; -1 when the bus gave none.
    int process_fd;
} csdbus_credentials;
// Calls GetConnectionCredentials(name) and reads UnixUserID, ProcessID and ProcessFD from its a{sv}, skipping the
// rest; 0 on success, a negative errno-style code when the call or its reply failed.
int csdbus_connection_credentials(sd_bus *bus, const char *name, csdbus_credentials *credentials);

