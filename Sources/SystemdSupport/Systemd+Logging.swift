import Logging

extension Systemd {
    /// The log backend `locd`'s main bootstraps: the journal when running as a unit, stderr otherwise.
    ///
    /// ```swift
    /// let underSystemd = Systemd.runningUnderSystemd()
    /// LoggingSystem.bootstrap { Systemd.makeLogHandler(label: $0, underSystemd: underSystemd) }
    /// ```
    /// - Parameters:
    ///   - label: the logger's label.
    ///   - underSystemd: ``runningUnderSystemd(environment:)``, decided once at start.
    ///   - logLevel: the lowest level written.
    package static func makeLogHandler(
        label: String,
        underSystemd: Bool,
        logLevel: Logger.Level = .info
    ) -> any LogHandler {
        if underSystemd {
            JournalLogHandler(label: label, logLevel: logLevel)
        } else {
            StderrLogHandler(label: label, logLevel: logLevel)
        }
    }
}
