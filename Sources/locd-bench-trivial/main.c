// locd-bench-trivial: the floor of locd-bench's GeoClue scenario. It owns org.freedesktop.GeoClue2 on the bus of
// DBUS_SYSTEM_BUS_ADDRESS (else the system bus) and answers the six calls of the churn cycle at the same object
// paths, with the same signatures and through the same sd-bus as locd-geoclue: Manager.CreateClient exports a
// Client object, Properties.Set of DesktopId and RequestedAccuracyLevel store the value, Client.Start and
// Client.Stop flip Active, Manager.DeleteClient unexports the object. It does nothing else: no signals, no owner
// checks, no location. A GeoClue client therefore pays exactly the bus round trips of a real service and nothing
// of the service's own work, so its cycle rate is what the bus and the clients allow.
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
    char *desktop_id;
    uint32_t accuracy;
    int active;
};

static struct client clients[CLIENT_SLOTS];
static uint32_t next_client = 0;

// The client an object path names, or NULL when it names none.
static struct client *client_at(const char *path) {
    if (strncmp(path, CLIENT_PREFIX, strlen(CLIENT_PREFIX)) != 0) return NULL;
    char *end = NULL;
    unsigned long number = strtoul(path + strlen(CLIENT_PREFIX), &end, 10);
    if (end == NULL || *end != '\0' || number == 0) return NULL;
    struct client *client = &clients[number % CLIENT_SLOTS];
    return client->slot != NULL ? client : NULL;
}

static int client_start(sd_bus_message *call, void *data, sd_bus_error *error) {
    ((struct client *)data)->active = 1;
    return sd_bus_reply_method_return(call, NULL);
}

static int client_stop(sd_bus_message *call, void *data, sd_bus_error *error) {
    ((struct client *)data)->active = 0;
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
    return client->desktop_id != NULL ? 1 : -ENOMEM;
}

static int get_accuracy(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *data, sd_bus_error *error) {
    return sd_bus_message_append_basic(reply, 'u', &((struct client *)data)->accuracy);
}

static int set_accuracy(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *value, void *data, sd_bus_error *error) {
    return sd_bus_message_read_basic(value, 'u', &((struct client *)data)->accuracy);
}

static int get_active(sd_bus *bus, const char *path, const char *interface, const char *property,
                      sd_bus_message *reply, void *data, sd_bus_error *error) {
    int active = ((struct client *)data)->active;
    return sd_bus_message_append_basic(reply, 'b', &active);
}

static const sd_bus_vtable client_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Start", "", "", client_start, 0),
    SD_BUS_METHOD("Stop", "", "", client_stop, 0),
    SD_BUS_WRITABLE_PROPERTY("DesktopId", "s", get_desktop_id, set_desktop_id, 0, 0),
    SD_BUS_WRITABLE_PROPERTY("RequestedAccuracyLevel", "u", get_accuracy, set_accuracy, 0, 0),
    SD_BUS_PROPERTY("Active", "b", get_active, 0, 0),
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
    int r = sd_bus_add_object_vtable(bus, &client->slot, path, "org.freedesktop.GeoClue2.Client", client_vtable,
                                     client);
    if (r < 0) return r;
    return sd_bus_reply_method_return(call, "o", path);
}

static int delete_client(sd_bus_message *call, void *data, sd_bus_error *error) {
    const char *path = NULL;
    int r = sd_bus_message_read_basic(call, 'o', &path);
    if (r < 0) return r;
    struct client *client = client_at(path);
    if (client != NULL) {
        client->slot = sd_bus_slot_unref(client->slot);
        free(client->desktop_id);
        client->desktop_id = NULL;
    }
    return sd_bus_reply_method_return(call, NULL);
}

static const sd_bus_vtable manager_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("CreateClient", "", "o", create_client, 0),
    SD_BUS_METHOD("DeleteClient", "o", "", delete_client, 0),
    SD_BUS_VTABLE_END,
};

int main(void) {
    // A child inherits an ignored SIGTERM from a parent that ignores it; this one must stop on it.
    signal(SIGTERM, SIG_DFL);
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
