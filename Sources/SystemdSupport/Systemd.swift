#if canImport(Glibc)
import Glibc
#endif

/// What systemd handed this process: socket activation, the watchdog, and whether it is a unit at all.
///
/// The functions live in extensions by concern (`Systemd+SocketActivation.swift`,
/// `Systemd+Watchdog.swift`); this file answers "are we a systemd service?".
package enum Systemd {
    /// Whether the process runs as a systemd unit, judged by `INVOCATION_ID` (set for every unit) or
    /// `JOURNAL_STREAM` (set when stdout/stderr go to the journal).
    ///
    /// `locd`'s main uses it to pick ``JournalLogHandler`` over ``StderrLogHandler``: outside systemd,
    /// `sd_journal_sendv` would succeed silently with no journal to read the lines.
    /// - Parameter environment: the variables to look at, usually the process environment.
    package static func runningUnderSystemd(environment: [String: String]) -> Bool {
        ["INVOCATION_ID", "JOURNAL_STREAM"].contains { environment[$0].map { !$0.isEmpty } ?? false }
    }

    /// ``runningUnderSystemd(environment:)`` on this process's environment.
    package static func runningUnderSystemd() -> Bool {
        let variables = ["INVOCATION_ID", "JOURNAL_STREAM"]
        var environment: [String: String] = [:]
        for name in variables {
            if let value = getenv(name) {
                environment[name] = String(cString: value)
            }
        }
        return runningUnderSystemd(environment: environment)
    }
}
