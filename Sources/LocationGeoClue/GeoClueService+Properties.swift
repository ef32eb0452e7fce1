import AppIdentifiers
import CSdBus

#if canImport(Glibc)
import Glibc
#endif

extension GeoClueService {
    func getManagerProperty(_ name: String, into reply: BusMessage) -> Int32 {
        switch name {
        case "InUse": reply.append(inUse)
        // locd serves exact fixes to apps allowed precise location, unless the caller's agent says less (G12).
        case "AvailableAccuracyLevel": reply.append(availableAccuracy(for: currentSender))
        default: -ENOENT
        }
    }

    /// The sender of the call being answered, for a property whose value depends on the caller.
    private var currentSender: String? {
        sd_bus_get_current_message(bus).flatMap { BusMessage(raw: $0).sender }
    }

    func getClientProperty(_ name: String, at path: String, into reply: BusMessage) -> Int32 {
        guard let client = clients[path] else { return -ENOENT }
        return switch name {
        case "Location": reply.append(client.locationPath, as: "o")
        case "DistanceThreshold": reply.append(client.distanceThreshold)
        case "TimeThreshold": reply.append(client.timeThreshold)
        case "DesktopId": reply.append(client.desktopID)
        case "RequestedAccuracyLevel": reply.append(client.requestedAccuracy)
        case "Active": reply.append(client.active)
        default: -ENOENT
        }
    }

    func getLocationProperty(_ name: String, at path: String, into reply: BusMessage) -> Int32 {
        guard let fix = locations[path]?.fix else { return -ENOENT }
        return switch name {
        case "Latitude": reply.append(fix.latitude)
        case "Longitude": reply.append(fix.longitude)
        case "Accuracy": reply.append(fix.accuracy)
        case "Altitude": reply.append(fix.altitude)
        case "Speed": reply.append(fix.speed)
        case "Heading": reply.append(fix.heading)
        case "Description": reply.append(fix.description)
        case "Timestamp": csdbus_append_tt_struct(reply.raw, fix.seconds, fix.microseconds)
        default: -ENOENT
        }
    }

    /// Sets a writable Client property from `value` (sd-bus has checked its type); a change emits
    /// `PropertiesChanged`.
    func setClientProperty(_ name: String, at path: String, from value: BusMessage) -> Result<Void, GeoClueError> {
        guard let client = clients[path] else { return .failure(.failed("no client at \(path)")) }
        switch name {
        case "DesktopId":
            guard let id = value.readString() else { return .failure(.invalidArgs("DesktopId is a string")) }
            // I15: an app id, which is shown to the person and to administrators, and names a file.
            guard AppIdentifier.isValid(id) else {
                return .failure(.invalidArgs("DesktopId is not an app id: \(AppIdentifier.rule)"))
            }
            guard id != client.desktopID else { return .success(()) }
            client.desktopID = id
        case "RequestedAccuracyLevel":
            guard let level = value.readUInt32(), AccuracyLevel.all.contains(level) else {
                return .failure(
                    .invalidArgs(
                        "RequestedAccuracyLevel is 0 (none), 1 (country), 4 (city), 5 (neighborhood), 6 (street) or 8 (exact)"
                    )
                )
            }
            guard level != client.requestedAccuracy else { return .success(()) }
            client.requestedAccuracy = level
            client.run?.changeAccuracy(to: servedAccuracy(client))
        case "DistanceThreshold", "TimeThreshold":
            guard let threshold = value.readUInt32() else { return .failure(.invalidArgs("\(name) is a uint32")) }
            let old = name == "DistanceThreshold" ? client.distanceThreshold : client.timeThreshold
            guard threshold != old else { return .success(()) }
            if name == "DistanceThreshold" {
                client.distanceThreshold = threshold
            } else {
                client.timeThreshold = threshold
            }
        default:
            return .failure(.invalidArgs("Property '\(name)' is not writable"))
        }
        emitClientChanged(client, [name])
        return .success(())
    }

    /// The read-only properties of each interface served, as the interface XML has them.
    static let readOnlyProperties: [String: Set<String>] = [
        managerInterface: ["InUse", "AvailableAccuracyLevel"],
        clientInterface: ["Location", "Active"],
        locationInterface: [
            "Latitude", "Longitude", "Accuracy", "Altitude", "Speed", "Heading", "Description", "Timestamp",
        ],
    ]

