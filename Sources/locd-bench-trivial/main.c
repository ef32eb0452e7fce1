// locd-bench-trivial: the floor of locd-bench's GeoClue scenario. It owns org.freedesktop.GeoClue2 on the bus of
// DBUS_SYSTEM_BUS_ADDRESS (else the system bus) and answers the six calls of the churn cycle at the same object
// paths, with the same signatures and through the same sd-bus as locd-geoclue: Manager.CreateClient exports a
// Client object, Properties.Set of DesktopId and RequestedAccuracyLevel store the value, Client.Start and
// Client.Stop flip Active, Manager.DeleteClient unexports the object. It does nothing else: no signals, no owner
// checks, no location. A GeoClue client therefore pays exactly the bus round trips of a real service and nothing
// of the service's own work, so its cycle rate is what the bus and the clients allow.
// With --signals it also sends what GeoClue's contract makes every real service send (G2, G9): PropertiesChanged
// for each property a call changes (DesktopId, RequestedAccuracyLevel, Active, the Manager's InUse), and at Start a
// Location object with its eight properties, the Client's Location property changed and LocationUpdated(old, new)
// to the caller; the Location object goes with its client. A client's signals go to its owner alone, as locd-geoclue
// sends them (SEMANTICS G4: a unicast PropertiesChanged, which the bus delivers to the owner whether or not it listens,
// where a broadcast reaches only the peers whose match rules ask for it); the Manager's InUse is broadcast. It still
// does no work of its own: its cycle rate is what the bus and the clients allow a service that keeps the contract,
// the floor for locd-geoclue.
// Every method and writable property is SD_BUS_VTABLE_UNPRIVILEGED, as locd-geoclue's are (BusVTable): without it
// sd-bus asks the bus for each caller's uid (GetConnectionUnixUser) before every call, a round trip the real service
// does not make.
// Single-threaded; SIGTERM ends it. Exit 1 when the bus cannot be served.
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#define CLIENT_PREFIX "/org/freedesktop/GeoClue2/Client/"
// Client objects alive at once; the churn deletes each client it creates, so a few per client process suffice.
#define CLIENT_SLOTS 4096

struct client {
    sd_bus_slot *slot;
    // The unique name of the peer that created it: where its signals go.
    char *owner;
    sd_bus_slot *location_slot;
    uint32_t number;
    char *desktop_id;
    uint32_t accuracy;
    int active;
};

static struct client clients[CLIENT_SLOTS];
static uint32_t next_client = 0;
// --signals: send the contract's signals (above).
static int send_signals = 0;
// Clients active now, for the Manager's InUse.
static uint32_t active_clients = 0;

static int get_double(sd_bus *bus, const char *path, const char *interface, const char *property,
                      sd_bus_message *reply, void *data, sd_bus_error *error) {
    double value = strcmp(property, "Accuracy") == 0 ? 5000.0 : 0.0;
    return sd_bus_message_append_basic(reply, 'd', &value);
}

static int get_description(sd_bus *bus, const char *path, const char *interface, const char *property,
                           sd_bus_message *reply, void *data, sd_bus_error *error) {
    return sd_bus_message_append_basic(reply, 's', "");
}

static int get_timestamp(sd_bus *bus, const char *path, const char *interface, const char *property,
                         sd_bus_message *reply, void *data, sd_bus_error *error) {
    return sd_bus_message_append(reply, "(tt)", (uint64_t)0, (uint64_t)0);
}

static const sd_bus_vtable location_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("Latitude", "d", get_double, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Longitude", "d", get_double, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Accuracy", "d", get_double, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Altitude", "d", get_double, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Speed", "d", get_double, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Heading", "d", get_double, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Description", "s", get_description, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Timestamp", "(tt)", get_timestamp, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_VTABLE_END,
};

static void changed(sd_bus *bus, const char *path, const char *interface, const char *property) {
    if (send_signals) sd_bus_emit_properties_changed(bus, path, interface, property, NULL);
}

#define CLIENT_INTERFACE "org.freedesktop.GeoClue2.Client"

// --signals: PropertiesChanged of one property of a client, with its value (type 's', 'u', 'b' or 'o'), sent to the
// client's owner alone (G4).
static void client_changed(sd_bus *bus, struct client *client, const char *property, char type, const void *value) {
    if (!send_signals) return;
    char path[64];
    char signature[2] = {type, '\0'};
    snprintf(path, sizeof path, CLIENT_PREFIX "%u", client->number);
    sd_bus_message *signal = NULL;
    int r = sd_bus_message_new_signal(bus, &signal, path, "org.freedesktop.DBus.Properties", "PropertiesChanged");
    if (r >= 0) r = sd_bus_message_set_destination(signal, client->owner);
    if (r >= 0) r = sd_bus_message_append(signal, "s", CLIENT_INTERFACE);
    if (r >= 0) r = sd_bus_message_open_container(signal, 'a', "{sv}");
    if (r >= 0) r = sd_bus_message_open_container(signal, 'e', "sv");
    if (r >= 0) r = sd_bus_message_append_basic(signal, 's', property);
    if (r >= 0) r = sd_bus_message_open_container(signal, 'v', signature);
    if (r >= 0) r = sd_bus_message_append_basic(signal, type, value);
    if (r >= 0) r = sd_bus_message_close_container(signal);
    if (r >= 0) r = sd_bus_message_close_container(signal);
    if (r >= 0) r = sd_bus_message_close_container(signal);
    if (r >= 0) r = sd_bus_message_append(signal, "as", 0);
    if (r >= 0) r = sd_bus_send(bus, signal, NULL);
    sd_bus_message_unref(signal);
    if (r < 0) fprintf(stderr, "locd-bench-trivial: cannot send PropertiesChanged: %s\n", strerror(-r));
}

