#include "CSdBus.h"

#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

sd_bus_vtable csdbus_vtable_start(uint64_t flags) {
    sd_bus_vtable entry = SD_BUS_VTABLE_START(flags);
    return entry;
}

sd_bus_vtable csdbus_vtable_method(const char *member, const char *signature, const char *result,
                                   const char *names, sd_bus_message_handler_t handler, uint64_t flags) {
    // The macro joins its two name lists by string-literal concatenation; here they come joined.
    sd_bus_vtable entry = SD_BUS_METHOD_WITH_NAMES(member, signature, "", result, "", handler, flags);
    entry.x.method.names = names;
    return entry;
}

sd_bus_vtable csdbus_vtable_signal(const char *member, const char *signature, const char *names, uint64_t flags) {
    sd_bus_vtable entry = SD_BUS_SIGNAL_WITH_NAMES(member, signature, names, flags);
    return entry;
}

sd_bus_vtable csdbus_vtable_property(const char *member, const char *signature, sd_bus_property_get_t get,
                                     uint64_t flags) {
    sd_bus_vtable entry = SD_BUS_PROPERTY(member, signature, get, 0, flags);
    return entry;
}

sd_bus_vtable csdbus_vtable_writable_property(const char *member, const char *signature, sd_bus_property_get_t get,
                                              sd_bus_property_set_t set, uint64_t flags) {
    sd_bus_vtable entry = SD_BUS_WRITABLE_PROPERTY(member, signature, get, set, 0, flags);
    return entry;
}

sd_bus_vtable csdbus_vtable_end(void) {
    sd_bus_vtable entry = SD_BUS_VTABLE_END;
    return entry;
}

int csdbus_reply_empty(sd_bus_message *call) {
    return sd_bus_reply_method_return(call, NULL);
}

int csdbus_reply_object_path(sd_bus_message *call, const char *path) {
    return sd_bus_reply_method_return(call, "o", path);
}

int csdbus_reply_error(sd_bus_message *call, const char *name, const char *message) {
    return sd_bus_reply_method_errorf(call, name, "%s", message);
}

int csdbus_emit_signal_oo(sd_bus *bus, const char *destination, const char *path, const char *interface,
                          const char *member, const char *first, const char *second) {
    sd_bus_message *message = NULL;
    int r = sd_bus_message_new_signal(bus, &message, path, interface, member);
    if (r < 0) return r;
    if (destination != NULL) r = sd_bus_message_set_destination(message, destination);
    if (r >= 0) r = sd_bus_message_append(message, "oo", first, second);
    if (r >= 0) r = sd_bus_send(bus, message, NULL);
    sd_bus_message_unref(message);
    return r;
}

int csdbus_append_tt_struct(sd_bus_message *m, uint64_t first, uint64_t second) {
    return sd_bus_message_append(m, "(tt)", first, second);
}

int csdbus_match_name_owner_changed(sd_bus *bus, sd_bus_slot **slot, sd_bus_message_handler_t callback,
                                    void *userdata) {
    return sd_bus_add_match(bus, slot,
                            "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                            "interface='org.freedesktop.DBus',member='NameOwnerChanged'",
                            callback, userdata);
}

int csdbus_connection_credentials(sd_bus *bus, const char *name, csdbus_credentials *credentials) {
    sd_bus_message *reply = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    credentials->has_uid = 0;
    credentials->has_pid = 0;
    credentials->process_fd = -1;
    int r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "GetConnectionCredentials", &error, &reply, "s", name);
    sd_bus_error_free(&error);
    if (r < 0) return r;
    r = sd_bus_message_enter_container(reply, 'a', "{sv}");
    while (r > 0) {
        r = sd_bus_message_enter_container(reply, 'e', "sv");
        if (r <= 0) break;
        const char *key = NULL;
        r = sd_bus_message_read(reply, "s", &key);
        if (r < 0) break;
        if (strcmp(key, "UnixUserID") == 0 && sd_bus_message_enter_container(reply, 'v', "u") > 0) {
            r = sd_bus_message_read(reply, "u", &credentials->uid);
            if (r > 0) credentials->has_uid = 1;
            if (r >= 0) r = sd_bus_message_exit_container(reply);
        } else if (strcmp(key, "ProcessID") == 0 && sd_bus_message_enter_container(reply, 'v', "u") > 0) {
            r = sd_bus_message_read(reply, "u", &credentials->pid);
            if (r > 0) credentials->has_pid = 1;
            if (r >= 0) r = sd_bus_message_exit_container(reply);
        } else if (strcmp(key, "ProcessFD") == 0 && sd_bus_message_enter_container(reply, 'v', "h") > 0) {
            int descriptor = -1;
            r = sd_bus_message_read(reply, "h", &descriptor);
            // The message owns the one it carries: a duplicate of it is the caller's.
            if (r > 0 && descriptor >= 0 && credentials->process_fd < 0) {
                credentials->process_fd = fcntl(descriptor, F_DUPFD_CLOEXEC, 3);
            }
            if (r >= 0) r = sd_bus_message_exit_container(reply);
        } else {
            r = sd_bus_message_skip(reply, "v");
        }
        if (r < 0) break;
        r = sd_bus_message_exit_container(reply);
        if (r < 0) break;
        r = 1;
    }
    sd_bus_message_unref(reply);
    if (r < 0 && credentials->process_fd >= 0) {
        close(credentials->process_fd);
        credentials->process_fd = -1;
    }
    return r < 0 ? r : 0;
}
