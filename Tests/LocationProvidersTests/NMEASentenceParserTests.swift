import LocationTestSupport
import Testing

@testable import LocationProviders

/// The NMEA 0183 parser: GGA and RMC from any talker, checksums, and lines it must refuse without trapping.
@Suite("NMEA sentence parser")
struct NMEASentenceParserTests {
    private func parse(_ line: String) -> (NMEASentenceParser.Outcome, NMEASentenceParser) {
        var parser = NMEASentenceParser()
        let outcome = parser.parse(Array(line.utf8))
        return (outcome, parser)
    }

    private func gga(_ line: String) throws -> NMEASentence.GGA {
        guard case .sentence(.gga(let gga)) = parse(line).0 else { throw Unexpected(line: line) }
        return gga
    }

    private func rmc(_ line: String) throws -> NMEASentence.RMC {
        guard case .sentence(.rmc(let rmc)) = parse(line).0 else { throw Unexpected(line: line) }
        return rmc
    }

    struct Unexpected: Error {
        var line: String
    }

    @Test("U3: GGA gives position, quality, satellites, HDOP and altitude")
    func ggaVector() throws {
        // 4807.038 N = 48° + 7.038′ / 60 = 48.1173°; 01131.000 E = 11° + 31′ / 60 = 11.516666…°;
        // 12:35:19 UTC = 12 × 3600 + 35 × 60 + 19 = 45319 s after midnight.
        let gga = try gga("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47")
        #expect(gga.secondsOfDay == 45319)
        #expect(abs(gga.latitude! - 48.1173) < 1e-9)
        #expect(abs(gga.longitude! - 11.516666666666667) < 1e-9)
        #expect(gga.quality == 1)
        #expect(gga.satellites == 8)
        #expect(gga.hdop == 0.9)
        #expect(gga.altitude == 545.4)
        #expect(gga.hasFix)
    }

    @Test("U3: RMC gives position, validity, speed in m/s, course and date")
    func rmcVector() throws {
        // 22.4 knots = 22.4 × 1852 m / 3600 s = 11.523555… m/s; 230394 = 23 March 1994.
        let rmc = try rmc("$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A")
        #expect(rmc.secondsOfDay == 45319)
        #expect(rmc.valid)
        #expect(abs(rmc.latitude! - 48.1173) < 1e-9)
        #expect(abs(rmc.longitude! - 11.516666666666667) < 1e-9)
        #expect(abs(rmc.speed! - 11.523555555555554) < 1e-9)
        #expect(rmc.course == 84.4)
        #expect(rmc.date == NMEASentence.Date(year: 1994, month: 3, day: 23))
    }

    @Test("U3: the $GN talker, the southern and western hemispheres, a negative altitude and a fraction of a second")
    func combinedTalkerSouthWest() throws {
        // 3356.1234 S = −(33° + 56.1234′ / 60) = −33.93539°; 15112.5678 W = −(151° + 12.5678′ / 60) = −151.2094633…°.
        let gga = try gga("$GNGGA,001043.00,3356.1234,S,15112.5678,W,2,12,0.6,-5.2,M,,M,,*44")
        #expect(gga.secondsOfDay == 643)
        #expect(abs(gga.latitude! + 33.93539) < 1e-9)
        #expect(abs(gga.longitude! + 151.20946333333333) < 1e-9)
        #expect(gga.altitude == -5.2)
        // 23:59:59.50 = 86399.5 s; 010180 = 1 January 1980 (two-digit years from 80 are 19xx).
        let rmc = try rmc("$GNRMC,235959.50,A,3356.1234,S,15112.5678,W,0.0,,010180,,,D*65")
        #expect(rmc.secondsOfDay == 86399.5)
        #expect(rmc.course == nil)
        #expect(rmc.date == NMEASentence.Date(year: 1980, month: 1, day: 1))
        #expect(rmc.valid)
    }

    @Test("D9: GGA quality 0, RMC status V and RMC mode N have no fix")
    func noFix() throws {
        let gga = try gga("$GLGGA,101010,,,,,0,00,,,M,,M,,*7B")
        #expect(gga.quality == 0)
        #expect(gga.latitude == nil)
        #expect(!gga.hasFix)
        let void = try rmc("$GPRMC,101010,V,,,,,,,221126,,,N*56")
        #expect(!void.valid)
        #expect(!void.hasFix)
        #expect(void.date == NMEASentence.Date(year: 2026, month: 11, day: 22))
        let modeN = try rmc("$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W,N*08")
        #expect(!modeN.valid, "NMEA 2.3's mode N means not valid whatever the status")
    }

    @Test("U3: the checksum's hex digits may be lower case; a line ending and trailing space are allowed")
    func checksumCaseAndLineEnding() throws {
        let rmc = try rmc("$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6a\r\n")
        #expect(rmc.valid)
        let (outcome, _) = parse("$GPGSV,1,1,04,04,45,120,40,05,30,200,38,09,60,300,42,12,15,050,35*7e \r\n")
        #expect(outcome == .ignored(type: "GSV"))
    }

