#include "CSdBus.h"

#include <stddef.h>

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
