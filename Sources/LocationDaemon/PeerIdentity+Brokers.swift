import LocationCore
import LocationProtocol
import ProcessIdentity
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// SEMANTICS I8–I10, I13: a broker's `Hello` for another process. The broker is a principal: the connection and
/// the process that wrote `Hello` (I4) both belong to the user of one `[[broker]]`, and that process runs its
/// executable where one is given; the app's manifest identity is then checked against the process it names,
/// read while the pidfd the broker passed proves that process still holds its pid.
extension PeerIdentity {
    /// Whether pidfds can be made here (`pidfd_open`, Linux 5.3): where they can, a broker must pass one (I9).
    static let kernelMakesPidfds: Bool = {
        guard let descriptor = ProcessFacts.openPidfd(getpid()) else { return false }
        close(descriptor)
        return true
    }()

    /// I8, I9: whether a broker's `Hello` for `process` may bind the connection to `appID`.
    /// - Parameters:
    ///   - manifest: the app's manifest, `nil` for an app with none (I11 decides, once this has passed).
    ///   - peer: the connection's connect-time credentials, whose uid must be a broker's (I13).
    ///   - sender: who wrote this `Hello`, if it was the connection's identifying call.
    ///   - descriptors: what was passed with its bytes: one pidfd of `process` is expected.
    /// - Returns: the real uid of `process` when it may (the connection counts as that uid's from then on, F11), else
    ///   why not.
    func check(
        broker appID: String,
        manifest: Manifest?,
        process: Int32,
        peer: PeerCredentials?,
        sender: FrameSender?,
        descriptors: PassedDescriptors?
    ) -> Result<UInt32, Refusal> {
        if let refusal = refusalAsBroker(peer: peer, sender: sender) { return .failure(refusal) }
        let denied = "this broker may not speak for process \(process) as \(appID) (see locd's log for the reason)"
        let (pidfd, missing) = passedPidfd(descriptors, process: process)
        if let missing { return .failure(missing) }
        let facts = ProcessFacts(procRoot: procRoot)
        if let pidfd {
            guard let named = facts.pid(ofPidfd: pidfd) else {
                return .failure(
                    Refusal(
                        reason: "the descriptor passed with Hello for pid \(process) is not a pidfd",
                        answer: denied
                    )
                )
            }
            guard named == process else {
                let what = named == -1 ? "a process that has exited" : "pid \(named)"
                return .failure(
                    Refusal(reason: "the pidfd passed with Hello for pid \(process) names \(what)", answer: denied)
                )
            }
        }
        let executable = facts.executable(of: process)
        let uid = facts.realUID(of: process)
        // Read after /proc/PID: if the pidfd still names the pid now, the reads were of that process.
        if let pidfd, facts.pid(ofPidfd: pidfd) != process {
            return .failure(
                Refusal(
                    reason: "pid \(process), for which a broker said Hello, exited before it could be checked",
                    answer: denied
                )
            )
        }
        guard let uid else {
            return .failure(Refusal(reason: "cannot read the uid of pid \(process)", answer: denied))
        }
        if let manifest,
            let refusal = refusal(of: process, executable: executable, uid: uid, for: manifest, answer: denied)
        {
            return .failure(refusal)
        }
        return .success(uid)
    }

    /// I8, I13: the connection and the writer of `Hello` must both be of a broker's user (fixed at connect and
    /// attached by the kernel to the bytes, neither changed by an exec), and the writer run that broker's
    /// executable where one is given, read while its pidfd proves it holds its pid.
    private func refusalAsBroker(peer: PeerCredentials?, sender: FrameSender?) -> Refusal? {
        let answer =
            "only a broker named in locd's configuration may say Hello for another process: connect as the "
            + "app itself, without process"
        guard let sender else {
            return Refusal(
                reason: "Hello with process came after the connection's first call, so its writer is unknown",
                answer: "send \(AppMethod.hello.name) as the first call on a new connection "
                    + "(only \(InterfaceName.service) "
                    + "calls may come before it): a later Hello cannot be checked against the process that sent it"
            )
        }
        guard case .process(let writer) = sender, let peer else {
            if case .unknown(let why) = sender {
                return Refusal(
                    reason: "the process that sent Hello with process is unknown: \(why)",
                    answer: Self.reconnect
                )
            }
            return Refusal(reason: "the connection's credentials are unknown", answer: answer)
        }
        let candidates = brokers.indices.filter { index in
            (brokerUIDs[index] ?? Self.uid(of: brokers[index])) == peer.uid && peer.uid == writer.uid
        }.map { brokers[$0] }
        guard !candidates.isEmpty else {
            return Refusal(
                reason: "uid \(peer.uid) of the connection (and uid \(writer.uid) of pid \(writer.pid), which sent "
                    + "Hello with process) is not the user of any [[broker]]",
                answer: answer
            )
        }
        if candidates.contains(where: { $0.executable == nil }) { return nil }
        guard let executable = ProcessFacts(procRoot: procRoot).executable(of: writer.pid), writer.isRunning else {
            return Refusal(
                reason: "the executable of pid \(writer.pid), which sent Hello with process, cannot be read",
                answer: answer
            )
        }
        guard candidates.contains(where: { $0.isRun(by: executable) }) else {
            let configured = candidates.map(\.executableDescription).joined(separator: ", ")
            return Refusal(
                reason: "executable \(executable) of pid \(writer.pid), which sent Hello with process, is not the "
                    + "executable of the [[broker]] of uid \(peer.uid): \(configured) (resolved when locd.toml "
                    + "loads; reload after installing or moving the broker)",
                answer: answer
            )
        }
        return nil
    }

    /// I9, I10: the one pidfd passed with `Hello` (none where the kernel makes no pidfds), or why there is none.
    private func passedPidfd(_ descriptors: PassedDescriptors?, process: Int32) -> (Int32?, Refusal?) {
        let answer =
            "pass one pidfd of process \(process) with Hello (SCM_RIGHTS, in the sendmsg that carries Hello's "
            + "bytes)"
        let passed = descriptors?.descriptors ?? []
        let count = passed.count + (descriptors?.dropped ?? 0)
        if count == 1, let descriptor = passed.first { return (descriptor, nil) }
        if count == 0 && !kernelMakesPidfds { return (nil, nil) }
        let reason = "Hello for pid \(process) came with \(count) descriptors, not one pidfd"
        return (nil, Refusal(reason: reason, answer: answer))
    }

    /// I9: the manifest's identity, applied to the process a broker speaks for.
    private func refusal(
        of process: Int32,
        executable: String?,
        uid: UInt32,
        for manifest: Manifest,
        answer: String
    ) -> Refusal? {
        switch manifest.identity {
        case .any:
            return nil
        case .executable:
            guard let executable else {
                return Refusal(reason: "cannot read the executable of pid \(process)", answer: answer)
            }
            if manifest.comparedExecutables.contains(executable) { return nil }
            return Refusal(
                reason: "executable \(executable) of pid \(process), for which a broker said Hello, is not one of "
                    + "the executables of \(manifest.source): \(manifest.comparedExecutablesDescription) (links are "
                    + "resolved when manifests load; reload after installing or moving a program)",
                answer: answer
            )
        case .uid:
            if isOneOf(manifest.users, uid: uid) { return nil }
            return Refusal(
                reason: "uid \(uid) of pid \(process), for which a broker said Hello, is not one of the users of "
                    + "\(manifest.source)",
                answer: answer
            )
        }
    }
}