static void in_use_changed(sd_bus *bus) {
    changed(bus, "/org/freedesktop/GeoClue2/Manager", "org.freedesktop.GeoClue2.Manager", "InUse");
}

// The client an object path names, or NULL when it names none.
static struct client *client_at(const char *path) {
    if (strncmp(path, CLIENT_PREFIX, strlen(CLIENT_PREFIX)) != 0) return NULL;
    char *end = NULL;
    unsigned long number = strtoul(path + strlen(CLIENT_PREFIX), &end, 10);
    if (end == NULL || *end != '\0' || number == 0) return NULL;
    struct client *client = &clients[number % CLIENT_SLOTS];
    return client->slot != NULL ? client : NULL;
}

// --signals: the Location object of a Start, announced as a real service announces its first fix.
static int announce_location(sd_bus_message *call, struct client *client) {
    sd_bus *bus = sd_bus_message_get_bus(call);
    char client_path[64], location_path[64];
    snprintf(client_path, sizeof client_path, CLIENT_PREFIX "%u", client->number);
    snprintf(location_path, sizeof location_path, "/org/freedesktop/GeoClue2/Location/%u", client->number);
    client->location_slot = sd_bus_slot_unref(client->location_slot);
    int r = sd_bus_add_object_vtable(bus, &client->location_slot, location_path, "org.freedesktop.GeoClue2.Location",
                                     location_vtable, NULL);
    if (r < 0) return r;
    client_changed(bus, client, "Location", 'o', location_path);
    sd_bus_message *signal = NULL;
    r = sd_bus_message_new_signal(bus, &signal, client_path, CLIENT_INTERFACE, "LocationUpdated");
    if (r >= 0) r = sd_bus_message_set_destination(signal, sd_bus_message_get_sender(call));
    if (r >= 0) r = sd_bus_message_append(signal, "oo", "/", location_path);
    if (r >= 0) r = sd_bus_send(bus, signal, NULL);
    sd_bus_message_unref(signal);
    return r;
}

static int client_start(sd_bus_message *call, void *data, sd_bus_error *error) {
    struct client *client = data;
    int r = sd_bus_reply_method_return(call, NULL);
    if (r < 0 || client->active) return r;
    client->active = 1;
    if (!send_signals) return r;
    sd_bus *bus = sd_bus_message_get_bus(call);
    client_changed(bus, client, "Active", 'b', &client->active);
    if (active_clients++ == 0) in_use_changed(bus);
    return announce_location(call, client);
}

static void deactivate(sd_bus *bus, struct client *client) {
    if (!client->active) return;
    client->active = 0;
    if (!send_signals) return;
    client_changed(bus, client, "Active", 'b', &client->active);
    if (--active_clients == 0) in_use_changed(bus);
}

static int client_stop(sd_bus_message *call, void *data, sd_bus_error *error) {
    deactivate(sd_bus_message_get_bus(call), data);
    return sd_bus_reply_method_return(call, NULL);
}

static int get_desktop_id(sd_bus *bus, const char *path, const char *interface, const char *property,
                          sd_bus_message *reply, void *data, sd_bus_error *error) {
    struct client *client = data;
    return sd_bus_message_append_basic(reply, 's', client->desktop_id != NULL ? client->desktop_id : "");
}

static int set_desktop_id(sd_bus *bus, const char *path, const char *interface, const char *property,
                          sd_bus_message *value, void *data, sd_bus_error *error) {
    struct client *client = data;
    const char *text = NULL;
    int r = sd_bus_message_read_basic(value, 's', &text);
    if (r < 0) return r;
    free(client->desktop_id);
    client->desktop_id = strdup(text);
    if (client->desktop_id == NULL) return -ENOMEM;
    client_changed(bus, client, property, 's', client->desktop_id);
    return 1;
}

static int get_accuracy(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *data, sd_bus_error *error) {
    return sd_bus_message_append_basic(reply, 'u', &((struct client *)data)->accuracy);
}

