/// A GeoClue2 Client object (`/org/freedesktop/GeoClue2/Client/N`): its properties with GeoClue's defaults, its
/// owner, and where its `Start` stands. Used on the bus thread only.
final class GeoClueClient {
    let path: String
    /// The unique bus name of the peer that created it: the only one that may use it.
    let owner: String
    /// The uid of that peer, as the bus names it (`UInt32.max` when it names none): its clients count against
    /// ``GeoClueLimits/clientsPerUID``.
    let ownerUID: UInt32
    var desktopID = ""
    var requestedAccuracy = AccuracyLevel.city
    var distanceThreshold: UInt32 = 0
    var timeThreshold: UInt32 = 0
    var active = false
    /// The current Location object, `nil` before the first fix (the property then reads "/").
    var location: GeoClueLocation?
    /// Replaced Location objects still exported (GeoClue keeps each at least 5 s), oldest first.
    var retired: [String] = []
    /// The run of the `Start` in force, `nil` while stopped.
    var run: ClientRun?
    /// The run of the latest `Start`, stopped or not: the next one waits for it, so runs never overlap.
    var lastRun: ClientRun?
    /// The app id the latest run speaks for.
    var runApp: String?
    /// Runs started and not yet finished (a peer that floods Start and Stop meets a bound here).
    var unfinishedRuns = 0
    /// `Start` calls waiting for locd's decision, each answered by its due instant at the latest (G17).
    var pendingStarts: [PendingStart] = []
    /// Whether its uid's agent stopped it (`MaxAccuracyLevel` 0) while it was active: it starts again by itself when
    /// the level is above 0 again (G12), unless `Stop` came meanwhile.
    var stoppedByAgent = false
    /// The registration of its vtable; unref'd to unexport it.
    var slot: OpaquePointer?

    init(path: String, owner: String, ownerUID: UInt32) {
        self.path = path
        self.owner = owner
        self.ownerUID = ownerUID
    }

    var locationPath: String { location?.path ?? "/" }
}

/// A `Start` call waiting for locd's decision, and the instant by which it is answered whatever locd says (G17).
struct PendingStart {
    let call: BusMessage
    let due: ContinuousClock.Instant
}

/// A GeoClue2 Location object (`/org/freedesktop/GeoClue2/Location/N`): one fix, readable by the client's owner.
struct GeoClueLocation {
    let path: String
    let owner: String
    let fix: GeoClueFix
    let slot: OpaquePointer?
}

/// A peer on the bus that has created clients: they and its connections to locd, one per app id.
final class GeoCluePeer {
    let name: String
    /// Its clients' paths, in the order they were created.
    var clients: [String] = []
    var apps: [String: LocdApp] = [:]
    /// When each app id's connection was left with no client of the peer speaking through it: it closes once idle
    /// for ``GeoClueLimits/idleAppSeconds``, unless a new client of the app takes it up meanwhile.
    var idleSince: [String: ContinuousClock.Instant] = [:]
    /// Whether a timer is set to close the connections that have been idle long enough: one at a time per peer.
    var idleTimerSet = false
    /// The latest run of each app id: a connection closes only after it, so that the run's session ends on it
    /// rather than lingering (SEMANTICS G6).
    var lastRuns: [String: ClientRun] = [:]
    /// Its process, learnt from the bus at its first `Start`.
    var process: PeerProcess?

    init(name: String) {
        self.name = name
    }
}
