import BusVTable
import CSdBus
import LocationProtocol

#if canImport(Glibc)
import Glibc
#endif

/// The agent's `org.kde.StatusNotifierItem` on the session bus: the location icon in the tray while apps use location
/// (SEMANTICS N5), its status and tooltip the ``Indicator/TrayLook`` the core gives it.
///
/// It is exported at ``path`` once, whether or not a tray runs, and registered with each tray that appears; only the
/// registration tells a tray it exists. A click (`Activate`) becomes ``SessionBus/Signal/trayActivated``; the other
/// ways to use an item do nothing, since the item has no menu of its own.
final class TrayItem {
    static let path = "/StatusNotifierItem"
    static let interface = "org.kde.StatusNotifierItem"
    static let watcherName = "org.kde.StatusNotifierWatcher"
    private static let watcherPath = "/StatusNotifierWatcher"

    private let bus: SessionBus
    private let table = VTable(TrayItem.members)
    private var slot: OpaquePointer?
    private(set) var look = Indicator.TrayLook(.none)

    /// Exports the item on `bus`.
    init(bus: SessionBus) throws(AgentFailure) {
        self.bus = bus
        let result = sd_bus_add_object_vtable(
            bus.bus,
            &slot,
            Self.path,
            Self.interface,
            table.entries,
            Unmanaged.passUnretained(self).toOpaque()
        )
        guard result >= 0 else { throw AgentFailure("cannot export \(Self.path)", code: result) }
    }

    deinit { sd_bus_slot_unref(slot) }

    /// Registers the item with the tray under the connection's unique name, the item being at ``path`` as the
    /// specification expects. The answer comes as ``SessionBus/Signal/trayRegistered(failure:)``: a tray that asks
    /// the item for its properties before it answers would otherwise wait on the agent, and the agent on it.
    func register() throws(AgentFailure) {
        var name: UnsafePointer<CChar>?
        var result = sd_bus_get_unique_name(bus.bus, &name)
        guard result >= 0, let name else { throw AgentFailure("cannot read the bus's unique name", code: result) }
        var message: OpaquePointer?
        result = sd_bus_message_new_method_call(
            bus.bus,
            &message,
            Self.watcherName,
            Self.watcherPath,
            Self.watcherName,
            "RegisterStatusNotifierItem"
        )
        guard result >= 0, let message else { throw AgentFailure("cannot register the tray item", code: result) }
        defer { sd_bus_message_unref(message) }
        result = sd_bus_message_append_basic(message, code("s"), name)
        if result >= 0 {
            result = sd_bus_call_async(
                bus.bus,
                nil,
                message,
                Self.registeredCallback,
                Unmanaged.passUnretained(bus.inbox).toOpaque(),
                0
            )
        }
        guard result >= 0 else { throw AgentFailure("cannot register the tray item", code: result) }
    }

    /// Gives the item `look`, and tells the tray what changed.
    func show(_ look: Indicator.TrayLook) {
        let old = self.look
        self.look = look
        if look.status != old.status { emit("NewStatus") { $0.string(look.status) } }
        if look.text != old.text { emit("NewToolTip") { _ in } }
    }

    private func emit(_ member: String, _ append: (MessageWriter) -> Void) {
        var message: OpaquePointer?
        guard sd_bus_message_new_signal(bus.bus, &message, Self.path, Self.interface, member) >= 0, let message
        else { return }
        defer { sd_bus_message_unref(message) }
        let writer = MessageWriter(message)
        append(writer)
        if writer.result >= 0 { sd_bus_send(bus.bus, message, nil) }
    }

    /// The value of `property`, appended to `reply`.
    private func append(_ property: String, to reply: OpaquePointer) -> Int32 {
        let writer = MessageWriter(reply)
        switch property {
        case "Category": writer.string("SystemServices")
        case "Id": writer.string(BusName.agent)
        case "Title": writer.string(Indicator.TrayLook.title)
        case "Status": writer.string(look.status)
        case "IconName", "AttentionIconName": writer.string(Notification.indicatorIcon)
        case "ItemIsMenu": writer.bool(false)
        case "WindowId": writer.int32(0)
        case "ToolTip":
            // (icon name, icon pixmaps a(iiay), title, text): no pixmaps, the theme's icon by name.
            writer.open("r", "sa(iiay)ss")
            writer.string(Notification.indicatorIcon)
            writer.open("a", "(iiay)")
            writer.close()
            writer.string(Indicator.TrayLook.title)
            writer.string(Notification.escaped(look.text))
            writer.close()
        default: return -ENOENT
        }
        return writer.result
    }

    private static func property(_ name: String, _ signature: String) -> VTable.Member {
        .property(name, signature: signature, getter, flags: 0)
    }

    private static let members: [VTable.Member] = [
        property("Category", "s"), property("Id", "s"), property("Title", "s"), property("Status", "s"),
        property("IconName", "s"), property("AttentionIconName", "s"), property("ToolTip", "(sa(iiay)ss)"),
        property("ItemIsMenu", "b"), property("WindowId", "i"),
        .method("Activate", signature: "ii", result: "", names: ["x", "y"], activateCallback),
        .method("SecondaryActivate", signature: "ii", result: "", names: ["x", "y"], ignoredCallback),
        .method("ContextMenu", signature: "ii", result: "", names: ["x", "y"], ignoredCallback),
        .method("Scroll", signature: "is", result: "", names: ["delta", "orientation"], ignoredCallback),
        .signal("NewTitle", signature: "", names: []), .signal("NewIcon", signature: "", names: []),
        .signal("NewAttentionIcon", signature: "", names: []), .signal("NewToolTip", signature: "", names: []),
        .signal("NewStatus", signature: "s", names: ["status"]),
    ]

    private static let getter: sd_bus_property_get_t = { _, _, _, property, reply, userdata, _ in
        guard let userdata, let reply else { return -EINVAL }
        let item = Unmanaged<TrayItem>.fromOpaque(userdata).takeUnretainedValue()
        return item.append(property.map { String(cString: $0) } ?? "", to: reply)
    }

    private static let activateCallback: sd_bus_message_handler_t = { message, userdata, _ in
        guard let userdata, let message else { return -EINVAL }
        Unmanaged<TrayItem>.fromOpaque(userdata).takeUnretainedValue().bus.inbox.signals.append(.trayActivated)
        return csdbus_reply_empty(message)
    }

    private static let ignoredCallback: sd_bus_message_handler_t = { message, _, _ in
        guard let message else { return -EINVAL }
        return csdbus_reply_empty(message)
    }

    private static let registeredCallback: sd_bus_message_handler_t = { reply, userdata, _ in
        guard let reply, let userdata else { return 0 }
        let error = sd_bus_message_get_error(reply)
        let failure = error.flatMap { $0.pointee.name }.map { name in
            String(cString: name) + (error?.pointee.message.map { ": " + String(cString: $0) } ?? "")
        }
        Unmanaged<SessionBus.Inbox>.fromOpaque(userdata).takeUnretainedValue().signals.append(
            .trayRegistered(failure: failure)
        )
        return 0
    }
}
