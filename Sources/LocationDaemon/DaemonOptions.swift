/// The command line of `locd`, which overrides the configuration file (SEMANTICS §11).
package struct DaemonOptions: Sendable {
    /// `--config`; `nil` means `/etc/locd/locd.toml`, where a missing file means the built-in defaults.
    package var configPath: String?
    /// `--socket`.
    package var socket: String?
    /// `--state-dir`.
    package var stateDirectory: String?
    /// `--apps-dir`, appended to the configuration's `apps-dirs`.
    package var appsDirectories: [String] = []
    /// The environment, for the user socket path and systemd detection.
    package var environment: [String: String] = [:]
    /// The version `GetInfo` and `Status` report.
    package var version = "0.1.0"

    package init(
        configPath: String? = nil,
        socket: String? = nil,
        stateDirectory: String? = nil,
        appsDirectories: [String] = [],
        environment: [String: String] = [:]
    ) {
        self.configPath = configPath
        self.socket = socket
        self.stateDirectory = stateDirectory
        self.appsDirectories = appsDirectories
        self.environment = environment
    }
}

/// Exit codes of `locd`, from sysexits.h.
package enum ExitStatus: Int32 {
    case success = 0
    case failure = 1
    /// EX_CANTCREAT: the store or the socket cannot be created.
    case cannotCreate = 73
    /// EX_CONFIG: the configuration is invalid.
    case configuration = 78
}