static int set_accuracy(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *value, void *data, sd_bus_error *error) {
    struct client *client = data;
    int r = sd_bus_message_read_basic(value, 'u', &client->accuracy);
    if (r >= 0) client_changed(bus, client, property, 'u', &client->accuracy);
    return r;
}

static int get_location(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *data, sd_bus_error *error) {
    struct client *client = data;
    char location_path[64] = "/";
    if (client->location_slot != NULL)
        snprintf(location_path, sizeof location_path, "/org/freedesktop/GeoClue2/Location/%u", client->number);
    return sd_bus_message_append_basic(reply, 'o', location_path);
}

static int get_active(sd_bus *bus, const char *path, const char *interface, const char *property,
                      sd_bus_message *reply, void *data, sd_bus_error *error) {
    int active = ((struct client *)data)->active;
    return sd_bus_message_append_basic(reply, 'b', &active);
}

static const sd_bus_vtable client_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Start", "", "", client_start, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Stop", "", "", client_stop, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_WRITABLE_PROPERTY("DesktopId", "s", get_desktop_id, set_desktop_id, 0,
                             SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_WRITABLE_PROPERTY("RequestedAccuracyLevel", "u", get_accuracy, set_accuracy, 0,
                             SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_PROPERTY("Active", "b", get_active, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("Location", "o", get_location, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_VTABLE_END,
};

static int create_client(sd_bus_message *call, void *data, sd_bus_error *error) {
    sd_bus *bus = sd_bus_message_get_bus(call);
    next_client += 1;
    if (next_client % CLIENT_SLOTS == 0) next_client += 1;  // number 0 names no client
    struct client *client = &clients[next_client % CLIENT_SLOTS];
    if (client->slot != NULL)
        return sd_bus_error_set(error, "org.freedesktop.DBus.Error.LimitsExceeded", "too many clients at once");
    char path[64];
    snprintf(path, sizeof path, CLIENT_PREFIX "%u", next_client);
    client->accuracy = 0;
    client->active = 0;
    client->number = next_client;
    client->owner = strdup(sd_bus_message_get_sender(call));
    if (client->owner == NULL) return -ENOMEM;
    int r = sd_bus_add_object_vtable(bus, &client->slot, path, "org.freedesktop.GeoClue2.Client", client_vtable,
                                     client);
    if (r < 0) {
        free(client->owner);
        client->owner = NULL;
        return r;
    }
    return sd_bus_reply_method_return(call, "o", path);
}

static int delete_client(sd_bus_message *call, void *data, sd_bus_error *error) {
    const char *path = NULL;
    int r = sd_bus_message_read_basic(call, 'o', &path);
    if (r < 0) return r;
    struct client *client = client_at(path);
    if (client != NULL) {
        deactivate(sd_bus_message_get_bus(call), client);
        client->location_slot = sd_bus_slot_unref(client->location_slot);
        client->slot = sd_bus_slot_unref(client->slot);
        free(client->desktop_id);
        client->desktop_id = NULL;
        free(client->owner);
        client->owner = NULL;
    }
    return sd_bus_reply_method_return(call, NULL);
}

static int get_in_use(sd_bus *bus, const char *path, const char *interface, const char *property,
                      sd_bus_message *reply, void *data, sd_bus_error *error) {
    int in_use = active_clients > 0;
    return sd_bus_message_append_basic(reply, 'b', &in_use);
}

static const sd_bus_vtable manager_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("InUse", "b", get_in_use, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_METHOD("CreateClient", "", "o", create_client, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("DeleteClient", "o", "", delete_client, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END,
};

int main(int argc, char **argv) {
    // A child inherits an ignored SIGTERM from a parent that ignores it; this one must stop on it.
    signal(SIGTERM, SIG_DFL);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--signals") == 0) {
            send_signals = 1;
        } else {
            fprintf(stderr, "locd-bench-trivial: unknown option %s (the only one is --signals)\n", argv[i]);
            return 2;
        }
    }
    sd_bus *bus = NULL;
    int r = sd_bus_open_system(&bus);
    if (r >= 0)
        r = sd_bus_add_object_vtable(bus, NULL, "/org/freedesktop/GeoClue2/Manager", "org.freedesktop.GeoClue2.Manager",
                                     manager_vtable, NULL);
    if (r >= 0) r = sd_bus_request_name(bus, "org.freedesktop.GeoClue2", 0);
    if (r < 0) {
        fprintf(stderr, "locd-bench-trivial: cannot serve org.freedesktop.GeoClue2: %s\n", strerror(-r));
        return 1;
    }
    fprintf(stderr, "locd-bench-trivial: serving org.freedesktop.GeoClue2\n");
    for (;;) {
        r = sd_bus_process(bus, NULL);
        if (r > 0) continue;
        if (r >= 0) r = sd_bus_wait(bus, UINT64_MAX);
        if (r < 0 && r != -EINTR) {
            fprintf(stderr, "locd-bench-trivial: the bus failed: %s\n", strerror(-r));
            return 1;
        }
    }
}
