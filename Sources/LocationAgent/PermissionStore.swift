import CSdBus

#if canImport(Glibc)
import Glibc
#endif

/// The person's permission store on the session bus (`xdg-permission-store`, started on demand): its `location`
/// table read whole, followed through `Changed`, and written one app at a time (SEMANTICS N7–N13).
///
/// Every call is sent without waiting (`sd_bus_call_async`): the store is started by D-Bus activation, which may
/// take as long as the bus lets it, and the agent's one thread serves everything else meanwhile. What the replies
/// and signals say is kept in ``inbox`` until the shell takes it after ``SessionBus/process()``.
final class PermissionStore {
    static let name = "org.freedesktop.impl.portal.PermissionStore"
    static let path = "/org/freedesktop/impl/portal/PermissionStore"
    static let table = "location"
    static let id = "location"

    /// What the store said.
    enum Event: Equatable {
        /// The `location` table now: app id → its strings.
        case entries([String: [String]])
        /// The store went away (its owner left); a new one is read whole when it comes.
        case gone
        /// There is no store on this bus, nor one to start: `reason`.
        case absent(String)
        /// A write was refused: `reason`.
        case writeFailed(String)
    }

    final class Inbox {
        var events: [Event] = []
        /// The unique name of the store that answered the last read, the only sender whose `Changed` counts (N13).
        var owner: String?
        /// Whether a read should be sent: the store's owner changed.
        var readWanted = false
    }

    let inbox = Inbox()
    private let bus: SessionBus
    private var slots: [OpaquePointer] = []

    /// Listens for the store's name changing owner and for its `Changed`, and reads the table.
    init(bus: SessionBus) throws(AgentFailure) {
        self.bus = bus
        let context = Unmanaged.passUnretained(inbox).toOpaque()
        let rules = [
            "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.name)'",
            // N13: the sender is checked against the owner in the callback; anyone's signal reaches this rule.
            "type='signal',path='\(Self.path)',interface='\(Self.name)',member='Changed',arg0='\(Self.table)',"
                + "arg1='\(Self.id)'",
        ]
        for rule in rules {
            var slot: OpaquePointer?
            let result = sd_bus_add_match(bus.bus, &slot, rule, Self.received, context)
            guard result >= 0, let slot else { throw AgentFailure("cannot follow the permission store", code: result) }
            slots.append(slot)
        }
    }

    deinit {
        for slot in slots { sd_bus_slot_unref(slot) }
    }

    /// Asks for the whole table (`Lookup`); the answer comes as ``Event/entries(_:)``, and its sender becomes the
    /// owner whose `Changed` counts.
    func read() {
        inbox.readWanted = false
        send("Lookup", Self.looked) { writer in
            writer.string(Self.table)
            writer.string(Self.id)
        }
    }

    /// Writes `[level, lastUsed]` of `app` (`SetPermission`), or with `level` `nil` removes it (`DeletePermission`).
    func write(app: String, level: String?, lastUsed: String) {
        guard let level else {
            send("DeletePermission", Self.written) { writer in
                writer.string(Self.table)
                writer.string(Self.id)
                writer.string(app)
            }
            return
        }
        send("SetPermission", Self.written) { writer in
            writer.string(Self.table)
            writer.bool(true)
            writer.string(Self.id)
            writer.string(app)
            writer.open("a", "s")
            writer.string(level)
            writer.string(lastUsed)
            writer.close()
        }
    }

    /// Takes what the store said since the last call.
    func take() -> [Event] {
        if inbox.readWanted { read() }
        defer { inbox.events.removeAll() }
        return inbox.events
    }

    private func send(
        _ member: String,
        _ callback: sd_bus_message_handler_t,
        _ append: (MessageWriter) -> Void
    ) {
        var message: OpaquePointer?
        var result = sd_bus_message_new_method_call(bus.bus, &message, Self.name, Self.path, Self.name, member)
        guard result >= 0, let message else {
            inbox.events.append(.writeFailed("cannot call \(member): \(String(cString: strerror(-result)))"))
            return
        }
        defer { sd_bus_message_unref(message) }
        let writer = MessageWriter(message)
        append(writer)
        result = writer.result
        if result >= 0 {
            let context = Unmanaged.passUnretained(inbox).toOpaque()
            result = sd_bus_call_async(bus.bus, nil, message, callback, context, 0)
        }
        if result < 0 {
            inbox.events.append(.writeFailed("cannot call \(member): \(String(cString: strerror(-result)))"))
        }
    }

