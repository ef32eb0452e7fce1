/// A `SessionDiagnostics` stream of a session, and the mask it last sent (D11).
struct DiagnosticStream {
    var call: CallID
    var lastMask: DiagnosticMask
}

/// The `SessionDiagnostics` streams of one session, in the order they opened, the first kept inline.
///
/// A watched session nearly always has one stream; keeping it in the ``SessionEntry`` itself means
/// re-evaluating every session after the global switch reads one entry per session instead of also
/// chasing an array buffer per session.
struct DiagnosticStreams: RandomAccessCollection {
    private var first: DiagnosticStream?
    private var rest: [DiagnosticStream] = []

    var startIndex: Int { 0 }
    var endIndex: Int { first == nil ? 0 : 1 + rest.count }

    subscript(position: Int) -> DiagnosticStream {
        get {
            guard position == 0 else { return rest[position - 1] }
            guard let first else {
                preconditionFailure("position 0 is within bounds only while a first stream is held")
            }
            return first
        }
        set {
            if position == 0 { first = newValue } else { rest[position - 1] = newValue }
        }
    }

    mutating func append(_ stream: DiagnosticStream) {
        if first == nil { first = stream } else { rest.append(stream) }
    }

    @discardableResult
    mutating func remove(at position: Int) -> DiagnosticStream {
        guard position == 0 else { return rest.remove(at: position - 1) }
        guard let removed = first else {
            preconditionFailure("position 0 is within bounds only while a first stream is held")
        }
        first = rest.isEmpty ? nil : rest.removeFirst()
        return removed
    }

    mutating func removeAll(where shouldBeRemoved: (DiagnosticStream) -> Bool) {
        var kept = DiagnosticStreams()
        for stream in self where !shouldBeRemoved(stream) { kept.append(stream) }
        self = kept
    }

    /// Sets every stream's last mask.
    mutating func setLastMask(_ mask: DiagnosticMask) {
        first?.lastMask = mask
        for index in rest.indices { rest[index].lastMask = mask }
    }
}
