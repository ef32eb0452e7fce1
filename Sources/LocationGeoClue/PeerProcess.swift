import CSdBus
import LocationClient
import ProcessIdentity

#if canImport(Glibc)
import Glibc
#endif

/// The process behind a D-Bus peer, as locd-geoclue speaks for it (SEMANTICS I8, I9, I12): its pid as the bus
/// names it, a pidfd of it opened while the peer was still connected, and the app id derived from it.
///
/// The pid is the bus's (`GetConnectionCredentials`), not the peer's word. The pidfd is opened after the bus named
/// the pid and before the bus is asked again: a peer still connected with the same pid then held it throughout, so
/// the pidfd names the peer's process and no other that took its pid. Made on the bus thread; held by the peer and
/// its locd connections, and the pidfd closed when the last of them is gone.
final class PeerProcess: Sendable {
    let pid: Int32
    let pidfd: Int32
    /// The app id from a source beyond the client's own say (Flatpak, snap, systemd unit), if one names it.
    let derivedAppID: AppID?

    private init(pid: Int32, pidfd: Int32, derivedAppID: AppID?) {
        self.pid = pid
        self.pidfd = pidfd
        self.derivedAppID = derivedAppID
    }

    deinit { close(pidfd) }

    var reference: ProcessReference { ProcessReference(pid: pid, pidfd: pidfd) }

    /// The app id locd-geoclue says `Hello` as for a client of this process: the derived one, else `desktopID`.
    func appID(desktopID: String) -> String {
        derivedAppID?.id ?? desktopID
    }

    /// The process of the peer `name` on `bus`; on the bus thread.
    /// - Throws: ``StartRefusal`` saying what happened when the bus names no pid for it, the peer left, or its
    ///   process exited.
    static func of(
        _ name: String,
        on bus: OpaquePointer,
        reader: AppIDReader = AppIDReader()
    ) throws(StartRefusal)
        -> PeerProcess
    {
        guard let pid = busPID(of: name, on: bus) else {
            throw StartRefusal(message: "the bus names no process for \(name) (has it left?): connect again")
        }
        guard let pidfd = ProcessFacts.openPidfd(pid) else {
            throw StartRefusal(
                message: "cannot open a pidfd of process \(pid) of \(name): \(String(cString: strerror(errno)))"
            )
        }
        // Still connected with the same pid: the pid was the peer's all along, so the pidfd is its process's.
        guard busPID(of: name, on: bus) == pid else {
            close(pidfd)
            throw StartRefusal(message: "\(name) left the bus while locd-geoclue looked at its process")
        }
        return PeerProcess(pid: pid, pidfd: pidfd, derivedAppID: reader.appID(of: pid))
    }

    /// The pid the bus has for the connection `name`, from its credentials; `nil` when it has none.
    private static func busPID(of name: String, on bus: OpaquePointer) -> Int32? {
        var creds: OpaquePointer?
        guard sd_bus_get_name_creds(bus, name, CSDBUS_CREDS_PID, &creds) >= 0, let creds else { return nil }
        defer { sd_bus_creds_unref(creds) }
        var pid: pid_t = 0
        guard sd_bus_creds_get_pid(creds, &pid) >= 0, pid > 0 else { return nil }
        return pid
    }
}
