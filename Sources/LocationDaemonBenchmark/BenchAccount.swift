import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The account the focus scenario's desktop runs as: `locd-bench-desk`, a system account with no home and no
/// subordinate ranges, made with `useradd` where it is missing and removed with `userdel` at the end. A desktop needs a
/// real account: sway refuses root, and the session's `dbus-daemon` refuses a uid with no passwd entry.
struct BenchAccount {
    static let name = "locd-bench-desk"
    let uid: UInt32
    let gid: UInt32
    /// Whether this run made the account (and so removes it).
    let made: Bool

    init() throws {
        if let entry = getpwnam(Self.name) {
            uid = entry.pointee.pw_uid
            gid = entry.pointee.pw_gid
            made = false
            return
        }
        let status = try Self.run(
            "/usr/sbin/useradd",
            [
                "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "-K", "SUB_UID_COUNT=0", "-K",
                "SUB_GID_COUNT=0", Self.name,
            ]
        )
        guard status == 0, let entry = getpwnam(Self.name) else {
            throw BenchError.failed("useradd \(Self.name) exited \(status)")
        }
        uid = entry.pointee.pw_uid
        gid = entry.pointee.pw_gid
        made = true
    }

    /// Removes the account (and its group) if this run made it.
    func remove() {
        if made { _ = try? Self.run("/usr/sbin/userdel", [Self.name]) }
    }

    private static func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
