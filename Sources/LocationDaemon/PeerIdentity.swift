import LocationCore
import LocationProtocol
import ProcessIdentity
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// SEMANTICS §9: who may speak for an app (I1, I4) and who may administer (I3), from credentials the kernel
/// fixed: those of the connection (`SO_PEERCRED`, `SO_PEERGROUPS`, taken at `connect`) and those of the
/// process that wrote `Hello` (`SCM_CREDENTIALS`, `SCM_PIDFD`). Nothing here asks what a pid is now, except
/// the executable of a sender whose pidfd proves it still holds that pid.
struct PeerIdentity {
    /// `admin-group`: members may call `io.locd.Admin`.
    var adminGroup: String
    /// The `[[broker]]` tables: the principals whose processes may say `Hello` for another process (I8, I13).
    var brokers: [Broker] {
        didSet { brokerUIDs = brokers.map(Self.uid(of:)) }
    }
    /// The uid of each broker's user as it was when `brokers` was set: `nil` for a name the user database did not
    /// know then, looked up again at each brokered `Hello` (a user that sysusers makes later counts from then on).
    private(set) var brokerUIDs: [UInt32?]
    /// Whether a broker must pass a pidfd of the process it speaks for (I9): where the kernel makes pidfds.
    var kernelMakesPidfds: Bool
    /// Where `/proc` is; tests may point elsewhere.
    var procRoot: String
    /// The daemon's own effective uid, which may always administer.
    var daemonUID: UInt32

    init(
        adminGroup: String,
        brokers: [Broker] = [],
        kernelMakesPidfds: Bool = PeerIdentity.kernelMakesPidfds,
        procRoot: String = "/proc",
        daemonUID: UInt32 = geteuid()
    ) {
        self.adminGroup = adminGroup
        self.brokers = brokers
        self.brokerUIDs = brokers.map(Self.uid(of:))
        self.kernelMakesPidfds = kernelMakesPidfds
        self.procRoot = procRoot
        self.daemonUID = daemonUID
    }

    /// The uid of `broker`'s user: its number, or the user database's uid for its name.
    static func uid(of broker: Broker) -> UInt32? {
        UInt32(broker.user) ?? uidOf(user: broker.user)
    }

    /// Why a call is refused: `reason` goes to the log, `answer` to the caller (I7: it names no file or
    /// executable of the system).
    struct Refusal: Error, Hashable {
        var reason: String
        var answer: String
    }

    /// What a `Hello` whose writer the kernel did not name is told (I4): its bytes were written before locd's socket
    /// asked for credentials (locd started by a socket made without `PassCredentials=yes`), or by a process gone since.
    static let reconnect =
        "locd could not tell which process wrote this Hello (sent before locd was ready to ask the kernel, or by a "
        + "process that has exited): connect again and send Hello first"

    /// I1, I4: whether `Hello` may bind the connection to the manifest's app; `nil` when it may.
    /// - Parameters:
    ///   - peer: the connection's connect-time credentials; `uid` identity is checked against them (a uid
    ///     cannot change by exec, and `SO_PEERCRED` keeps the one of `connect` even across a setuid exec).
    ///   - sender: who wrote this `Hello`, if it was the connection's identifying call; `executable` identity
    ///     is checked against that process, never against the pid that connected.
    func refusal(toSpeakFor manifest: Manifest, peer: PeerCredentials?, sender: FrameSender?) -> Refusal? {
        let denied = "this process may not speak for \(manifest.appID) (see locd's log for the reason)"
        switch manifest.identity {
        case .any:
            return nil
        case .uid:
            guard let peer else { return Refusal(reason: "peer credentials unavailable", answer: denied) }
            if isOneOf(manifest.users, uid: peer.uid) { return nil }
            return Refusal(reason: "uid \(peer.uid) is not one of the users of \(manifest.source)", answer: denied)
        case .executable:
            guard let sender else {
                return Refusal(
                    reason: "Hello came after the connection's first call, so the process that sent it is unknown",
                    answer: "send \(AppMethod.hello.name) as the first call on a new connection "
                        + "(only \(InterfaceName.service) "
                        + "calls may come before it): a later Hello cannot be checked against the process that sent it"
                )
            }
            switch sender {
            case .unknown(let why):
                return Refusal(reason: "the process that sent Hello is unknown: \(why)", answer: Self.reconnect)
            case .process(let process):
                return refusal(of: process, for: manifest, answer: denied)
            }
        }
    }

    /// I4: the executable of the process that sent `Hello`, read while its pidfd proves it still holds its pid.
    private func refusal(of sender: MessageSender, for manifest: Manifest, answer: String) -> Refusal? {
        let path = "\(procRoot)/\(sender.pid)/exe"
        // M5: the path counts only where it names, in locd's view, the file the process runs.
        guard let executable = ProcessFacts(procRoot: procRoot).executable(of: sender.pid) else {
            return Refusal(reason: "cannot read \(path) of pid \(sender.pid), which sent Hello", answer: answer)
        }
        // Read after the link: if the sender still holds its pid now, it held it when the link was read.
        guard sender.isRunning else {
            return Refusal(
                reason: "pid \(sender.pid), which sent Hello, exited before its executable could be checked",
                answer: answer
            )
        }
        guard manifest.comparedExecutables.contains(executable) else {
            return Refusal(
                reason: "executable \(executable) of pid \(sender.pid), which sent Hello, is not one of the "
                    + "executables of \(manifest.source): \(manifest.comparedExecutablesDescription) (links are "
                    + "resolved when manifests load; reload after installing or moving a program)",
                answer: answer
            )
        }
        return nil
    }

    /// I3: whether the connection may administer: reach every user's apps and call the administrators' methods
    /// (H4); `nil` when it may. Decided from the uid, gid and supplementary groups the peer had when it connected,
    /// never from what its pid runs now: a process that has exited leaves nothing for a later holder of its pid to
    /// inherit.
    func refusalToAdminister(peer: PeerCredentials?) -> Refusal? {
        let answer =
            "this method is for administrators of locd: connect as root, as locd's user or as a member "
            + "of locd's admin group (see locd's log for the reason)"
        guard let peer else { return Refusal(reason: "peer credentials unavailable", answer: answer) }
        if peer.uid == 0 || peer.uid == daemonUID { return nil }
        if let gid = gidOf(group: adminGroup), peer.gid == gid || peer.groups.contains(gid) { return nil }
        return Refusal(
            reason: "uid \(peer.uid) is not root, not locd's own user and was not in the \(adminGroup) group "
                + "when it connected",
            answer: answer
        )
    }

    /// Whether `uid` is one of `users`, each a uid or a user name.
    func isOneOf(_ users: [String], uid: UInt32) -> Bool {
        users.contains { user in
            if let number = UInt32(user) { return number == uid }
            return Self.uidOf(user: user) == uid
        }
    }

    private static func uidOf(user: String) -> UInt32? {
        guard let entry = getpwnam(user) else { return nil }
        return entry.pointee.pw_uid
    }

    private func gidOf(group: String) -> UInt32? {
        guard let entry = getgrnam(group) else { return nil }
        return entry.pointee.gr_gid
    }
}
