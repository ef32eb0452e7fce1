import LocationCore

/// What the daemon reports about itself beyond the core: the rest of `Admin.Status`.
struct DaemonFacts {
    var version: String
    var pid: Int32
    var startedAt: Instant
}
