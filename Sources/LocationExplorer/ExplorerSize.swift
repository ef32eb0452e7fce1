import LocationCore

/// How large a world the explorer builds around the core, and how deep it looks.
package struct ExplorerSize: Hashable, Sendable, CustomStringConvertible {
    /// Apps with a manifest; app `i` is of kind `i % 2` (``AppKind``).
    package var apps: Int
    /// Connections an app may open at once, each its own process.
    package var clients: Int
    /// Users (uids 1001, 1002, …) who run the same apps (H1).
    package var users: Int
    /// Events on the longest sequence explored.
    package var depth: Int

    package init(apps: Int = 2, clients: Int = 3, users: Int = 2, depth: Int = 8) {
        self.apps = max(1, apps)
        self.clients = max(1, clients)
        self.users = max(1, users)
        self.depth = max(0, depth)
    }

    /// The size the test suite explores: 2 apps × 3 clients × 2 users to depth 5, the deepest a debug build
    /// explores in well under a minute. CI also runs `make explore`, the release build to depth 8 on both cores
    /// (docs/PERFORMANCE.md, "Every interleaving").
    package static let continuousIntegration = ExplorerSize(depth: 5)

    package var description: String { "\(apps) apps × \(clients) clients × \(users) users, depth \(depth)" }

    /// The app ids, `org.example.a0`, `org.example.a1`, …: at most 15 bytes for up to 10 apps, so that Swift keeps
    /// each inside its `String` value and copying an app's key retains nothing.
    package var appIDs: [String] { (0..<apps).map { "org.example.a\($0)" } }
    package var uids: [UInt32] { (0..<users).map { 1001 + UInt32($0) } }

    package func kind(ofApp index: Int) -> AppKind { AppKind.allCases[index % AppKind.allCases.count] }

    /// The installed manifests, one per app.
    package var manifests: [Manifest] {
        appIDs.enumerated().map { index, appID in kind(ofApp: index).manifest(appID) }
    }
}

/// The manifests of the seeds' apps the explorer runs: what each can ask for decides which prompts occur.
package enum AppKind: Int, CaseIterable, Hashable, Sendable {
    /// A map: When In Use and Always descriptions, precise by default, a purpose key for temporary full accuracy.
    case precise
    /// A weather app: reduced accuracy by default (U2), a purpose key for a temporary precise grant (P7).
    case approximate

    /// The purpose key its sessions may name.
    package var purposeKey: String { self == .precise ? "Navigation" : "Radar" }

    func manifest(_ appID: String) -> Manifest {
        switch self {
        case .precise:
            Manifest(
                appID: appID,
                whenInUseUsageDescription: "Shows you on the map",
                alwaysAndWhenInUseUsageDescription: "Tracks your trips",
                temporaryUsageDescriptions: [purposeKey: "Turn-by-turn needs your precise location"]
            )
        case .approximate:
            Manifest(
                appID: appID,
                whenInUseUsageDescription: "Weather near you",
                temporaryUsageDescriptions: [purposeKey: "Precise radar"],
                defaultAccuracyReduced: true
            )
        }
    }
}
