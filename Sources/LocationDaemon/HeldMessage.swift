import LocationCore

/// A reply or stream message that waits for writes to be stored before it goes out (R1, R2, R11, R12).
///
/// It waits for two turns (0 when none): the turn that produced it, when that turn's writes must be stored
/// first, and the newest turn holding a decision about its connection's app that is not stored yet, so that
/// no read reveals a decision before it is durable.
struct HeldMessage {
    var turn: UInt64
    var decision: UInt64
    var action: Action
}
