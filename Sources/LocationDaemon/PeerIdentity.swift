import LocationCore
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// SEMANTICS §9: who may speak for an app (I1) and who may administer (I3), from peer credentials.
struct PeerIdentity {
    /// `admin-group`: members may call `io.locd.Admin`.
    var adminGroup: String
    /// Where `/proc` is; tests may point elsewhere.
    var procRoot = "/proc"
    /// The daemon's own effective uid, which may always administer.
    var daemonUID: UInt32 = geteuid()

    /// I1: whether the peer may say `Hello` as the manifest's app; `nil` when it may, else why not.
    func refusal(toSpeakFor manifest: Manifest, peer: PeerCredentials?) -> String? {
        switch manifest.identity {
        case .any:
            return nil
        case .uid:
            guard let peer else { return "peer credentials unavailable" }
            let allowed = manifest.users.contains { user in
                if let uid = UInt32(user) { return uid == peer.uid }
                return uidOf(user: user) == peer.uid
            }
            return allowed ? nil : "uid \(peer.uid) is not one of the manifest's users (\(manifest.source))"
        case .executable:
            guard let peer else { return "peer credentials unavailable" }
            guard let executable = readLink("\(procRoot)/\(peer.pid)/exe") else {
                return "cannot read \(procRoot)/\(peer.pid)/exe to verify the executable"
            }
            return manifest.executables.contains(executable)
                ? nil : "executable \(executable) is not one of the manifest's executables (\(manifest.source))"
        }
    }

    /// I3: whether the peer may call `io.locd.Admin`; `nil` when it may, else why not.
    func refusalToAdminister(peer: PeerCredentials?) -> String? {
        guard let peer else { return "peer credentials unavailable" }
        if peer.uid == 0 || peer.uid == daemonUID { return nil }
        if let gid = gidOf(group: adminGroup), peer.gid == gid || groups(of: peer.pid).contains(gid) { return nil }
        return "uid \(peer.uid) is not root, not locd's own user and not in the \(adminGroup) group"
    }

    private func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Supplementary groups of a process, from `/proc/PID/status`.
    private func groups(of pid: Int32) -> [UInt32] {
        guard let file = fopen("\(procRoot)/\(pid)/status", "r") else { return [] }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasPrefix("Groups:") else { continue }
            return text.dropFirst("Groups:".count).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
                .compactMap { UInt32($0) }
        }
        return []
    }

    private func uidOf(user: String) -> UInt32? {
        guard let entry = getpwnam(user) else { return nil }
        return entry.pointee.pw_uid
    }

    private func gidOf(group: String) -> UInt32? {
        guard let entry = getgrnam(group) else { return nil }
        return entry.pointee.gr_gid
    }
}
