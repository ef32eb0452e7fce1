import BusVTable
import CSdBus

/// The three interfaces of GeoClue2 as Debian's `geoclue-2.0` ships their XML, as sd-bus vtables.
extension GeoClueService {
    static let managerMembers: [VTable.Member] = [
        .method("GetClient", signature: "", result: "o", names: ["client"], getClientCallback),
        .method("CreateClient", signature: "", result: "o", names: ["client"], createClientCallback),
        .method("DeleteClient", signature: "o", result: "", names: ["client"], deleteClientCallback),
        .method("AddAgent", signature: "s", result: "", names: ["id"], addAgentCallback),
        .property("InUse", signature: "b", managerGetter, flags: CSDBUS_VTABLE_PROPERTY_EMITS_CHANGE),
        .property(
            "AvailableAccuracyLevel",
            signature: "u",
            managerGetter,
            // Its value depends on the caller's uid (G12): a change is announced as invalidated, to be read again.
            flags: CSDBUS_VTABLE_PROPERTY_EMITS_INVALIDATION
        ),
    ]

    static let clientMembers: [VTable.Member] = [
        .property("Location", signature: "o", clientGetter, flags: CSDBUS_VTABLE_PROPERTY_EMITS_CHANGE),
        writable("DistanceThreshold", "u"),
        writable("TimeThreshold", "u"),
        writable("DesktopId", "s"),
        writable("RequestedAccuracyLevel", "u"),
        .property("Active", signature: "b", clientGetter, flags: CSDBUS_VTABLE_PROPERTY_EMITS_CHANGE),
        .method("Start", signature: "", result: "", names: [], startCallback),
        .method("Stop", signature: "", result: "", names: [], stopCallback),
        .signal("LocationUpdated", signature: "oo", names: ["old", "new"]),
    ]

    static let locationMembers: [VTable.Member] = [
        constant("Latitude", "d"), constant("Longitude", "d"), constant("Accuracy", "d"), constant("Altitude", "d"),
        constant("Speed", "d"), constant("Heading", "d"), constant("Description", "s"), constant("Timestamp", "(tt)"),
    ]

    private static func writable(_ name: String, _ signature: String) -> VTable.Member {
        .writableProperty(
            name,
            signature: signature,
            clientGetter,
            clientSetter,
            flags: CSDBUS_VTABLE_PROPERTY_EMITS_CHANGE
        )
    }

    private static func constant(_ name: String, _ signature: String) -> VTable.Member {
        .property(name, signature: signature, locationGetter, flags: CSDBUS_VTABLE_PROPERTY_CONST)
    }
}
