import LocationTestSupport
import Testing

@testable import LocationConfiguration
@testable import LocationCore

/// The daemon never crashes on a manifest (M1): deterministic garbage in, an error or a manifest out.
@Suite("Manifest robustness")
struct ManifestRobustnessTests {
    private static let file = "apps.d/com.ex.maps.toml"
    private static let valid = """
        id = "com.ex.maps"
        NSLocationWhenInUseUsageDescription = "Shows you on the map."
        NSLocationAlwaysAndWhenInUseUsageDescription = 'Guides you while you use other apps.'
        NSLocationDefaultAccuracyReduced = false
        UIBackgroundModes = ["location", "audio"]
        identity = "uid"
        users = ["alice", 1000]
        executables = ["/usr/bin/maps"]
        notes = \"\"\"
        several "lines"
        \"\"\"
        [NSLocationTemporaryUsageDescriptionDictionary]
        "Navigation" = "Directions need precision."
        [Extra.Parking]
        Spot = { nested = [1, 2.5, true, 1979-05-27T07:32:00Z], 'literal' = 'x' }
        """

    /// Holds for every outcome: a manifest and no errors, or no manifest and errors, all about this file.
    private func checkShape(_ outcome: ManifestParser.Outcome, lines: Int) {
        #expect((outcome.manifest != nil) == outcome.errors.isEmpty)
        for issue in outcome.errors + outcome.warnings {
            #expect(issue.file == Self.file)
            #expect((issue.line ?? 1) >= 1 && (issue.line ?? 1) <= lines + 1)
        }
    }

    @Test("M1: every truncation and byte flip of a valid manifest yields an error or a manifest, never a trap")
    func truncationsAndFlips() {
        let bytes = Array(Self.valid.utf8)
        let lines = bytes.filter { $0 == 0x0A }.count + 1
        let whole = ManifestParser.parse(bytes: bytes, file: Self.file)
        #expect(whole.errors == [])
        #expect(whole.manifest?.users == ["alice", "1000"])
        #expect(
            whole.warnings.map(\.description) == [
                "\(Self.file):9: key notes: unknown key, ignored",
                "\(Self.file):14: key Extra: unknown key, ignored",
            ]
        )

        var manifests = 0
        for end in 0...bytes.count {
            let outcome = ManifestParser.parse(bytes: Array(bytes[..<end]), file: Self.file)
            checkShape(outcome, lines: lines)
            if outcome.manifest != nil { manifests += 1 }
        }
        // Cut before `id` is complete, a manifest cannot load; cut at the end, it does.
        #expect(ManifestParser.parse(bytes: Array(bytes[..<10]), file: Self.file).manifest == nil)
        #expect(manifests > 0)

