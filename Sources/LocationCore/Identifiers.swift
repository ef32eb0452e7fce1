/// One connection on the socket, numbered by the shell.
package struct ClientID: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    package var raw: UInt64
    package init(_ raw: UInt64) { self.raw = raw }
    package static func < (lhs: ClientID, rhs: ClientID) -> Bool { lhs.raw < rhs.raw }
    package var description: String { "c\(raw)" }
}

/// One call on a connection; a streaming call keeps its ``CallID`` as the stream's name.
package struct CallID: Hashable, Codable, Sendable, CustomStringConvertible {
    package var client: ClientID
    package var serial: UInt64
    package init(client: ClientID, serial: UInt64) {
        self.client = client
        self.serial = serial
    }
    package var description: String { "\(client)/\(serial)" }
}

/// A session's name: the daemon's start epoch and a counter, spelled `s<epoch>-<n>` on the wire.
///
/// The epoch changes at every daemon start, so an id that ended before a restart is never reused
/// for another session after it (SEMANTICS S3).
package struct SessionID: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    package var epoch: UInt32
    package var number: UInt64

    package init(epoch: UInt32, number: UInt64) {
        self.epoch = epoch
        self.number = number
    }

    /// Parses the wire spelling; `nil` for anything else.
    package init?(_ text: String) {
        guard let parsed = parseEpochID(text, prefix: "s") else { return nil }
        self.init(epoch: parsed.epoch, number: parsed.number)
    }

    package var description: String { "s\(epoch)-\(number)" }

    package static func < (lhs: SessionID, rhs: SessionID) -> Bool {
        (lhs.epoch, lhs.number) < (rhs.epoch, rhs.number)
    }
}

/// A prompt's name, spelled `p<epoch>-<n>` on the wire.
package struct PromptID: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    package var epoch: UInt32
    package var number: UInt64

    package init(epoch: UInt32, number: UInt64) {
        self.epoch = epoch
        self.number = number
    }

    package init?(_ text: String) {
        guard let parsed = parseEpochID(text, prefix: "p") else { return nil }
        self.init(epoch: parsed.epoch, number: parsed.number)
    }

    package var description: String { "p\(epoch)-\(number)" }

    package static func < (lhs: PromptID, rhs: PromptID) -> Bool {
        (lhs.epoch, lhs.number) < (rhs.epoch, rhs.number)
    }
}

private func parseEpochID(_ text: String, prefix: Character) -> (epoch: UInt32, number: UInt64)? {
    guard text.first == prefix else { return nil }
    let body = text.dropFirst()
    guard let dash = body.firstIndex(of: "-"),
        let epoch = UInt32(body[..<dash]),
        let number = UInt64(body[body.index(after: dash)...])
    else { return nil }
    return (epoch, number)
}
