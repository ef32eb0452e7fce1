import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

/// PROTOCOL framing: every call is one JSON object; the hand-written parser accepts and refuses what
/// Foundation's `JSONDecoder` did before it.
@Suite("JSON parser")
struct JSONParserTests {
    private func parse(_ text: String) -> JSONValue? { JSONValue.parse(Array(text.utf8)) }

    @Test("PROTOCOL: a call parses into its method, parameters and flags, keys in their order")
    func call() throws {
        let text =
            #"{"method":"io.locd.App.Hello","parameters":{"appId":"com.ex.maps","state":"foreground"},"more":true}"#
        let value = try #require(parse(text))
        #expect(value["method"] == .string("io.locd.App.Hello"))
        #expect(value["parameters"]?.objectValue?.keys == ["appId", "state"])
        #expect(value["more"] == .bool(true))
        #expect(value.serialized == text)
    }

    @Test("PROTOCOL: numbers are integers when integral and in range, floats otherwise")
    func numbers() {
        #expect(parse("7") == .int(7))
        #expect(parse("-9223372036854775808") == .int(.min))
        #expect(parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(parse("1.5") == .double(1.5))
        #expect(parse("-2.5e3") == .double(-2500))
        #expect(parse("1E+2") == .double(100))
    }

    @Test("PROTOCOL: string escapes, surrogate pairs and UTF-8 decode to the same text")
    func strings() {
        #expect(parse(#""a\u0041\n\t\"\\\/""#) == .string("aA\n\t\"\\/"))
        #expect(parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(parse("\"é😀\"") == .string("é😀"))
        #expect(parse(#"["\b\f\r"]"#) == .array([.string("\u{08}\u{0C}\r")]))
    }

    @Test(
        "PROTOCOL: 20,000 random strings, ASCII or not, escaped or not, valid UTF-8 or not, read as JSONDecoder reads them"
    )
    func stringsAgainstJSONDecoder() {
        let pieces: [[UInt8]] = [
            Array("a".utf8), Array("Zq9 ".utf8), Array("io.locd.App".utf8), Array(#"\n"#.utf8), Array(#"\""#.utf8),
            Array(#"\\"#.utf8), Array(#"\u00e9"#.utf8), Array(#"\ud83d\ude00"#.utf8), Array("é".utf8),
            Array("漢".utf8), Array("😀".utf8), [0xFF], [0xC3], [0xE6, 0xBC], [0x01], [0x1F], [0x7F],
        ]
        var random = SplitMix64(seed: 8259)
        for _ in 0..<20_000 {
            var bytes: [UInt8] = [UInt8(ascii: "\"")]
            for _ in 0..<Int.random(in: 0..<6, using: &random) {
                bytes += pieces[Int.random(in: 0..<pieces.count, using: &random)]
            }
            bytes.append(UInt8(ascii: "\""))
            let reference = (try? JSONDecoder().decode(String.self, from: Data(bytes))).map(JSONValue.string)
            #expect(JSONValue.parse(bytes) == reference, "\(bytes)")
        }
    }

    @Test("PROTOCOL: what JSONDecoder accepted stays accepted: whitespace, a BOM, trailing commas")
    func lenient() {
        #expect(
            parse(" \n{ \"a\" : [ true , false , null ] }\t")
                == .object(["a": .array([.bool(true), .bool(false), .null])])
        )
        #expect(parse("\u{FEFF}{}") == .object([:]))
        #expect(parse("[1,]") == .array([.int(1)]))
        #expect(parse(#"{"a":1,}"#) == .object(["a": .int(1)]))
        #expect(parse(#"{"a":1,"a":2}"#) == .object(["a": .int(1)]))
    }

    @Test(
        "PROTOCOL: invalid JSON is refused, never crashes",
        arguments: [
            "", " ", "{not json", "{", "[1 2]", "{\"a\" 1}", "{1:2}", "{\"a\":}", "[,]", "{,}", "01", "1.", ".5", "-",
            "1e", "NaN", "Infinity", "1e400", "tru", "nul", "\"abc", "\"\\x\"", "\"\\ud83d\"", "\"\\udc00\"",
            "\"\u{01}\"",
            "1 2", "{} {}", String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
        ]
    )
    func invalid(_ text: String) {
        #expect(parse(text) == nil)
    }

    @Test("PROTOCOL: invalid UTF-8 and garbage bytes are refused")
    func invalidBytes() {
        #expect(JSONValue.parse([0xFF, 0xFE, 0x01, 0x80]) == nil)
        #expect(JSONValue.parse([0x22, 0xC3, 0x28, 0x22]) == nil)
    }

    @Test("PROTOCOL: nesting up to the depth limit parses")
    func nesting() {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(parse(deep) != nil)
    }
}
