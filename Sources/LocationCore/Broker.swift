/// One `[[broker]]` of locd.toml (SEMANTICS I8, I13): a principal that may say `Hello` for another process.
///
/// A broker is a system identity, not a program: the user it runs as, which no other user can take on by
/// running a file (an exec keeps the caller's uid), and, where given, the executable it must also run. A path
/// alone would make a broker of anyone who can run that file, and a broker's program is usually world-executable.
package struct Broker: Hashable, Codable, Sendable {
    /// `user`: the user name or uid the broker's processes run as (locd-geoclue's unit gives it `locd-geoclue`).
    package var user: String
    /// `executable`: the absolute path `/proc/PID/exe` of the broker's process must show, if set.
    package var executable: String?

    package init(user: String, executable: String? = nil) {
        self.user = user
        self.executable = executable
    }
}
