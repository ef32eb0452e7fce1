import LocationCore
import SubordinateRanges

/// The daemon's configuration file, `locd.toml` (SEMANTICS §11), with every key's built-in default.
///
/// Top-level keys and defaults:
/// - `socket`: unset, so the daemon decides: `/run/locd/io.locd` as root, `$XDG_RUNTIME_DIR/locd/io.locd`
///   as a user (``defaultSocket(uid:environment:)``).
/// - `state-dir` = `"/var/lib/locd"`; `apps-dirs` = `["/usr/share/locd/apps.d", "/etc/locd/apps.d"]`
///   (relative paths are taken from the daemon's current directory).
/// - `allow-unknown-apps` = `false` (M3); `admin-group` = `"locd"` (I3); `restricted-apps` = `[]` (A1).
/// - no `[[broker]]` tables (I8, I13); `unknown-brokered-apps` = `"ask"` (I11).
/// - no `[[administered-app]]` tables (G32); no `[geoclue]` table: nothing imported from GeoClue (G30).
/// - The `[lifecycle]` and `[limits]` tables, and the `[provider]` table or `[[provider]]` tables (U13):
///   ``Lifecycle``, ``Limits``, ``Provider``.
package struct DaemonConfiguration: Hashable, Sendable {
    /// Where the daemon looks when `--config` is not given; a missing file there means the defaults.
    package static let defaultPath = "/etc/locd/locd.toml"
    /// The system daemon's socket.
    package static let systemSocket = "/run/locd/io.locd"

    /// `socket`; `nil` when not configured, see ``socketPath(uid:environment:)``.
    package var socket: String?
    /// `state-dir`: where the authorization records, sessions and monitors are stored.
    package var stateDirectory = "/var/lib/locd"
    /// `apps-dirs`: where manifests are read from, later directories overriding earlier ones (§2).
    package var appsDirectories = ["/usr/share/locd/apps.d", "/etc/locd/apps.d"]
    /// `allow-unknown-apps` (M3).
    package var allowUnknownApps = false
    /// `admin-group`: members may call `io.locd.Admin` (I3).
    package var adminGroup = "locd"
    /// `restricted-apps`: app ids whose status is `restricted` by policy (A1).
    package var restrictedApps: [String] = []
    /// The `[[administered-app]]` tables, in the order written (G32), and those imported from GeoClue (G31).
    package var administeredApps: [AdministeredAppEntry] = []
    /// `[geoclue]`: where GeoClue's configuration is (G30).
    package var geoClue = GeoClueFiles()
    /// The keys of GeoClue's configuration locd does not carry, each a log line naming file, line, key and why
    /// (G33); set by ``importGeoClue()``.
    package var geoClueNotCarried: [String] = []
    /// The ranges of the file `[limits] subordinate-uids` names, read by ``importSubordinateIDs()`` (H9).
    package var subordinateIDs = SubordinateIDs()
    /// The lines of that file that were skipped, each with its file, line and why (H9).
    package var subordinateIDsSkipped: [String] = []
    /// The accounts the system lists whose uids lie in those ranges, a log line each naming the account and the
    /// range's line (H9): they count as themselves. Logged at start and at every reload.
    package var subordinateIDsOverlaps: [String] = []

    /// What loading read but could not take, a log line each: GeoClue's keys not carried (G33) and the lines of
    /// the subordinate uids' file skipped (H9). Logged at start, and at a reload only those not logged before.
    package var loadWarnings: [String] {
        geoClueNotCarried.map { "GeoClue's configuration: \($0)" } + subordinateIDsSkipped
    }
    /// The `[[broker]]` tables: the principals whose processes may say `Hello` for another process (I8, I13).
    package var brokers: [Broker] = []
    /// `unknown-brokered-apps`: what an app with no manifest gets when a broker speaks for it (I11).
    package var unknownBrokeredApps = UnknownBrokeredApps.ask
    /// `[lifecycle]`.
    package var lifecycle = Lifecycle()
    /// `[limits]`.
    package var limits = Limits()
    /// The `[[provider]]` tables in the order written, or the one `[provider]` table (U13, U17); never empty.
    package var providers = [Provider()]

    /// The first provider: the only one of a `[provider]` table.
    package var provider: Provider {
        get { providers[0] }
        set { providers[0] = newValue }
    }

    /// The built-in defaults.
    package init() {}

    /// The values the rules engine reads.
    package var core: CoreConfiguration {
        CoreConfiguration(
            backgroundGrace: lifecycle.backgroundGrace,
            relaunchWindow: lifecycle.relaunchWindow,
            relaunchAdopt: lifecycle.relaunchAdopt,
            promptTimeout: lifecycle.promptTimeout,
            agentWait: lifecycle.agentWait,
            alwaysReconfirm: lifecycle.alwaysReconfirm,
            maxSessionsPerApp: limits.maxSessionsPerApp,
            maxClientsPerApp: limits.maxClientsPerApp,
            maxConditionsPerApp: limits.maxConditionsPerApp,
            maxAppsPerUID: limits.maxAppsPerUID,
            maxSessionsPerUID: limits.maxSessionsPerUID,
            maxAgentsPerUID: limits.maxAgentsPerUID,
            allowUnknownApps: allowUnknownApps,
            unknownBrokeredApps: unknownBrokeredApps,
            restrictedApps: Set(restrictedApps),
            administeredApps: administeredApps.reduce(into: [:]) { $0[$1.id] = $1.app },
            subordinateIDs: DelegatedUIDs(subordinateIDs)
        )
    }

    /// One `[[administered-app]]` table (G32).
    package struct AdministeredAppEntry: Hashable, Sendable {
        /// `id`.
        package var id: String
        /// `authorized` and `users`.
        package var app: AdministeredApp
        /// Where it was written, for the log line of a grant that grants nothing (G32): `FILE:LINE`, and for an
        /// import GeoClue's section and key.
        package var origin: String

        package init(id: String, app: AdministeredApp, origin: String = "locd.toml") {
            self.id = id
            self.app = app
            self.origin = origin
        }

        package static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id && lhs.app == rhs.app }
        package func hash(into hasher: inout Hasher) {
            hasher.combine(id)
            hasher.combine(app)
        }
    }

    /// G32: a log line for each `authorized` grant whose app id has no manifest among `manifests` with
    /// `identity = "executable"`: such a grant grants nothing, and the line says what to write.
    package func unverifiedGrants(manifests: [Manifest]) -> [String] {
        let verified = Set(manifests.filter { AdministeredApp.verifies($0) }.map(\.appID))
        return administeredApps.filter { $0.app.authorized && !verified.contains($0.id) }.map { entry in
            "the grant of \(entry.id) (\(entry.origin)) grants nothing: no manifest of \(entry.id) says "
                + "identity = \"executable\", so any program could say it is \(entry.id), and it is asked like any "
                + "app; write /etc/locd/apps.d/\(entry.id).toml with id = \"\(entry.id)\", identity = \"executable\" "
                + "and executables = [the path of its program], then reload locd"
        }
    }

    /// `[geoclue]` (G30).
    package struct GeoClueFiles: Hashable, Sendable {
        /// `config`: GeoClue's main file, `conf.d/` beside it; unset: nothing is imported.
        package var config: String?
        /// `geolocation`: GeoClue's static location, read when `[static-source] enable=true`.
        package var geolocation = "/etc/geolocation"

        package init(config: String? = nil, geolocation: String = "/etc/geolocation") {
            self.config = config
            self.geolocation = geolocation
        }
    }

    /// The socket to listen on: the configured one, else the default for who runs the daemon.
    package func socketPath(uid: UInt32, environment: [String: String]) -> String {
        socket ?? DaemonConfiguration.defaultSocket(uid: uid, environment: environment)
    }

    /// `/run/locd/io.locd` for root; for a user, `$XDG_RUNTIME_DIR/locd/io.locd`, or
    /// `/run/user/UID/locd/io.locd` (where systemd puts that directory) when the variable is unset or relative.
    /// - Parameters:
    ///   - uid: the daemon's effective uid.
    ///   - environment: the daemon's environment, passed in so that the choice is testable.
    package static func defaultSocket(uid: UInt32, environment: [String: String]) -> String {
        guard uid != 0 else { return systemSocket }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            return (runtime.hasSuffix("/") ? runtime : runtime + "/") + "locd/io.locd"
        }
        return "/run/user/\(uid)/locd/io.locd"
    }
}
