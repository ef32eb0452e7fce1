/// One `[[broker]]` of locd.toml (SEMANTICS I8, I13): a principal that may say `Hello` for another process.
///
/// A broker is a system identity, not a program: the user it runs as, which no other user can take on by
/// running a file (an exec keeps the caller's uid), and, where given, the executable it must also run. A path
/// alone would make a broker of anyone who can run that file, and a broker's program is usually world-executable.
package struct Broker: Hashable, Codable, Sendable {
    /// `user`: the user name or uid the broker's processes run as (locd-geoclue's unit gives it `locd-geoclue`).
    package var user: String
    /// `executable` as written: the program the broker's process must run, if set.
    package var executable: String?
    /// ``executable`` resolved with realpath(3) when the configuration was loaded (I13), `nil` when it was not
    /// resolved (a configuration parsed from text): the path `/proc/PID/exe` of the broker's process must show.
    package var resolvedExecutable: String?

    package init(user: String, executable: String? = nil, resolvedExecutable: String? = nil) {
        self.user = user
        self.executable = executable
        self.resolvedExecutable = resolvedExecutable
    }

    /// The path `/proc/PID/exe` of the broker's writer is compared with (I13): the resolved one, where resolved.
    package var comparedExecutable: String? { resolvedExecutable ?? executable }

    /// Whether a writer whose `/proc/PID/exe` reads `executable` runs the broker's executable (I8, I13): that path,
    /// or that path's file an upgrade replaced since the writer started (`PATH (deleted)`).
    package func isRun(by executable: String) -> Bool {
        guard let compared = comparedExecutable else { return true }
        return executable == compared || executable == compared + " (deleted)"
    }

    /// ``executable`` for a refusal's log: as written and, where that differs, as resolved.
    package var executableDescription: String {
        guard let executable else { return "(any)" }
        guard let resolvedExecutable, resolvedExecutable != executable else { return executable }
        return "\(executable) (resolved: \(resolvedExecutable))"
    }
}