        var random = SplitMix64(seed: 0x10CD)
        for _ in 0..<300 {
            var mutated = bytes
            for _ in 0..<(1 + random.next(below: 4)) {
                mutated[random.next(below: mutated.count)] = UInt8(truncatingIfNeeded: random.next())
            }
            let mutatedLines = mutated.filter { $0 == 0x0A }.count + 1
            checkShape(ManifestParser.parse(bytes: mutated, file: Self.file), lines: mutatedLines)
        }
    }

    @Test("M1: pseudo-random TOML-ish byte strings yield an error or a manifest, never a trap")
    func randomBytes() {
        let tokens: [[UInt8]] = [
            "id", " = ", "\"com.ex.maps\"", "[", "]", "[[", "{", "}", ",", ".", "\"", "'", "\"\"\"", "'''", "\n",
            "#", "\\", "\\u00", "=", "identity", "\"any\"", "users", "[1, \"a\"]", "UIBackgroundModes", "true",
            "1e400", "-0", "inf", "nan", "0x", "1979-05-27", "NSLocationTemporaryUsageDescriptionDictionary",
            "\u{0}", "\u{FFFD}", "é",
        ].map { Array($0.utf8) }
        var random = SplitMix64(seed: 2024)
        var outcomes = (manifests: 0, errors: 0)
        for round in 0..<400 {
            var bytes: [UInt8] = []
            for _ in 0..<random.next(below: 40) {
                if round % 4 == 0 {
                    bytes.append(UInt8(truncatingIfNeeded: random.next()))
                } else {
                    bytes += tokens[random.next(below: tokens.count)]
                }
            }
            let outcome = ManifestParser.parse(bytes: bytes, file: Self.file)
            checkShape(outcome, lines: bytes.filter { $0 == 0x0A }.count + 1)
            if outcome.manifest == nil { outcomes.errors += 1 } else { outcomes.manifests += 1 }
        }
        #expect(outcomes.errors + outcomes.manifests == 400)
        #expect(outcomes.errors > 0)
    }

    @Test(
        "M1: mistakes the TOML library would abort on are refused before it sees them, with file and line",
        arguments: [
            ("id = \"com.ex.maps\"\n[é]\n", 2, nil as String?, "a table header must start with a key"),
            ("[[[a]]]\n", 1, nil, "a table header must start with a key"),
            ("id = \"com.ex.maps\"\n[\n", 2, nil, "a table header must start with a key"),
            // toml++ skips a byte order mark, then meets the header: the check must look past the mark too.
            ("\u{FEFF}[$\".[\"(\"", 1, nil, "a table header must start with a key"),
            ("users = [\n  \"alice\",\n}\n", 3, nil, "expected a value or ']' in the array, found '}'"),
            ("x = { y = [1, }\n", 1, "x", "expected a value or ']' in the array, found '}'"),
            (
                "id = \"com.ex.maps\"\nsince = 1979-05-27T.7:32:00Z\n", 2, "since",
                "not a well-formed number, date or time"
            ),
            ("x = [1, 2, 1979-05-27T07:3:00]\n", 1, "x", "not a well-formed number, date or time"),
        ]
    )
    func refusedBeforeParsing(text: String, line: Int, key: String?, problem: String) {
        let outcome = ManifestParser.parse(text: text, file: Self.file)
        #expect(outcome.manifest == nil)
        #expect(outcome.errors.map(\.line) == [line])
        #expect(outcome.errors.map(\.key) == [key])
        #expect(outcome.errors.first?.message.hasPrefix("not valid TOML: \(problem)") == true)
    }

    @Test("M1: a byte order mark before the first line is skipped, as the TOML library skips it")
    func byteOrderMark() {
        // The key on the mark's own line is located there, so its error names line 1.
        let bad = ManifestParser.parse(bytes: Array("\u{FEFF}id = 1\nidentity = \"any\"\n".utf8), file: Self.file)
        #expect(bad.manifest == nil)
        #expect(bad.errors.map(\.line) == [1])
        #expect(bad.errors.map(\.key) == ["id"])
        let good = ManifestParser.parse(
            bytes: Array("\u{FEFF}id = \"com.ex.maps\"\nidentity = \"any\"\n".utf8),
            file: Self.file
        )
        #expect(good.errors == [])
        #expect(good.manifest?.identity == .any)
    }

    @Test("M1: well-formed numbers, dates and times pass the check that guards the TOML library")
    func wellFormedScalarsPass() {
        let outcome = ManifestParser.parse(
            text: """
                id = "com.ex.maps"
                identity = "any"
                [extra]
                numbers = [0, -1, +1_000, 0xDEAD_beef, 0o755, 0b1010, 1.5, -0.0, 6.626e-34, 1E+5, inf, -inf, +nan]
                dates = [1979-05-27, 07:32:00, 07:32:00.999, 1979-05-27T07:32:00, 1979-05-27 07:32:00Z]
                offsets = [1979-05-27t07:32:00.5z, 1979-05-27T00:32:00-07:00]
                nested = [[1, [2]], { a = [3, { b = 4 }] }, \"\"\"
                ]\"\"\", 5]
                """,
            file: Self.file
        )
        #expect(outcome.errors == [])
        #expect(outcome.manifest?.identity == .any)
        #expect(outcome.warnings.map(\.description) == ["\(Self.file):3: key extra: unknown key, ignored"])
    }

    @Test("M1: nesting far deeper than any manifest needs is an error, not a stack overflow")
    func deepNesting() {
        let depth = 20_000
        let tables = "x = " + String(repeating: "{ a = ", count: depth) + "1" + String(repeating: " }", count: depth)
        let arrays = "x = " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        for text in [tables, arrays] {
            let outcome = ManifestParser.parse(text: "id = \"com.ex.maps\"\n" + text, file: Self.file)
            #expect(outcome.manifest == nil)
            #expect(outcome.errors.map(\.line) == [2])
        }
    }
}