    /// `Lookup`'s reply: the table, from the store whose name it now follows, or why there is none.
    private static let looked: sd_bus_message_handler_t = { message, context, _ in
        guard let message, let context else { return 0 }
        let inbox = Unmanaged<Inbox>.fromOpaque(context).takeUnretainedValue()
        if let error = sd_bus_message_get_error(message) {
            let name = error.pointee.name.map { String(cString: $0) } ?? ""
            if name == "org.freedesktop.portal.Error.NotFound" {
                // The table has no `location` entry yet: an empty table of a store that runs.
                inbox.owner = sd_bus_message_get_sender(message).map { String(cString: $0) }
                inbox.events.append(.entries([:]))
            } else {
                let text = error.pointee.message.map { String(cString: $0) } ?? name
                inbox.events.append(.absent("\(name): \(text)"))
            }
            return 0
        }
        inbox.owner = sd_bus_message_get_sender(message).map { String(cString: $0) }
        inbox.events.append(.entries(readTable(message) ?? [:]))
        return 0
    }

    /// A write's reply: only a refusal is worth telling.
    private static let written: sd_bus_message_handler_t = { message, context, _ in
        guard let message, let context, let error = sd_bus_message_get_error(message) else { return 0 }
        let inbox = Unmanaged<Inbox>.fromOpaque(context).takeUnretainedValue()
        let name = error.pointee.name.map { String(cString: $0) } ?? "an error"
        let text = error.pointee.message.map { String(cString: $0) } ?? ""
        inbox.events.append(.writeFailed("\(name) \(text)"))
        return 0
    }

    /// The store's name changed owner, or the store said `Changed`.
    private static let received: sd_bus_message_handler_t = { message, context, _ in
        guard let message, let context else { return 0 }
        let inbox = Unmanaged<Inbox>.fromOpaque(context).takeUnretainedValue()
        let member = sd_bus_message_get_member(message).map { String(cString: $0) }
        let reader = MessageReader(message)
        if member == "NameOwnerChanged" {
            guard reader.string() == name, reader.string() != nil, let owner = reader.string() else { return 0 }
            if inbox.owner != nil {
                inbox.owner = nil
                inbox.events.append(.gone)
            }
            // N13: a store that comes (restarted, or started by another program) is read whole.
            if !owner.isEmpty { inbox.readWanted = true }
            return 0
        }
        let sender = sd_bus_message_get_sender(message).map { String(cString: $0) }
        guard member == "Changed", let sender, sender == inbox.owner else { return 0 }
        guard reader.string() == table, reader.string() == id else { return 0 }
        var deleted: Int32 = 0
        guard sd_bus_message_read_basic(message, code("b"), &deleted) > 0,
            sd_bus_message_skip(message, "v") >= 0
        else { return 0 }
        inbox.events.append(.entries(deleted != 0 ? [:] : readTable(message) ?? [:]))
        return 0
    }

    /// Reads an `a{sas}`: app id → its strings. `nil` when the message holds none there.
    private static func readTable(_ message: OpaquePointer) -> [String: [String]]? {
        guard sd_bus_message_enter_container(message, code("a"), "{sas}") > 0 else { return nil }
        var table: [String: [String]] = [:]
        let reader = MessageReader(message)
        while sd_bus_message_enter_container(message, code("e"), "sas") > 0 {
            guard let app = reader.string(), sd_bus_message_enter_container(message, code("a"), "s") > 0 else {
                return nil
            }
            var strings: [String] = []
            while let string = reader.string() { strings.append(string) }
            sd_bus_message_exit_container(message)
            sd_bus_message_exit_container(message)
            table[app] = strings
        }
        sd_bus_message_exit_container(message)
        return table
    }
}