    @Test("U3: a checksum that does not match the bytes is rejected and counted")
    func checksumMismatch() {
        // The classic GGA with one digit of the latitude changed: the checksum still says *47.
        let (outcome, parser) = parse("$GPGGA,123519,4807.039,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47")
        #expect(outcome == .rejected(.checksumMismatch))
        #expect(parser.rejections == [.checksumMismatch: 1])
        #expect(parser.accepted == 0)
        #expect(
            parse("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*48").0 == .rejected(.checksumMismatch)
        )
    }

    @Test(
        "U3: truncated and malformed lines are rejected with their reason, never trapped on",
        arguments: [
            ("$GPGGA,123519,4807.0", NMEASentenceParser.Rejection.missingChecksum),
            ("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*4", .missingChecksum),
            ("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*4G", .missingChecksum),
            ("$GPGGA,123519*77", .malformed),
            ("$GPGGA,123519,48x7.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*0F", .malformed),
            ("$GPGGA,123519,4867.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*41", .malformed),
            ("$GPGGA,123519,4807.038,Q,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*58", .malformed),
            ("$GPGGA,253519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*43", .malformed),
            ("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,1e3,M,46.9,M,,*0E", .malformed),
            ("$GPRMC,123519,X,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*73", .malformed),
            ("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47", .notASentence),
            ("", .notASentence),
            ("$" + String(repeating: "A", count: 300) + "*00", .tooLong),
        ]
    )
    func rejected(line: String, reason: NMEASentenceParser.Rejection) {
        let (outcome, parser) = parse(line)
        #expect(outcome == .rejected(reason))
        #expect(parser.rejected == 1)
        #expect(parser.rejectionSummary == "1 \(reason.rawValue)")
    }

    @Test("U3: valid sentences of other types, and proprietary ones, are ignored and counted apart")
    func otherTypesIgnored() {
        var parser = NMEASentenceParser()
        #expect(
            parser.parse(Array("$GPGSV,1,1,04,04,45,120,40,05,30,200,38,09,60,300,42,12,15,050,35*7E".utf8))
                == .ignored(type: "GSV")
        )
        #expect(parser.parse(Array("$PGRME,15.0,M,45.0,M,25.0,M*1C".utf8)) == .ignored(type: "PGRME"))
        #expect(parser.ignored == 2)
        #expect(parser.rejected == 0)
    }

    @Test("U3: a file's lines are counted: decoded, ignored and rejected by reason; blank lines are not counted")
    func fileCounts() {
        let text = """
            $GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47

            $GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A
            garbage
            $GPGGA,123519,4807.039,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47
            $GPGSV,1,1,04,04,45,120,40,05,30,200,38,09,60,300,42,12,15,050,35*7E
            $GPGGA,1235
            """
        var parser = NMEASentenceParser()
        let sentences = parser.sentences(in: Array(text.utf8))
        #expect(sentences.count == 2)
        #expect(parser.accepted == 2)
        #expect(parser.ignored == 1)
        #expect(parser.rejections == [.notASentence: 1, .checksumMismatch: 1, .missingChecksum: 1])
        #expect(parser.rejectionSummary == "1 notASentence, 1 missingChecksum, 1 checksumMismatch")
    }

    @Test("U3: random bytes, and valid sentences cut or damaged at random, never trap and are all counted")
    func randomBytesNeverTrap() {
        var random = SplitMix64(seed: 0x6e6d_6561)
        let valid = [
            "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47",
            "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A",
            "$GNGGA,001043.00,3356.1234,S,15112.5678,W,2,12,0.6,-5.2,M,,M,,*44",
        ].map { Array($0.utf8) }
        var parser = NMEASentenceParser()
        var lines = 0
        for round in 0..<20_000 {
            var line: [UInt8]
            switch round % 4 {
            case 0:
                line = (0..<Int(random.next() % 120)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            case 1:
                let source = valid[Int(random.next() % 3)]
                line = Array(source.prefix(Int(random.next() % UInt64(source.count + 1))))
            case 2:
                line = valid[Int(random.next() % 3)]
                for _ in 0..<(1 + random.next() % 3) {
                    line[Int(random.next() % UInt64(line.count))] = UInt8(truncatingIfNeeded: random.next())
                }
            default:
                // A damaged body with a recomputed checksum, so the field parsers see the damage.
                var body = Array(valid[Int(random.next() % 3)].dropFirst().dropLast(3))
                body[Int(random.next() % UInt64(body.count))] = UInt8(32 + random.next() % 95)
                let sum = body.reduce(0, ^)
                line = [UInt8(ascii: "$")] + body + Array("*\(String(sum, radix: 16, uppercase: true))".utf8)
                if sum < 16 { line.insert(UInt8(ascii: "0"), at: line.count - 1) }
            }
            lines += 1
            if case .sentence(let sentence) = parser.parse(line) {
                switch sentence {
                case .gga(let gga):
                    #expect(gga.latitude.map { abs($0) <= 90 } ?? true)
                    #expect(gga.longitude.map { abs($0) <= 180 } ?? true)
                case .rmc(let rmc):
                    #expect(rmc.latitude.map { abs($0) <= 90 } ?? true)
                    #expect(rmc.speed.map { $0 >= 0 && $0.isFinite } ?? true)
                }
                #expect(sentence.secondsOfDay.map { $0 >= 0 && $0 < 86_401 } ?? true)
            }
        }
        #expect(parser.accepted + parser.ignored + parser.rejected == lines)
        #expect(parser.rejected > 0)
        #expect(parser.accepted > 0, "the damaged-field rounds leave some sentences valid")
    }
}
