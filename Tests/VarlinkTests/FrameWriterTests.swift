import JSON
import LocationTestSupport
import Testing
import Varlink

/// PROTOCOL framing: a reply's frame is its JSON text and a NUL; the byte writer the daemon sends with
/// writes exactly the text of the reference `String` writer.
@Suite struct FrameWriterTests {
    static func value(_ random: inout SplitMix64, depth: Int = 0) -> JSONValue {
        switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &random) {
        case 0: return .null
        case 1: return .bool(Int.random(in: 0..<2, using: &random) == 0)
        case 2: return .int(Int64(bitPattern: random.next()) >> Int.random(in: 0..<64, using: &random))
        case 3: return .double(Double(Int64(bitPattern: random.next()) >> 20) / 1024)
        case 4: return .string(JSONSamples.string(&random))
        case 5: return .array((0..<Int.random(in: 0..<4, using: &random)).map { _ in value(&random, depth: depth + 1) })
        default: return .object(object(&random, depth: depth + 1))
        }
    }

    static func object(_ random: inout SplitMix64, depth: Int) -> JSONObject {
        JSONObject(
            (0..<Int.random(in: 0..<4, using: &random)).map { _ in
                (JSONSamples.string(&random), value(&random, depth: depth))
            }
        )
    }

    @Test("PROTOCOL: 5,000 random replies frame as their JSON text and a NUL, escapes and all")
    func framesMatchTheText() {
        var random = SplitMix64(seed: 2026)
        for _ in 0..<5_000 {
            let error = Int.random(in: 0..<4, using: &random) == 0 ? JSONSamples.string(&random) : nil
            let reply = VarlinkReply(
                parameters: Self.object(&random, depth: 0),
                continues: Int.random(in: 0..<2, using: &random) == 0,
                error: error
            )
            var text = ""
            reply.write(to: &text)
            let frame = VarlinkEncodedReply(reply).frame
            #expect(Array(frame.readableBytesView) == Array(text.utf8) + [0], "\(text)")
        }
    }
}