    /// Sees every call before sd-bus dispatches it: only a client's owner may use the client and its locations
    /// (others: `AccessDenied`), and setting a read-only property answers GeoClue's error, `InvalidArgs` (G5).
    /// Returns 1 when it answered the call, 0 to let sd-bus go on.
    func filter(_ message: BusMessage) -> Int32 {
        guard sd_bus_message_is_method_call(message.raw, nil, nil) > 0, let path = message.path else { return 0 }
        if path == Self.managerPath { return refuseReadOnlySet(message) }
        guard path.hasPrefix(Self.clientPrefix) || path.hasPrefix(Self.locationPrefix) else { return 0 }
        let interface = message.interface
        // Introspectable and Peer are anyone's; a call without an interface is checked like the rest.
        guard interface != "org.freedesktop.DBus.Introspectable", interface != "org.freedesktop.DBus.Peer" else {
            return 0
        }
        guard let owner = clients[path]?.owner ?? locations[path]?.owner else { return 0 }  // sd-bus: UnknownObject
        guard message.sender == owner else {
            message.reply(.accessDenied("Access denied: only the peer that created this client may use it"))
            return 1
        }
        return refuseReadOnlySet(message)
    }

    /// Answers a `Set` of a property that exists and is read-only as GLib's GeoClue does: `InvalidArgs`. Returns 1
    /// when it answered; a `Set` of a writable property, or of one that does not exist (sd-bus: `UnknownProperty`),
    /// is left to sd-bus.
    private func refuseReadOnlySet(_ message: BusMessage) -> Int32 {
        guard message.interface == Self.propertiesInterface, message.member == "Set" else { return 0 }
        let target = message.readString()
        let property = message.readString()
        message.rewind()
        guard let target, let property, Self.readOnlyProperties[target]?.contains(property) == true else { return 0 }
        let hint = property == "Active" ? ": Start and Stop change it" : ""
        message.reply(.invalidArgs("Property '\(property)' is not writable\(hint)"))
        return 1
    }
}

extension GeoClueService {
    /// The D-Bus type of each Client property, for a `PropertiesChanged` built here.
    static let clientPropertyTypes: [String: String] = [
        "Location": "o", "DistanceThreshold": "u", "TimeThreshold": "u", "DesktopId": "s",
        "RequestedAccuracyLevel": "u", "Active": "b",
    ]

    /// G4: `PropertiesChanged` for `names` of `client`, with their values now, sent to the client's owner only (a
    /// unicast signal, as `LocationUpdated`): what a client does is its owner's to hear, not every peer's.
    func emitClientChanged(_ client: GeoClueClient, _ names: [String]) {
        var raw: OpaquePointer?
        guard sd_bus_message_new_signal(bus, &raw, client.path, Self.propertiesInterface, "PropertiesChanged") >= 0,
            let raw
        else { return }
        defer { sd_bus_message_unref(raw) }
        let message = BusMessage(raw: raw)
        var result = sd_bus_message_set_destination(raw, client.owner)
        if result >= 0 { result = message.append(Self.clientInterface) }
        if result >= 0 { result = sd_bus_message_open_container(raw, Self.code("a"), "{sv}") }
        for name in names where result >= 0 {
            guard let type = Self.clientPropertyTypes[name] else { continue }
            result = sd_bus_message_open_container(raw, Self.code("e"), "sv")
            if result >= 0 { result = message.append(name) }
            if result >= 0 { result = sd_bus_message_open_container(raw, Self.code("v"), type) }
            if result >= 0 { result = getClientProperty(name, at: client.path, into: message) }
            if result >= 0 { result = sd_bus_message_close_container(raw) }
            if result >= 0 { result = sd_bus_message_close_container(raw) }
        }
        if result >= 0 { result = sd_bus_message_close_container(raw) }
        if result >= 0 { result = sd_bus_message_open_container(raw, Self.code("a"), "s") }
        if result >= 0 { result = sd_bus_message_close_container(raw) }
        if result >= 0 { result = sd_bus_send(bus, raw, nil) }
        if result < 0 {
            logger.warning(
                "cannot send PropertiesChanged of \(client.path) to \(client.owner): \(BusFailure(doing: "", code: result))"
            )
        }
    }

    private static func code(_ type: Character) -> CChar { CChar(bitPattern: type.asciiValue ?? 0) }
}
