import Foundation
import LocationCore
import LocationTestSupport
import Testing

@testable import LocationProviders

/// gpsd's JSON lines, recorded from gpsd 3.22 fed by gpsfake: split anywhere, damaged, or of unknown classes.
@Suite("gpsd message parser")
struct GPSDMessageParserTests {
    /// The recorded session: VERSION, DEVICES, WATCH, DEVICE, TPV (mode 2, 3, 1, 3), SKY and ERROR, CR LF.
    static let session: [UInt8] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/gpsd-session.jsonl")
        return Array((try? Data(contentsOf: url)) ?? Data())
    }()

    /// 2026-11-22T12:00:00Z.
    static let noon = 1_795_348_800.0

    static let expected: [GPSDMessage] = [
        .version(release: "3.22", protocolMajor: 3, protocolMinor: 14),
        .devices(["/dev/pts/1"]),
        .watch(enabled: true),
        .tpv(
            GPSDReport(mode: 2, time: noon + 3, latitude: 35.681236667, longitude: 139.767125, speed: 1.389, track: 90)
        ),
        .tpv(
            GPSDReport(
                mode: 3,
                time: noon + 3,
                latitude: 35.681236667,
                longitude: 139.767125,
                eph: 24.7,
                epv: 48.3,
                speed: 1.389,
                track: 90
            )
        ),
        .sky(visible: 4, used: 4, hdop: 1.3),
        .tpv(GPSDReport(mode: 1, time: noon + 5)),
        .tpv(
            GPSDReport(
                mode: 3,
                time: noon,
                latitude: 35.681236667,
                longitude: 139.767125,
                altitude: 40,
                eph: 17.1,
                epx: 17.94,
                epy: 14.629,
                epv: 48.3
            )
        ),
        .error("Unrecognized request '?FOO;\n'"),
    ]

    @Test("U3: a recorded gpsd session decodes to its VERSION, DEVICES, WATCH, TPV, SKY and ERROR objects")
    func recordedSession() {
        #expect(Self.session.count > 1000, "the fixture is read")
        var parser = GPSDMessageParser()
        #expect(parser.feed(Self.session) == Self.expected)
        #expect(parser.ignoredLines == 1, "the DEVICE object")
        #expect(parser.malformedLines == 0)
        #expect(parser.pendingBytes == 0)
    }

    @Test("U3: each recorded line split in two at every byte decodes the same; the partial line waits for its end")
    func splitAnywhere() {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        for (index, byte) in Self.session.enumerated() where byte == 0x0A {
            lines.append(Self.session[start...index])
            start = index + 1
        }
        #expect(lines.count == 10)
        for line in lines {
            var whole = GPSDMessageParser()
            let expected = whole.feed(line)
            for cut in line.indices {
                var parser = GPSDMessageParser()
                let first = parser.feed(line[..<cut])
                #expect(first.isEmpty)
                #expect(parser.pendingBytes == cut - line.startIndex)
                #expect(first + parser.feed(line[cut...]) == expected)
            }
        }
    }

    @Test("U3: the session read in random small pieces decodes the same")
    func randomPieces() {
        var random = SplitMix64(seed: 2947)
        for _ in 0..<50 {
            var parser = GPSDMessageParser()
            var messages: [GPSDMessage] = []
            var start = 0
            while start < Self.session.count {
                let end = min(Self.session.count, start + 1 + Int(random.next() % 40))
                messages += parser.feed(Self.session[start..<end])
                start = end
            }
            #expect(messages == Self.expected)
        }
    }

    @Test("U1: TPV becomes a fix: eph for accuracy, altMSL and epv only in 3D, the report's time")
    func reportToFix() throws {
        guard case .tpv(let report) = Self.expected[7], case .tpv(let twoD) = Self.expected[3],
            case .tpv(let none) = Self.expected[6]
        else {
            Issue.record("the expected messages changed")
            return
        }
        let fix = try #require(report.fix(receivedAt: 0))
        #expect(
            fix
                == Fix(
                    latitude: 35.681236667,
                    longitude: 139.767125,
                    altitude: 40,
                    horizontalAccuracy: 17.1,
                    verticalAccuracy: 48.3,
                    timestamp: Self.noon
                )
        )
        let flat = try #require(twoD.fix(receivedAt: 0))
        #expect(flat.altitude == nil && flat.verticalAccuracy == nil)
        #expect(flat.horizontalAccuracy == GPSDReport.accuracyWithoutEstimate)
        #expect(flat.speed == 1.389 && flat.course == 90)
        #expect(none.fix(receivedAt: 0) == nil, "mode 1 is no fix")
        // Without eph the larger of epx and epy; without time the time it was received.
        let axes = GPSDReport(mode: 2, latitude: 1, longitude: 2, epx: 3, epy: 7)
        #expect(axes.fix(receivedAt: 42)?.horizontalAccuracy == 7)
        #expect(axes.fix(receivedAt: 42)?.timestamp == 42)
        #expect(GPSDReport(mode: 3, latitude: 1).fix(receivedAt: 0) == nil, "no longitude, no fix")
    }

    @Test("U3: lines that are not JSON objects with a class are counted as malformed; unknown classes ignored")
    func malformedAndUnknown() {
        var parser = GPSDMessageParser()
        let text =
            "not json\r\n{\"no\":\"class\"}\n[1,2]\n{\"class\":7}\n\u{FF}\n"
            + "{\"class\":\"PPS\",\"device\":\"/dev/pts/1\"}\n{\"class\":\"TOFF\"}\n\r\n"
            + "{\"class\":\"TPV\",\"mode\":3,\"lat\":91,\"lon\":\"east\"}\n"
        let messages = parser.feed(Array(text.utf8) + [0xC3, 0x28, 0x0A])
        #expect(parser.malformedLines == 6)
        #expect(parser.ignoredLines == 2)
        // An out-of-range latitude and a longitude that is not a number are dropped, so the report has no fix.
        #expect(messages == [.tpv(GPSDReport(mode: 3))])
    }

    @Test("U3: a line longer than the limit is dropped up to its newline; the next line still decodes")
    func overlongLine() {
        var parser = GPSDMessageParser()
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: GPSDMessageParser.maximumLineLength + 10)
        #expect(parser.feed(long).isEmpty)
        #expect(parser.pendingBytes == 0, "the buffer does not grow past the limit")
        let messages = parser.feed(Array("xxx\n{\"class\":\"ERROR\",\"message\":\"m\"}\n".utf8))
        #expect(messages == [.error("m")])
        #expect(parser.malformedLines == 1)
    }

    @Test("U3: random bytes never trap the parser")
    func randomBytes() {
        var random = SplitMix64(seed: 7)
        var parser = GPSDMessageParser()
        for _ in 0..<2000 {
            let bytes = (0..<Int(random.next() % 200)).map { _ in
                random.next() % 8 == 0 ? UInt8(ascii: "\n") : UInt8(truncatingIfNeeded: random.next())
            }
            _ = parser.feed(bytes)
        }
        #expect(parser.malformedLines > 0)
        parser.reset()
        #expect(parser.feed(Self.session) == Self.expected)
    }
}
