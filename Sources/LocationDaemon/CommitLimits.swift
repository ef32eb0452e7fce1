/// The bounds of what the daemon keeps while writes wait for the store (SEMANTICS §10, R13).
struct CommitLimits {
    /// `max-pending-writes`: past it, calls that may write are refused until the store catches up.
    var maxPendingWrites = 65_536
    /// `max-held-messages`: a connection with more messages waiting for the store is closed.
    var maxHeldMessages = 16_384
}
