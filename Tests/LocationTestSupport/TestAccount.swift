import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real account the test makes with `useradd` (a passwd entry of the machine, as a directory user's would be) and
/// removes with `userdel`: an account of its own inside a subordinate range (SEMANTICS H9). Needs root.
package struct TestAccount: Sendable {
    package let name: String
    package let uid: UInt32

    /// Makes an account with a free uid of `uids` and no subordinate ranges of its own, so that the machine's
    /// `/etc/subuid` is left as it was.
    package init(prefix: String, uids: ClosedRange<UInt32>) throws {
        var generator = SystemRandomNumberGenerator()
        var uid = UInt32.random(in: uids, using: &generator)
        while getpwuid(uid) != nil { uid = uid == uids.upperBound ? uids.lowerBound : uid + 1 }
        let name = "\(prefix)\(uid)"
        let status = try Self.run(
            "/usr/sbin/useradd",
            ["--no-create-home", "--uid", "\(uid)", "-K", "SUB_UID_COUNT=0", "-K", "SUB_GID_COUNT=0", name]
        )
        guard status == 0 else { throw TestAccountFailure("useradd \(name) exited \(status)") }
        self.name = name
        self.uid = uid
    }

    /// Removes the account (and its group); the caller runs it in a `defer`, so a failed test removes it too.
    package func remove() {
        _ = try? Self.run("/usr/sbin/userdel", [name])
    }

    private static func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

package struct TestAccountFailure: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
