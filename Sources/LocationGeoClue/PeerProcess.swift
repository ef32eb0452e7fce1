import AppIdentifiers
import CSdBus
import LocationClient
import ProcessIdentity

#if canImport(Glibc)
import Glibc
#endif

/// The process behind a D-Bus peer, as locd-geoclue speaks for it (SEMANTICS I8, I9, I12, I14): its pid, a pidfd
/// proven to be of the process that opened the peer's connection, and the app id derived from it.
///
/// The bus's `ProcessFD`, where it gives one, is that process. A pid alone is only what the bus read when the peer
/// connected: the process may have exited since and a child kept the connection, so a pidfd opened from it is
/// accepted only for a process of the peer's uid (real and effective) that started no later than the peer's
/// connection was made (I14). Made on the bus thread; held by the peer and its locd connections, and the pidfd
/// closed when the last of them is gone.
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

    /// The app id locd-geoclue says `Hello` as for a client of this process: the derived one, else `desktopID`. A
    /// derived id that is no app id (I15: a unit's id may unescape to anything) names nothing.
    func appID(desktopID: String) -> String {
        guard let derived = derivedAppID?.id, AppIdentifier.isValid(derived) else { return desktopID }
        return derived
    }

    /// The process of the peer `name` on `bus`; on the bus thread.
    /// - Parameters:
    ///   - connectedBy: the instant, in ``ProcessFacts/ticksSinceBoot()``, by which the peer had connected: when
    ///     its name was seen to appear on the bus, or when locd-geoclue began to watch names appear.
    /// - Throws: ``StartRefusal`` saying what happened when the bus names no process for it, the peer left, or the
    ///   process is not proven to be the one that opened the peer's connection.
    static func of(
        _ name: String,
        on bus: OpaquePointer,
        connectedBy: UInt64,
        reader: AppIDReader = AppIDReader()
    ) throws(StartRefusal) -> PeerProcess {
        var credentials = csdbus_credentials()
        guard csdbus_connection_credentials(bus, name, &credentials) >= 0 else {
            throw StartRefusal(message: "the bus has no credentials of \(name) (has it left?): connect again")
        }
        let facts = ProcessFacts()
        if credentials.process_fd >= 0 {
            // The bus's own pidfd of the process that connected: no pid to prove.
            guard let pid = facts.pid(ofPidfd: credentials.process_fd), pid > 0 else {
                close(credentials.process_fd)
                throw gone(name)
            }
            return PeerProcess(pid: pid, pidfd: credentials.process_fd, derivedAppID: reader.appID(of: pid))
        }
        guard credentials.has_pid != 0, credentials.has_uid != 0, let pid = Int32(exactly: credentials.pid), pid > 0
        else {
            throw StartRefusal(message: "the bus names no process for \(name) (has it left?): connect again")
        }
        guard let pidfd = ProcessFacts.openPidfd(pid) else { throw gone(name) }
        let uids = facts.uids(of: pid)
        let started = facts.startTicks(of: pid)
        // Read between the open and this: if the pidfd still names the pid, the reads were of its process.
        guard facts.pid(ofPidfd: pidfd) == pid, let uids, let started,
            uids.real == credentials.uid, uids.effective == credentials.uid, started <= connectedBy
        else {
            close(pidfd)
            throw gone(name)
        }
        return PeerProcess(pid: pid, pidfd: pidfd, derivedAppID: reader.appID(of: pid))
    }

    /// I14: the process the bus names for `name` is not proven to be the one that connected.
    private static func gone(_ name: String) -> StartRefusal {
        StartRefusal(
            message: "the process that opened the connection \(name) has gone: connect again from the app's own process"
        )
    }
}
