import CSdBus
import LocationProtocol

#if canImport(Glibc)
import Glibc
#endif

/// The person's session bus, as the agent uses it: its name `io.locd.Agent` (N1), the calls of
/// `org.freedesktop.Notifications`, and the signals that tell what became of the notifications, of the server and of
/// the tray (N5) and of GNOME Shell (N6).
///
/// Calls wait for their reply (a notification server answers at once, or is started by D-Bus activation) for at most
/// ``callTimeout``; signals that arrive meanwhile are kept by sd-bus and read by the next ``process()``. One thread
/// uses it: sd-bus is not thread-safe.
final class SessionBus {
    /// How long a call waits for its reply, in microseconds: 5 s, not the bus's 25 s, since the agent's one thread
    /// answers nobody meanwhile (N4).
    static let callTimeout: UInt64 = 5_000_000

    /// A signal the agent listens for.
    enum Signal: Equatable {
        case actionInvoked(notification: UInt32, key: String)
        case notificationClosed(UInt32)
        /// `org.freedesktop.Notifications` changed owner; `owned` whether someone has it now, `replaced` whether
        /// someone had it before.
        case serverChanged(owned: Bool, replaced: Bool)
        /// `org.kde.StatusNotifierWatcher`, the tray, changed owner; `owned` whether someone has it now.
        case trayChanged(owned: Bool)
        /// The person activated the tray item (``TrayItem``).
        case trayActivated
        /// The tray answered `RegisterStatusNotifierItem`: `failure` says why it refused, `nil` when it took it.
        case trayRegistered(failure: String?)
        /// ``SessionBus/desktopDialogName`` changed owner; `owned` whether someone has it now.
        case desktopDialogChanged(owned: Bool)
    }

    /// Where the signal callbacks put what they read, until ``process()`` takes it.
    final class Inbox {
        var signals: [Signal] = []
        /// The unique name that owns ``SessionBus/serverName`` now, the only sender whose `ActionInvoked` and
        /// `NotificationClosed` count (N3); `nil` while nobody owns it.
        var serverOwner: String?
        /// Whether ``serverOwner`` changed since the server's match rules were last made.
        var serverOwnerChanged = false
    }

    static let agentName = BusName.agent
    static let serverName = "org.freedesktop.Notifications"
    private static let serverPath = "/org/freedesktop/Notifications"
    /// GNOME Shell's name: its owner is a GeoClue agent that asks in dialogs of its own (N6).
    static let desktopDialogName = "org.gnome.Shell"

    let bus: OpaquePointer
    let inbox = Inbox()
    /// The match rules of the server's signals, made for ``Inbox/serverOwner`` (N3); replaced when it changes.
    private var serverSlots: [OpaquePointer] = []

    /// Connects to the session bus: `DBUS_SESSION_BUS_ADDRESS` when set, else the user's own
    /// (`$XDG_RUNTIME_DIR/bus`).
    init() throws(AgentFailure) {
        var opened: OpaquePointer?
        let result = sd_bus_open_user(&opened)
        guard result >= 0, let opened else { throw AgentFailure("cannot connect to the session bus", code: result) }
        bus = opened
    }

    deinit {
        for slot in serverSlots { sd_bus_slot_unref(slot) }
        sd_bus_flush_close_unref(bus)
    }

    /// Takes ``agentName``; `false` when another connection has it (N1: another agent of this session runs).
    func takeAgentName() throws(AgentFailure) -> Bool {
        let result = sd_bus_request_name(bus, Self.agentName, 0)
        if result == -EEXIST { return false }
        guard result >= 0 else { throw AgentFailure("cannot own \(Self.agentName)", code: result) }
        return true
    }

    /// Listens for changes of the server's owner, of the tray's and of GNOME Shell's, and for the server's
    /// `ActionInvoked` and `NotificationClosed` from its owner alone (N3).
    func listen() throws(AgentFailure) {
        // The owner's changes first, so that an owner that comes between them and `GetNameOwner` is not missed.
        let rules = [
            "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.serverName)'",
            "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(TrayItem.watcherName)'",
            "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.desktopDialogName)'",
        ]
        for rule in rules {
            let result = sd_bus_add_match(bus, nil, rule, Self.received, Unmanaged.passUnretained(inbox).toOpaque())
            guard result >= 0 else { throw AgentFailure("cannot listen for notification signals", code: result) }
        }
        inbox.serverOwner = owner(of: Self.serverName)
        try followServer()
    }

    /// Makes the match rules of the server's signals again for ``Inbox/serverOwner`` (N3): `sender=` its unique
    /// name, none while nobody owns the name. The old owner's rules are removed.
    private func followServer() throws(AgentFailure) {
        inbox.serverOwnerChanged = false
        for slot in serverSlots { sd_bus_slot_unref(slot) }
        serverSlots = []
        guard let owner = inbox.serverOwner else { return }
        for member in ["ActionInvoked", "NotificationClosed"] {
            let rule =
                "type='signal',sender='\(owner)',path='\(Self.serverPath)',interface='\(Self.serverName)',"
                + "member='\(member)'"
            var slot: OpaquePointer?
            let context = Unmanaged.passUnretained(inbox).toOpaque()
            let result = sd_bus_add_match(bus, &slot, rule, Self.received, context)
            guard result >= 0, let slot else {
                throw AgentFailure("cannot listen for notification signals", code: result)
            }
            serverSlots.append(slot)
        }
    }

