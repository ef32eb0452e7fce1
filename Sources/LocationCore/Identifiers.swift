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
        guard let parsed = parseEpochID(text, prefix: UInt8(ascii: "s")) else { return nil }
        self.init(epoch: parsed.epoch, number: parsed.number)
    }

    package var description: String { epochIDText(prefix: UInt8(ascii: "s"), epoch, number) }

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
        guard let parsed = parseEpochID(text, prefix: UInt8(ascii: "p")) else { return nil }
        self.init(epoch: parsed.epoch, number: parsed.number)
    }

    package var description: String { epochIDText(prefix: UInt8(ascii: "p"), epoch, number) }

    package static func < (lhs: PromptID, rhs: PromptID) -> Bool {
        (lhs.epoch, lhs.number) < (rhs.epoch, rhs.number)
    }
}

/// Spells `<prefix><epoch>-<number>` digit by digit: every session written to the store, replied or ended
/// spells its id, and string interpolation cost more than the rest of a session's store write.
private func epochIDText(prefix: UInt8, _ epoch: UInt32, _ number: UInt64) -> String {
    // One prefix, up to 10 digits, a dash, up to 20 digits: at most 32 bytes.
    String(unsafeUninitializedCapacity: 32) { buffer in
        var end = 0
        func append(_ value: UInt64) {
            let start = end
            var rest = value
            repeat {
                buffer[end] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                end += 1
            } while rest > 0
            buffer[start..<end].reverse()
        }
        buffer[0] = prefix
        end = 1
        append(UInt64(epoch))
        buffer[end] = UInt8(ascii: "-")
        end += 1
        append(number)
        return end
    }
}

/// Parses `<prefix><epoch>-<number>` byte by byte: every call naming a session parses one.
private func parseEpochID(_ text: String, prefix: UInt8) -> (epoch: UInt32, number: UInt64)? {
    // Native strings, small or not, lend their bytes in place: no iterator over the UTF-8 view.
    if let parsed = text.utf8.withContiguousStorageIfAvailable({ parseEpochID(bytes: $0, prefix: prefix) }) {
        return parsed
    }
    return parseEpochID(bytes: Array(text.utf8), prefix: prefix)
}

private func parseEpochID<Bytes: RandomAccessCollection<UInt8>>(
    bytes: Bytes,
    prefix: UInt8
) -> (epoch: UInt32, number: UInt64)? {
    var position = bytes.startIndex
    guard position != bytes.endIndex, bytes[position] == prefix else { return nil }
    bytes.formIndex(after: &position)
    func decimal(until end: UInt8?) -> UInt64? {
        var value: UInt64 = 0
        var digits = 0
        while position != bytes.endIndex {
            let byte = bytes[position]
            bytes.formIndex(after: &position)
            if byte == end { break }
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow && !carry else { return nil }
            value = sum
            digits += 1
        }
        return digits > 0 ? value : nil
    }
    guard let epoch = decimal(until: UInt8(ascii: "-")), let small = UInt32(exactly: epoch),
        let number = decimal(until: nil)
    else { return nil }
    return (small, number)
}
