import CSdBus
import LocationProtocol

#if canImport(Glibc)
import Glibc
#endif

/// KWin, read through the script the project ships (`locd/kwin/desktop-source.js`, SEMANTICS L18) on a session bus
/// connection of the source's own, which owns ``serviceName``: the source loads the script into KWin
/// (`org.kde.kwin.Scripting.loadScript`, then `run`), and the script calls `Report(picture)` on it at each change. A
/// report counts from the unique name that owns `org.kde.KWin` alone; the script is unloaded when the source ends.
package final class KWinSource: DesktopSource {
    static let kwinName = "org.kde.KWin"
    /// KWin's screen locker's name, which KWin's own connection owns where it locks the screen.
    static let lockerName = "org.freedesktop.ScreenSaver"
    static let serviceName = BusName.agentDesktop
    static let path = "/io/locd/DesktopSource"
    static let interface = BusName.desktopSourceInterface
    static let pluginName = "locd-desktop-source"
    /// Where the script is installed, under each of `XDG_DATA_DIRS`.
    static let scriptRelativePath = "locd/kwin/desktop-source.js"
    /// How long a call to KWin waits, in microseconds: loading the script at start, unloading it at the end.
    static let callTimeout: UInt64 = 5_000_000

    /// What the callbacks read, until ``readable()`` takes it.
    final class Inbox {
        /// The unique name that owns `org.kde.KWin`, the only caller whose reports count; `nil` while nobody does.
        var owner: String?
        /// Whether `org.kde.KWin` changed owner since the last ``readable()``.
        var ownerChanged = false
        var picture: String?
        /// The id KWin loaded the script as, until it is run.
        var loadedID: Int32?
        /// Whether the script is being run at the later versions' path, and whether the first path failed.
        var runningSecond = false
        var runID: Int32?
        /// Whether the old script's unloading was answered, so the script is loaded now; whether KWin refused to load
        /// it since one of its name was still there.
        var loadDue = false
        var loadRefused = false
        var retryRun = false
        var failure: DesktopSourceFailure?
        /// Whether KWin's screen locker is active, as KWin's own connection said.
        var locked = false
    }

    package let name = "kwin"
    package var descriptor: Int32 { sd_bus_get_fd(bus) }
    private let bus: OpaquePointer
    private let scriptPath: String
    private let inbox = Inbox()
    private var reported: DesktopPicture?
    /// The script's newest picture, whose lock state the screen locker's word replaces.
    private var newest: DesktopPicture?
    private var loaded = false
    private var loadAttempts = 0

    /// Connects to the session bus at `address` (the user's own when `nil`), takes ``serviceName``, and loads the
    /// script at `scriptPath` into KWin.
    /// - Throws: ``DesktopSourceFailure`` when the bus, the name, KWin or the script cannot be had.
    package init(address: String? = nil, scriptPath: String) throws(DesktopSourceFailure) {
        bus = try DesktopBus.open(address: address)
        self.scriptPath = scriptPath
        do {
            try listen()
            try load()
        } catch {
            sd_bus_flush_close_unref(bus)
            throw error
        }
    }

    deinit {
        if loaded { unload() }
        sd_bus_flush_close_unref(bus)
    }

    /// The script's path: the first `locd/kwin/desktop-source.js` of `XDG_DATA_DIRS` (`/usr/local/share:/usr/share`
    /// when unset) that exists; the last place looked at when none does.
    package static func scriptPath(environment: [String: String]) -> String {
        let directories =
            (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map(String.init)
        let candidates = directories.map { $0 + "/" + scriptRelativePath }
        return candidates.first { access($0, R_OK) == 0 } ?? candidates.last ?? "/usr/share/" + scriptRelativePath
    }

    package func readable() throws(DesktopSourceFailure) -> DesktopPicture? {
        while true {
            let result = sd_bus_process(bus, nil)
            guard result >= 0 else { throw DesktopSourceFailure("the session bus failed") }
            if result == 0 { break }
        }
        if let failure = inbox.failure { throw failure }
        if inbox.loadDue {
            inbox.loadDue = false
            try loadScript()
        }
        if inbox.loadRefused {
            inbox.loadRefused = false
            try unloadThenLoad()
        }
        if let id = inbox.loadedID {
            inbox.loadedID = nil
            try run(id, second: false)
        }
        if inbox.retryRun, let id = inbox.runID {
            inbox.retryRun = false
            try run(id, second: true)
        }
        if inbox.ownerChanged {
            inbox.ownerChanged = false
            inbox.picture = nil
            guard inbox.owner != nil else { throw DesktopSourceFailure("KWin left the session bus") }
            try load()
        }
        sd_bus_flush(bus)
        if let text = inbox.picture {
            inbox.picture = nil
            guard let picture = GnomeShellSource.picture(text) else {
                throw DesktopSourceFailure("KWin's script \(Self.pluginName) said what cannot be read")
            }
            newest = picture
        }
        guard var picture = newest else { return nil }
        picture.locked = inbox.locked
        guard picture != reported else { return nil }
        reported = picture
        return picture
    }

    /// Takes ``serviceName``, exports ``path`` and follows `org.kde.KWin`'s owner; nothing has called yet.
    private func listen() throws(DesktopSourceFailure) {
        let taken = sd_bus_request_name(bus, Self.serviceName, 0)
        guard taken >= 0 else {
            throw DesktopSourceFailure(
                taken == -EEXIST
                    ? "another program owns \(Self.serviceName) on the session bus"
                    : "cannot own \(Self.serviceName): \(String(cString: strerror(-taken)))"
            )
        }
        let context = Unmanaged.passUnretained(inbox).toOpaque()
        let rule =
            "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',"
            + "member='NameOwnerChanged',arg0='\(Self.kwinName)'"
        let locker = "type='signal',interface='\(Self.lockerName)',member='ActiveChanged'"
        guard sd_bus_add_match(bus, nil, rule, Self.ownerChanged, context) >= 0,
            sd_bus_add_match(bus, nil, locker, Self.lockerChanged, context) >= 0,
            sd_bus_add_object(bus, nil, Self.path, Self.called, context) >= 0
        else { throw DesktopSourceFailure("cannot listen on the session bus") }
    }

    /// Learns `org.kde.KWin`'s owner, then loads the script into KWin (one left by an agent that ended without
    /// unloading it is unloaded first) and runs it, all without waiting: the answers come through ``readable()``,
    /// the owner's first, since the bus itself answers it before KWin has the script.
    private func load() throws(DesktopSourceFailure) {
        try send(
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus",
            "GetNameOwner",
            [Self.kwinName]
        ) { message, context, _ in
            guard let message, let context, sd_bus_message_get_error(message) == nil else { return 0 }
            Unmanaged<Inbox>.fromOpaque(context).takeUnretainedValue().owner = MessageReader(message).string()
            return 0
        }
        try send(Self.lockerName, "/ScreenSaver", Self.lockerName, "GetActive", []) { message, context, _ in
            guard let message, let context, sd_bus_message_get_error(message) == nil else { return 0 }
            KWinSource.lockerSaid(message, Unmanaged<Inbox>.fromOpaque(context).takeUnretainedValue())
            return 0
        }
        loadAttempts = 0
        try unloadThenLoad()
        loaded = true
    }

    /// Unloads a script of the plugin's name, then, once KWin answered (KWin drops an unloaded script after its
    /// answer), loads the script again.
    private func unloadThenLoad() throws(DesktopSourceFailure) {
        loadAttempts += 1
        guard loadAttempts <= 3 else {
            throw DesktopSourceFailure("KWin keeps a script named \(Self.pluginName) that it does not unload")
        }
        try send(Self.kwinName, "/Scripting", "org.kde.kwin.Scripting", "unloadScript", [Self.pluginName]) {
            _,
            context,
            _ in
            guard let context else { return 0 }
            Unmanaged<Inbox>.fromOpaque(context).takeUnretainedValue().loadDue = true
            return 0
        }
    }

    /// Loads the script into KWin; its answer gives the id to run, or says a script of that name is still loaded.
    private func loadScript() throws(DesktopSourceFailure) {
        try send(Self.kwinName, "/Scripting", "org.kde.kwin.Scripting", "loadScript", [scriptPath, Self.pluginName]) {
            message,
            context,
            _ in
            guard let message, let context else { return 0 }
            let inbox = Unmanaged<Inbox>.fromOpaque(context).takeUnretainedValue()
            var id: Int32 = -1
            if let error = sd_bus_message_get_error(message) {
                let name = error.pointee.name.map { String(cString: $0) } ?? "no answer"
                inbox.failure = DesktopSourceFailure("KWin did not load locd's script (\(name)): is KWin running?")
            } else if sd_bus_message_read_basic(message, code("i"), &id) <= 0 {
                inbox.failure = DesktopSourceFailure("KWin answered loadScript with no id")
            } else if id < 0 {
                inbox.loadRefused = true
            } else {
                inbox.loadedID = id
            }
            return 0
        }
    }

    /// Runs the script KWin loaded as `id`: at `/<id>` (KWin 5.27), else at `/Scripting/Script<id>` (later versions).
    private func run(_ id: Int32, second: Bool) throws(DesktopSourceFailure) {
        let path = second ? "/Scripting/Script\(id)" : "/\(id)"
        inbox.runningSecond = second
        inbox.runID = id
        try send(Self.kwinName, path, "org.kde.kwin.Script", "run", []) { message, context, _ in
            guard let message, let context, sd_bus_message_get_error(message) != nil else { return 0 }
            let inbox = Unmanaged<Inbox>.fromOpaque(context).takeUnretainedValue()
            if inbox.runningSecond {
                inbox.failure = DesktopSourceFailure("KWin did not run locd's script")
            } else {
                inbox.retryRun = true
            }
            return 0
        }
    }

    /// Unloads the script from KWin, waiting at most ``callTimeout``; one that is not loaded is no error worth telling.
    private func unload() {
        var message: OpaquePointer?
        guard
            sd_bus_message_new_method_call(
                bus,
                &message,
                Self.kwinName,
                "/Scripting",
                "org.kde.kwin.Scripting",
                "unloadScript"
            ) >= 0, let message
        else { return }
        defer { sd_bus_message_unref(message) }
        let writer = MessageWriter(message)
        writer.string(Self.pluginName)
        var reply: OpaquePointer?
        if writer.result >= 0, sd_bus_call(bus, message, Self.callTimeout, nil, &reply) >= 0, let reply {
            sd_bus_message_unref(reply)
        }
        loaded = false
    }

    /// Sends `member` with the string `arguments`, without waiting; `answered` reads the reply (none: no reply wanted).
    private func send(
        _ destination: String,
        _ path: String,
        _ interface: String,
        _ member: String,
        _ arguments: [String],
        _ answered: sd_bus_message_handler_t?
    ) throws(DesktopSourceFailure) {
        var message: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &message, destination, path, interface, member) >= 0, let message
        else { throw DesktopSourceFailure("cannot call \(interface).\(member)") }
        defer { sd_bus_message_unref(message) }
        sd_bus_message_set_auto_start(message, 0)
        let writer = MessageWriter(message)
        for argument in arguments { writer.string(argument) }
        let context = Unmanaged.passUnretained(inbox).toOpaque()
        let result =
            writer.result < 0
            ? writer.result
            : answered.map { sd_bus_call_async(bus, nil, message, $0, context, Self.callTimeout) }
                ?? sd_bus_send(bus, message, nil)
        guard result >= 0 else { throw DesktopSourceFailure("cannot call \(interface).\(member)") }
    }

    /// The screen locker said whether it is active: believed from KWin's own connection alone (L18).
    private static func lockerSaid(_ message: OpaquePointer, _ inbox: Inbox) {
        let sender = sd_bus_message_get_sender(message).map { String(cString: $0) }
        var active: Int32 = 0
        guard let sender, sender == inbox.owner, sd_bus_message_read_basic(message, code("b"), &active) > 0 else {
            return
        }
        inbox.locked = active != 0
    }

    /// `ActiveChanged` of the screen locker, from anyone: ``lockerSaid(_:_:)`` takes KWin's alone.
    private static let lockerChanged: sd_bus_message_handler_t = { message, context, _ in
        guard let message, let context else { return 0 }
        lockerSaid(message, Unmanaged<Inbox>.fromOpaque(context).takeUnretainedValue())
        return 0
    }

    /// `org.kde.KWin` changed owner: KWin stopped, or another started.
    private static let ownerChanged: sd_bus_message_handler_t = { message, context, _ in
        guard let message, let context,
            sd_bus_message_get_sender(message).map({ String(cString: $0) }) == "org.freedesktop.DBus"
        else { return 0 }
        let inbox = Unmanaged<Inbox>.fromOpaque(context).takeUnretainedValue()
        let reader = MessageReader(message)
        guard reader.string() == kwinName, reader.string() != nil, let owner = reader.string() else { return 0 }
        inbox.owner = owner.isEmpty ? nil : owner
        inbox.ownerChanged = true
        return 0
    }

    /// A call on ``path``: `Report(picture)` counts from KWin's unique name alone (L18); anyone else is refused.
    private static let called: sd_bus_message_handler_t = { message, context, _ in
        guard let message, let context, sd_bus_message_is_method_call(message, nil, nil) > 0 else { return 0 }
        let inbox = Unmanaged<Inbox>.fromOpaque(context).takeUnretainedValue()
        guard sd_bus_message_is_method_call(message, interface, "Report") > 0 else {
            return csdbus_reply_error(message, "org.freedesktop.DBus.Error.UnknownMethod", "only Report is here")
        }
        let sender = sd_bus_message_get_sender(message).map { String(cString: $0) }
        guard let sender, sender == inbox.owner, !inbox.ownerChanged else {
            return csdbus_reply_error(
                message,
                "org.freedesktop.DBus.Error.AccessDenied",
                "only KWin, the owner of \(kwinName), reports what it shows"
            )
        }
        guard let text = MessageReader(message).string() else {
            return csdbus_reply_error(message, "org.freedesktop.DBus.Error.InvalidArgs", "Report takes one string")
        }
        inbox.picture = text
        return csdbus_reply_empty(message)
    }
}
