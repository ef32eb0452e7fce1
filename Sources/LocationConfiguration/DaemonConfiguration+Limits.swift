extension DaemonConfiguration {
    /// The `[limits]` table: positive integers that bound what one app or peer can make the daemon hold.
    package struct Limits: Hashable, Sendable {
        /// `max-sessions-per-app` = 64 (S5).
        package var maxSessionsPerApp = 64
        /// `max-clients-per-app` = 32 (S5).
        package var maxClientsPerApp = 32
        /// `max-connections` = 4096: connections past it are accepted and closed at once.
        package var maxConnections = 4096
        /// `max-message-bytes` = 1 MiB: a larger message closes its connection.
        package var maxMessageBytes = 1_048_576
        /// `max-queued-updates` = 64: an update stream keeps at most this many, dropping the oldest.
        package var maxQueuedUpdates = 64
        /// `max-write-buffer` = 4 MiB: a peer that lets more pile up is disconnected.
        package var maxWriteBuffer = 4_194_304
        /// `max-pipelined-calls` = 64: calls one connection may have waiting before it is no longer read (F4).
        package var maxPipelinedCalls = 64
        /// `max-conditions-per-app` = 1000: monitored conditions one app may hold; more are refused (F7).
        package var maxConditionsPerApp = 1000

        package init() {}
    }
}
