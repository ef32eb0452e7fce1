/// Who wrote a message that was read while its connection was being identified (SEMANTICS I4).
public enum FrameSender {
    /// Every byte of it came from this one process.
    case process(MessageSender)
    /// No single writer is known; the reason says why, for the log.
    case unknown(reason: String)

    /// The sender of bytes that came in two parts: the same process only if both parts name it.
    func merged(with later: FrameSender) -> FrameSender {
        switch (self, later) {
        case (.process(let first), .process(let second)):
            return first.isSameProcess(as: second)
                ? self : .unknown(reason: "its bytes were written by more than one process")
        case (.unknown, _):
            return self
        case (_, .unknown):
            return later
        }
    }
}
