import Foundation

/// Where locd listens when the app does not say: the rule `locd` and `locctl` follow (PROTOCOL.md, "Sockets").
///
/// Kept here rather than shared with the daemon's configuration so that the client library depends on nothing
/// but the Varlink framing.
package enum DefaultSocket {
    package static let system = "/run/locd/io.locd"

    /// `LOCD_SOCKET` if set; else, for a user, `$XDG_RUNTIME_DIR/locd/io.locd` when that directory has a
    /// socket there; else the system daemon's socket.
    /// - Parameters:
    ///   - environment: the process environment, passed in so that the choice is testable.
    ///   - exists: whether a socket exists at a path.
    package static func path(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }
    ) -> String {
        if let path = environment["LOCD_SOCKET"], !path.isEmpty { return path }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            let user = (runtime.hasSuffix("/") ? runtime : runtime + "/") + "locd/io.locd"
            if exists(user) { return user }
        }
        return system
    }
}
