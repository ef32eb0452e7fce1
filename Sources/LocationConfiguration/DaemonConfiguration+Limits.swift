import LocationCore

extension DaemonConfiguration {
    /// The `[limits]` table: positive integers that bound what one app or peer can make the daemon hold.
    package struct Limits: Hashable, Sendable {
        /// `max-sessions-per-app` = 64 (S5).
        package var maxSessionsPerApp = 64
        /// `max-clients-per-app` = 32 (S5).
        package var maxClientsPerApp = 32
        /// `max-connections` = 4096: connections past it are refused with an error and closed at once (F10), and
        /// lowered at start to what the open-file limit leaves room for (F14).
        package var maxConnections = 4096
        /// `max-connections-per-uid` = 256: what one unprivileged uid may hold (F11). An app holds one control
        /// connection and one per open stream, so a desktop's apps stay far below it.
        package var maxConnectionsPerUID = 256
        /// `admin-reserve` = 16: connections beyond `max-connections` that only administrators may use (F12).
        package var adminReserve = 16
        /// `idle-timeout` = 10 seconds: a connection that sends no call in that time after it opened is closed (F13).
        package var idleTimeout: Span = .seconds(10)
        /// `max-message-bytes` = 1 MiB: a larger message closes its connection.
        package var maxMessageBytes = 1_048_576
        /// `max-queued-updates` = 64: an update stream keeps at most this many, dropping the oldest.
        package var maxQueuedUpdates = 64
        /// `max-write-buffer` = 4 MiB: a peer that lets more pile up is disconnected.
        package var maxWriteBuffer = 4_194_304
        /// `max-pending-writes` = 65536: while more writes wait for the store, calls that may write are
        /// refused with `LimitExceeded` (R13).
        package var maxPendingWrites = 65_536
        /// `max-held-messages` = 16384: a connection with more replies and stream messages waiting for the
        /// store is closed (R13).
        package var maxHeldMessages = 16_384
        /// `max-pipelined-calls` = 64: calls one connection may have waiting before it is no longer read (F4).
        package var maxPipelinedCalls = 64
        /// `max-conditions-per-app` = 1000: monitored conditions one app may hold; more are refused (F7).
        package var maxConditionsPerApp = 1000
        /// `max-apps-per-uid` = 128: apps one user may have, with or without a manifest; a `Hello` that would make
        /// one more is refused (F20, H8). A desktop user's GeoClue clients are a few dozen at most.
        package var maxAppsPerUID = 128
        /// `max-sessions-per-uid` = 1024: live sessions of one user's apps together (H8).
        package var maxSessionsPerUID = 1024
        /// `max-agents-per-uid` = 8: `Prompts` and `Watch` streams of one user who may not administer (H8).
        package var maxAgentsPerUID = 8
        /// `subordinate-uids` = "/etc/subuid": the ranges of subordinate uids whose uids count against the user
        /// they are delegated to, for every per-uid bound (H9); `nil` (written `""`): none.
        package var subordinateUIDs: String? = "/etc/subuid"

        package init() {}

        /// Descriptors kept for everything but connections: standard streams, the event loop, the listener,
        /// the store's database, WAL and shared memory, the journal, the provider, files read on reload.
        package static let descriptorReserve = 64

        /// The open-file limit these limits need: every connection, the admin reserve, and ``descriptorReserve``.
        package var openFilesWanted: Int {
            let (sum, overflow) = maxConnections.addingReportingOverflow(adminReserve + Self.descriptorReserve)
            return overflow ? Int.max : sum
        }

        /// The limits lowered to fit an open-file limit of `openFiles` (F14): `max-connections` and `admin-reserve`
        /// shrink so that every connection has a descriptor and ``descriptorReserve`` stay free; `nil` when they
        /// already fit. The reserve keeps at most half of what is left, and `max-connections` at least 1.
        package func fitted(toOpenFiles openFiles: Int) -> Limits? {
            guard openFiles < openFilesWanted else { return nil }
            let available = max(0, openFiles - Self.descriptorReserve)
            var fitted = self
            fitted.adminReserve = min(adminReserve, available / 2)
            fitted.maxConnections = max(1, min(maxConnections, available - fitted.adminReserve))
            return fitted
        }
    }
}
