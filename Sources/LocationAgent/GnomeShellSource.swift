import CSdBus
import JSON
import LocationProtocol

#if canImport(Glibc)
import Glibc
#endif

/// GNOME Shell, read through the extension the project ships (`desktop-source@locd.io`, SEMANTICS L16) on a session
/// bus connection of the source's own: `GetPicture` once, asked of `org.gnome.Shell` without waiting, then each
/// `PictureChanged` signal from the unique name that owns `org.gnome.Shell`, and from no other sender.
package final class GnomeShellSource: DesktopSource {
    static let shellName = "org.gnome.Shell"
    static let path = "/io/locd/DesktopSource"
    static let interface = BusName.desktopSourceInterface
    static let extensionUUID = "desktop-source@locd.io"
    /// The longest picture read: a bound on what the shell's signal costs the agent (RELIABILITY).
    static let maximumPictureBytes = 1 << 20

    /// What the callbacks read, until ``readable()`` takes it.
    final class Inbox {
        /// The unique name of the shell, taken from its answer to `GetPicture`; `nil` until it answered.
        var owner: String?
        /// Whether `org.gnome.Shell` changed owner since the last ``readable()``; `newOwner` the new one.
        var ownerChanged = false
        var newOwner: String?
        var picture: String?
        var failure: DesktopSourceFailure?
    }

    package let name = "gnome-shell"
    package var descriptor: Int32 { sd_bus_get_fd(bus) }
    private let bus: OpaquePointer
    private let inbox = Inbox()
    private var reported: DesktopPicture?

    /// Connects to the session bus at `address` (`DBUS_SESSION_BUS_ADDRESS`, else the user's own, when `nil`) and asks
    /// the shell for its picture.
    /// - Throws: ``DesktopSourceFailure`` when the session bus cannot be reached.
    package init(address: String? = nil) throws(DesktopSourceFailure) {
        bus = try DesktopBus.open(address: address)
        let context = Unmanaged.passUnretained(inbox).toOpaque()
        let rules = [
            "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',"
                + "member='NameOwnerChanged',arg0='\(Self.shellName)'",
            "type='signal',path='\(Self.path)',interface='\(Self.interface)',member='PictureChanged'",
        ]
        for rule in rules where sd_bus_add_match(bus, nil, rule, Self.signalled, context) < 0 {
            sd_bus_flush_close_unref(bus)
            throw DesktopSourceFailure("cannot listen on the session bus")
        }
        askForPicture()
    }

    deinit {
        sd_bus_flush_close_unref(bus)
    }

    package func readable() throws(DesktopSourceFailure) -> DesktopPicture? {
        while true {
            let result = sd_bus_process(bus, nil)
            guard result >= 0 else { throw DesktopSourceFailure("the session bus failed") }
            if result == 0 { break }
        }
        if let failure = inbox.failure { throw failure }
        if inbox.ownerChanged {
            inbox.ownerChanged = false
            inbox.owner = nil
            guard inbox.newOwner != nil else { throw DesktopSourceFailure("GNOME Shell left the session bus") }
            askForPicture()
        }
        guard let text = inbox.picture else { return nil }
        inbox.picture = nil
        guard let picture = Self.picture(text) else {
            throw DesktopSourceFailure("GNOME Shell's extension \(Self.extensionUUID) said what cannot be read")
        }
        guard picture != reported else { return nil }
        reported = picture
        return picture
    }

    /// Asks `org.gnome.Shell` for its picture, without waiting: its answer names its unique name too.
    private func askForPicture() {
        var message: OpaquePointer?
        guard
            sd_bus_message_new_method_call(bus, &message, Self.shellName, Self.path, Self.interface, "GetPicture") >= 0,
            let message
        else {
            inbox.failure = DesktopSourceFailure("cannot ask GNOME Shell for its windows")
            return
        }
        defer { sd_bus_message_unref(message) }
        sd_bus_message_set_auto_start(message, 0)
        let context = Unmanaged.passUnretained(inbox).toOpaque()
        if sd_bus_call_async(bus, nil, message, Self.answered, context, 0) < 0 {
            inbox.failure = DesktopSourceFailure("cannot ask GNOME Shell for its windows")
        }
    }

    /// The answer to `GetPicture`: the picture, and the shell's unique name; or why the shell cannot be read.
    private static let answered: sd_bus_message_handler_t = { message, context, _ in
        guard let message, let context else { return 0 }
        let inbox = Unmanaged<Inbox>.fromOpaque(context).takeUnretainedValue()
        if let error = sd_bus_message_get_error(message), let errorName = error.pointee.name {
            let name = String(cString: errorName)
            inbox.failure = DesktopSourceFailure(
                name.hasPrefix("org.freedesktop.DBus.Error.Unknown")
                    ? "GNOME Shell runs without locd's extension \(extensionUUID): enable it with `gnome-extensions "
                        + "enable \(extensionUUID)`, then log out and in again"
                    : "GNOME Shell did not say what it shows (\(name))"
            )
            return 0
        }
        inbox.owner = sd_bus_message_get_sender(message).map { String(cString: $0) }
        inbox.picture = MessageReader(message).string()
        return 0
    }

    /// A signal: a change of `org.gnome.Shell`'s owner, or a picture, which counts from the shell's unique name alone
    /// (L16): anyone on the bus may emit it.
    private static let signalled: sd_bus_message_handler_t = { message, context, _ in
        guard let message, let context else { return 0 }
        let inbox = Unmanaged<Inbox>.fromOpaque(context).takeUnretainedValue()
        let member = sd_bus_message_get_member(message).map { String(cString: $0) }
        let sender = sd_bus_message_get_sender(message).map { String(cString: $0) }
        let reader = MessageReader(message)
        if member == "NameOwnerChanged", sender == "org.freedesktop.DBus" {
            guard reader.string() == shellName, reader.string() != nil, let owner = reader.string() else { return 0 }
            inbox.ownerChanged = true
            inbox.newOwner = owner.isEmpty ? nil : owner
        } else if member == "PictureChanged", let sender, sender == inbox.owner, !inbox.ownerChanged {
            inbox.picture = reader.string()
        }
        return 0
    }
}