    /// The callback of every match: the signal, if it is one the agent takes, goes to the ``Inbox``.
    private static let received: sd_bus_message_handler_t = { message, context, _ in
        guard let message, let context else { return 0 }
        let inbox = Unmanaged<Inbox>.fromOpaque(context).takeUnretainedValue()
        if let signal = SessionBus.signal(in: message, inbox: inbox) { inbox.signals.append(signal) }
        return 0
    }

    /// The signal `message` is, if it is one of those the agent listens for. The server's own signals count only
    /// from its owner (N3): anyone on the bus may emit them, or send them to the agent alone.
    private static func signal(in message: OpaquePointer, inbox: Inbox) -> Signal? {
        let member = sd_bus_message_get_member(message).map { String(cString: $0) }
        let reader = MessageReader(message)
        switch member {
        case "ActionInvoked", "NotificationClosed":
            let sender = sd_bus_message_get_sender(message).map { String(cString: $0) }
            guard let sender, sender == inbox.serverOwner else { return nil }
            if member == "NotificationClosed" { return reader.uint32().map(Signal.notificationClosed) }
            guard let id = reader.uint32(), let key = reader.string() else { return nil }
            return .actionInvoked(notification: id, key: key)
        case "NameOwnerChanged":
            let name = reader.string()
            guard let previous = reader.string(), let owner = reader.string() else { return nil }
            switch name {
            case serverName:
                inbox.serverOwner = owner.isEmpty ? nil : owner
                inbox.serverOwnerChanged = true
                return .serverChanged(owned: !owner.isEmpty, replaced: !previous.isEmpty)
            case TrayItem.watcherName: return .trayChanged(owned: !owner.isEmpty)
            case desktopDialogName: return .desktopDialogChanged(owned: !owner.isEmpty)
            default: return nil
            }
        default:
            return nil
        }
    }

    /// Reads and dispatches what the bus has, sends what waits to be sent, and returns the signals read.
    func process() throws(AgentFailure) -> [Signal] {
        while true {
            let result = sd_bus_process(bus, nil)
            guard result >= 0 else { throw AgentFailure("the session bus failed", code: result) }
            // N3: a new owner's signals are taken from before the next message is read.
            if inbox.serverOwnerChanged { try followServer() }
            if result == 0 { break }
        }
        defer { inbox.signals.removeAll() }
        return inbox.signals
    }

    /// What to wait for before ``process()`` has more to do: the descriptor, its poll events, and sd-bus's own
    /// deadline in milliseconds from now (-1: none).
    func pollRequest() throws(AgentFailure) -> (pollfd, Int32) {
        let events = sd_bus_get_events(bus)
        guard events >= 0 else { throw AgentFailure("the session bus failed", code: events) }
        var deadline: UInt64 = 0
        var milliseconds: Int32 = -1
        if sd_bus_get_timeout(bus, &deadline) > 0, deadline != UInt64.max {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let current = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
            milliseconds = deadline > current ? Int32(clamping: (deadline - current) / 1000 + 1) : 0
        }
        return (pollfd(fd: sd_bus_get_fd(bus), events: Int16(events), revents: 0), milliseconds)
    }

    /// The server's capabilities; `nil` when nobody serves `org.freedesktop.Notifications`, nor can be started.
    func capabilities() -> [String]? {
        guard let reply = try? call("GetCapabilities", { _ in 0 }) else { return nil }
        defer { sd_bus_message_unref(reply) }
        guard sd_bus_message_enter_container(reply, code("a"), "s") > 0 else { return nil }
        var found: [String] = []
        let reader = MessageReader(reply)
        while let capability = reader.string() { found.append(capability) }
        return found
    }

    /// Shows `notification` and returns the server's id for it.
    func notify(_ notification: Notification) throws(AgentFailure) -> UInt32 {
        let reply = try call("Notify") { message in
            let writer = MessageWriter(message)
            writer.string(Notification.appName)
            writer.uint32(notification.replacesID)
            writer.string(notification.appIcon)
            writer.string(notification.summary)
            writer.string(notification.body)
            writer.open("a", "s")
            for action in notification.actions {
                writer.string(action.key)
                writer.string(action.label)
            }
            writer.close()
            writer.open("a", "{sv}")
            writer.hint("urgency", "y") { writer.byte(notification.urgency) }
            writer.hint("resident", "b") { writer.bool(notification.resident) }
            if let entry = notification.desktopEntry { writer.hint("desktop-entry", "s") { writer.string(entry) } }
            if let image = notification.imagePath { writer.hint("image-path", "s") { writer.string(image) } }
            writer.close()
            writer.int32(notification.expireTimeout)
            return writer.result
        }
        defer { sd_bus_message_unref(reply) }
        guard let id = MessageReader(reply).uint32() else {
            throw AgentFailure("Notify answered no id", code: -EBADMSG)
        }
        return id
    }

