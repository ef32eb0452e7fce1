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
        /// `max-pending-writes` = 65536: while more writes wait for the store, calls that may write are
        /// refused with `LimitExceeded` (R13).
        package var maxPendingWrites = 65_536
        /// `max-held-messages` = 16384: a connection with more replies and stream messages waiting for the
        /// store is closed (R13).
        package var maxHeldMessages = 16_384

        package init() {}
    }
}
