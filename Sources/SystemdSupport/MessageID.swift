import Logging

/// Fixed journal `MESSAGE_ID`s for locd's life-cycle events, so `journalctl MESSAGE_ID=…` finds them
/// across releases and languages.
///
/// Each is a 128-bit id written as 32 lowercase hex digits, generated once and never changed or reused
/// (a catalog entry may be written for them later). Attach one with ``metadata``; the journal backend
/// sends it as `MESSAGE_ID`, and the stderr backend shows it as `message-id=…`.
package enum MessageID: String, CaseIterable, Sendable {
    case daemonStarted = "86ca9b84c873453bb34acf0a0805a625"
    case daemonReady = "675d29ac72d64ddea67f1cf7b475e1e8"
    case reloading = "56300ff8e36747eaa0f1b2fcbbe26d56"
    case stopping = "eb7ee418751f48bab5b3c63a2a2f59e8"
    case sessionCreated = "9805834eac604910ba439622f4ea1c51"
    case sessionEnded = "aa2fe301823644239b86bb9dc03d05bf"
    case authorizationChanged = "4da658e666c74055a78c007a35eff9aa"
    case promptRaised = "50988eb066a34095a276515d32b85659"
    case promptResolved = "dc28cbaece714159bb10f6f40b926681"
    case permissionDenied = "8354df5b8d4b4e4f9bdf6566ba6655e2"

    /// The metadata key that carries a message id; ``JournalEntry`` maps it to `MESSAGE_ID`.
    package static let metadataKey = "message-id"

    /// `["message-id": id]`, to merge into a log call's metadata.
    package var metadata: Logger.Metadata {
        [Self.metadataKey: .string(rawValue)]
    }
}