    /// Closes notification `id`; one the server no longer has is no error worth telling.
    func closeNotification(_ id: UInt32) {
        if let reply = try? call("CloseNotification", { MessageWriter($0).uint32(id) }) {
            sd_bus_message_unref(reply)
        }
    }

    /// The unique name of the connection that owns `name` now (`GetNameOwner`); `nil` when nobody does.
    func owner(of name: String) -> String? {
        guard let reply = askBus("GetNameOwner", about: name) else { return nil }
        defer { sd_bus_message_unref(reply) }
        return MessageReader(reply).string()
    }

    /// Whether a connection owns `name` now (`NameHasOwner`); `false` when the bus cannot say.
    func hasOwner(_ name: String) -> Bool {
        guard let reply = askBus("NameHasOwner", about: name) else { return false }
        defer { sd_bus_message_unref(reply) }
        var owned: Int32 = 0
        return sd_bus_message_read_basic(reply, code("b"), &owned) > 0 && owned != 0
    }

    /// The bus's own reply to `member(name)` of `org.freedesktop.DBus`, to be unref'd; `nil` when it answers an error.
    private func askBus(_ member: String, about name: String) -> OpaquePointer? {
        try? call(
            member,
            of: "org.freedesktop.DBus",
            path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus"
        ) { message in
            let writer = MessageWriter(message)
            writer.string(name)
            return writer.result
        }
    }

    /// Calls `member` of the notification server, or of `destination`, with the arguments `append` writes, and
    /// returns the reply, which the caller unreferences.
    private func call(
        _ member: String,
        of destination: String = serverName,
        path: String = serverPath,
        interface: String = serverName,
        _ append: (OpaquePointer) -> Int32
    ) throws(AgentFailure) -> OpaquePointer {
        var message: OpaquePointer?
        var result = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard result >= 0, let message else { throw AgentFailure("cannot call \(member)", code: result) }
        defer { sd_bus_message_unref(message) }
        result = append(message)
        guard result >= 0 else { throw AgentFailure("cannot call \(member)", code: result) }
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        result = sd_bus_call(bus, message, Self.callTimeout, &error, &reply)
        guard result >= 0, let reply else {
            let name = error.name.map { String(cString: $0) }
            throw AgentFailure("\(interface).\(member) failed\(name.map { ": \($0)" } ?? "")", code: result)
        }
        return reply
    }
}

/// Reads basic values of a message in order.
struct MessageReader {
    let message: OpaquePointer

    init(_ message: OpaquePointer) { self.message = message }

    func string() -> String? {
        var value: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(message, code("s"), &value) > 0, let value else { return nil }
        return String(cString: value)
    }

    func uint32() -> UInt32? {
        var value: UInt32 = 0
        return sd_bus_message_read_basic(message, code("u"), &value) > 0 ? value : nil
    }
}

/// Appends values to a message, keeping the first failure in ``result``.
final class MessageWriter {
    let message: OpaquePointer
    private(set) var result: Int32 = 0

    init(_ message: OpaquePointer) { self.message = message }

    private func step(_ body: () -> Int32) {
        if result >= 0 { result = body() }
    }

    func string(_ value: String) {
        step { value.withCString { sd_bus_message_append_basic(message, code("s"), $0) } }
    }

    @discardableResult
    func uint32(_ value: UInt32) -> Int32 {
        var copy = value
        step { sd_bus_message_append_basic(message, code("u"), &copy) }
        return result
    }

    func int32(_ value: Int32) {
        var copy = value
        step { sd_bus_message_append_basic(message, code("i"), &copy) }
    }

    func byte(_ value: UInt8) {
        var copy = value
        step { sd_bus_message_append_basic(message, code("y"), &copy) }
    }

    func bool(_ value: Bool) {
        var copy: Int32 = value ? 1 : 0
        step { sd_bus_message_append_basic(message, code("b"), &copy) }
    }

    func open(_ type: Character, _ contents: String) {
        step { sd_bus_message_open_container(message, code(type), contents) }
    }

    func close() {
        step { sd_bus_message_close_container(message) }
    }

    /// One `{sv}` entry of the hints, whose value `append` writes as `signature`.
    func hint(_ key: String, _ signature: String, _ append: () -> Void) {
        open("e", "sv")
        string(key)
        open("v", signature)
        append()
        close()
        close()
    }
}

func code(_ character: Character) -> CChar { CChar(bitPattern: character.asciiValue ?? 0) }

/// A call or setup that failed: what was being done, and the errno-style code sd-bus answered.
package struct AgentFailure: Error, CustomStringConvertible {
    var doing: String
    var code: Int32

    init(_ doing: String, code: Int32) {
        self.doing = doing
        self.code = code
    }

    package var description: String { code == 0 ? doing : "\(doing): \(String(cString: strerror(-code)))" }
}
