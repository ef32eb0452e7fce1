import Foundation
import JSON

/// The golden messages of the wire (Tests/LocationProtocolTests/Golden): one file per message kind, a JSON array
/// with one message a line, in the exact text locd writes. LocationProtocol's decoders and encoders and the daemon's
/// own encoders are checked against them.
package enum WireGolden {
    /// The file of `kind` (`Session`, `Prompt`, …).
    package static func url(_ kind: String) -> URL {
        URL(fileURLWithPath: Repository.root())
            .appendingPathComponent("Tests/LocationProtocolTests/Golden")
            .appendingPathComponent(kind + ".json")
    }

    /// The file's text.
    package static func text(_ kind: String) throws -> String {
        try String(contentsOf: url(kind), encoding: .utf8)
    }

    /// The file's messages, in order.
    package static func messages(_ kind: String) throws -> [JSONValue] {
        guard let messages = JSONValue.parse(Array(try text(kind).utf8))?.arrayValue else {
            throw GoldenError(kind: kind)
        }
        return messages
    }

    /// The text of a golden file holding `messages`: what an encoder's output must equal byte for byte.
    package static func text(of messages: [JSONValue]) -> String {
        "[\n" + messages.map(\.serialized).joined(separator: ",\n") + "\n]\n"
    }

    /// The text of a golden file holding messages already serialized (a pre-encoded frame's text).
    package static func text(ofSerialized messages: [String]) -> String {
        "[\n" + messages.joined(separator: ",\n") + "\n]\n"
    }

    package struct GoldenError: Error, CustomStringConvertible {
        var kind: String
        package var description: String { "golden \(kind).json is not a JSON array" }
    }
}
