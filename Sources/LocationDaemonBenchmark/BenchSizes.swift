/// How big each scenario is: the sizes, or small ones for `--quick` (CI proves the benchmark
/// runs, in well under a minute, and asserts no timing).
struct BenchSizes {
    var churnClients = 64
    var churnSeconds = 10.0
    /// How long maximum churn is held while the store's log and locd's memory are sampled (scenario 9).
    var sustainedSeconds = 60.0
    var fanOutConnections = 10_000
    var fanOutFlips = 20
    /// The large fan-out, on a daemon of its own: connections (each a descriptor in locd and one here) and flips.
    var largeFanOutConnections = 100_000
    var largeFanOutFlips = 10
    var deadlineSessions = 100_000
    var deadlineApps = 1_000
    /// The relaunch window: how long the disconnected clients' sessions linger before they expire.
    var relaunchWindow = 5.0
    var durableCalls = 3_000
    /// Durable decisions from many administrators at once (group commit): the calls in all, and the connections.
    var durableConcurrentCalls = 30_000
    var durableAdministrators = 64
    var idleSeconds = 60.0
    var startups = 5
    /// The GeoClue scenario: rounds, each measuring every service for this long with 1 client and again with 8.
    var geoclueRounds = 3
    var geoclueSeconds = 5.0
    /// The fairness scenario: nobody's connections pipelining without reading, and root's Admin.Status calls meanwhile.
    var fairnessConnections = 250
    var fairnessSamples = 50
    /// The focus scenario: foot windows in sway, focus moves among them, and the idle desktop's seconds.
    var focusWindows = 3
    var focusMoves = 300
    var focusIdleSeconds = 10.0

    static let full = BenchSizes()

    static let quick = BenchSizes(
        churnClients: 64,
        churnSeconds: 1.5,
        sustainedSeconds: 1.5,
        fanOutConnections: 500,
        fanOutFlips: 4,
        largeFanOutConnections: 2_000,
        largeFanOutFlips: 2,
        deadlineSessions: 2_000,
        deadlineApps: 20,
        relaunchWindow: 1.0,
        durableCalls: 100,
        durableConcurrentCalls: 640,
        durableAdministrators: 64,
        idleSeconds: 3.0,
        startups: 2,
        geoclueRounds: 1,
        geoclueSeconds: 0.5,
        fairnessConnections: 250,
        fairnessSamples: 10,
        focusWindows: 2,
        focusMoves: 20,
        focusIdleSeconds: 2.0
    )
}
