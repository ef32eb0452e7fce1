import Testing
import Varlink

/// PROTOCOL framing: a reply's frame is its JSON text and a NUL; the byte writer the daemon sends with
/// writes exactly the text of the reference `String` writer.
@Suite struct FrameWriterTests {
    /// SplitMix64: the same values on every run.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    /// Strings mixing plain ASCII, every character JSON escapes, other controls and non-ASCII scalars.
    static func string(_ random: inout Random) -> String {
        let pieces = [
            "a", "Z", "0", " ", "\"", "\\", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{01}", "\u{1F}", "é", "漢",
            "🛰️", "\u{301}", "/", "io.locd.App",
        ]
        return (0..<random.below(8)).map { _ in pieces[random.below(pieces.count)] }.joined()
    }

    static func value(_ random: inout Random, depth: Int = 0) -> JSONValue {
        switch random.below(depth > 3 ? 5 : 7) {
        case 0: return .null
        case 1: return .bool(random.below(2) == 0)
        case 2: return .int(Int64(bitPattern: random.next()) >> random.below(64))
        case 3: return .double(Double(Int64(bitPattern: random.next()) >> 20) / 1024)
        case 4: return .string(string(&random))
        case 5: return .array((0..<random.below(4)).map { _ in value(&random, depth: depth + 1) })
        default: return .object(object(&random, depth: depth + 1))
        }
    }

    static func object(_ random: inout Random, depth: Int) -> JSONObject {
        JSONObject((0..<random.below(4)).map { _ in (string(&random), value(&random, depth: depth)) })
    }

    @Test("PROTOCOL: 5,000 random replies frame as their JSON text and a NUL, escapes and all")
    func framesMatchTheText() {
        var random = Random(state: 2026)
        for _ in 0..<5_000 {
            let error = random.below(4) == 0 ? Self.string(&random) : nil
            let reply = VarlinkReply(
                parameters: Self.object(&random, depth: 0),
                continues: random.below(2) == 0,
                error: error
            )
            var text = ""
            reply.write(to: &text)
            let frame = VarlinkEncodedReply(reply).frame
            #expect(Array(frame.readableBytesView) == Array(text.utf8) + [0], "\(text)")
        }
    }
}
