import Foundation
import LocationCore
import NIOCore
import NIOEmbedded
import Testing

@testable import LocationProviders

/// The NMEA replay in virtual time: epochs at their UTC spacing divided by `speed-factor`, looping, with
/// losses of fix where the file has none.
@Suite("NMEA replay provider")
struct NMEAReplayProviderTests {
    /// A route file of GGA + RMC pairs at `seconds` after 12:00:00, `nil` seconds' entries being no-fix epochs.
    private static func sentence(_ body: String) -> String {
        let sum = body.utf8.reduce(0, ^)
        let hex = String(sum, radix: 16, uppercase: true)
        return "$\(body)*\(sum < 16 ? "0" : "")\(hex)\r\n"
    }

    private static func time(_ seconds: Int) -> String {
        "12" + String(format: "%02d%02d", seconds / 60, seconds % 60) + ".00"
    }

    /// A fix at 48°07.038′ N, 11°31.000′ E plus `step` thousandths of a minute of latitude.
    static func fix(at seconds: Int, step: Int = 0) -> String {
        let minutes = String(format: "%06.3f", 7.038 + Double(step) / 1000)
        return sentence("GPGGA,\(time(seconds)),48\(minutes),N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
            + sentence("GPRMC,\(time(seconds)),A,48\(minutes),N,01131.000,E,022.4,084.4,221126,003.1,W")
    }

    static func noFix(at seconds: Int) -> String {
        sentence("GPGGA,\(time(seconds)),,,,,0,00,99.9,,,,,,") + sentence("GPRMC,\(time(seconds)),V,,,,,,,221126,,,N")
    }

    /// Writes `text` to a fresh temporary file.
    static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "route-\(UUID().uuidString.prefix(8)).nmea"
        ).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Everything the provider reported, in order.
    final class Recorder {
        var updates: [ProviderUpdate] = []
        var fixes: [Fix] { updates.compactMap { if case .fix(let fix) = $0 { fix } else { nil } } }
        var lastLatitudeStep: Int? {
            fixes.last.map { Int((($0.latitude - 48) * 60 - 7.038) * 1000 + 0.5) }
        }
        var losses: Int { updates.filter { if case .fixLost = $0 { true } else { false } }.count }
        var states: [ProviderState] { updates.compactMap { if case .state(let state, _) = $0 { state } else { nil } } }
        var warnings: [String] { updates.compactMap { if case .warning(let text) = $0 { text } else { nil } } }
    }

    private func started(
        _ text: String,
        speedFactor: Double,
        clock: @escaping @Sendable () -> Double = { 1_795_348_800 }
    ) throws -> (EmbeddedEventLoop, NMEAReplayProvider, Recorder) {
        let loop = EmbeddedEventLoop()
        let provider = NMEAReplayProvider(
            file: try Self.file(text),
            speedFactor: speedFactor,
            eventLoop: loop,
            unixTime: clock
        )
        let recorder = Recorder()
        provider.start { recorder.updates.append($0) }
        loop.run()
        return (loop, provider, recorder)
    }

    @Test("U3: epochs are delivered at their UTC spacing divided by speed-factor, the first at once")
    func timing() throws {
        // Epochs at 0, 2 and 5 s, replayed twice as fast: at 0, 1 and 2.5 s.
        let text = Self.fix(at: 0, step: 0) + Self.fix(at: 2, step: 1) + Self.fix(at: 5, step: 2)
        let (loop, provider, recorder) = try started(text, speedFactor: 2)
        #expect(provider.state == .running)
        #expect(recorder.states == [.running])
        #expect(recorder.fixes.count == 1)
        #expect(recorder.lastLatitudeStep == 0)
        loop.advanceTime(by: .milliseconds(999))
        #expect(recorder.fixes.count == 1)
        loop.advanceTime(by: .milliseconds(1))
        #expect(recorder.fixes.count == 2)
        #expect(recorder.lastLatitudeStep == 1)
        loop.advanceTime(by: .milliseconds(1499))
        #expect(recorder.fixes.count == 2)
        loop.advanceTime(by: .milliseconds(1))
        #expect(recorder.fixes.count == 3)
        #expect(recorder.lastLatitudeStep == 2)
    }

    @Test("U3: the replay loops after the last epoch, pausing as long as the route's last step")
    func looping() throws {
        // Epochs at 0 and 3 s at speed 3: at 0 and 1 s, then the first again 1 s later, and so on.
        let (loop, _, recorder) = try started(Self.fix(at: 0, step: 0) + Self.fix(at: 3, step: 1), speedFactor: 3)
        loop.advanceTime(by: .seconds(1))
        #expect(recorder.lastLatitudeStep == 1)
        loop.advanceTime(by: .milliseconds(999))
        #expect(recorder.fixes.count == 2)
        loop.advanceTime(by: .milliseconds(1))
        #expect(recorder.fixes.count == 3)
        #expect(recorder.lastLatitudeStep == 0)
        loop.advanceTime(by: .seconds(1))
        #expect(recorder.lastLatitudeStep == 1)
        loop.advanceTime(by: .seconds(10))
        #expect(recorder.fixes.count == 4 + 10)
    }

    @Test("U3: fixes carry the file's position, accuracy from HDOP, speed and course, stamped by the wall clock")
    func fixValues() throws {
        let (_, _, recorder) = try started(Self.fix(at: 0), speedFactor: 1, clock: { 1_795_348_817.5 })
        let fix = try #require(recorder.fixes.first)
        #expect(abs(fix.latitude - 48.1173) < 1e-9)
        #expect(abs(fix.longitude - 11.516666666666667) < 1e-9)
        #expect(fix.altitude == 545.4)
        // HDOP 0.9 × 5 m.
        #expect(abs(fix.horizontalAccuracy - 4.5) < 1e-9)
        #expect(abs(fix.speed! - 11.523555555555554) < 1e-9)
        #expect(fix.course == 84.4)
        #expect(fix.timestamp == 1_795_348_817.5)
    }

    @Test("D9: an epoch with GGA quality 0 and RMC status V is a loss of fix, and the fix comes back after it")
    func fixLossAndRecovery() throws {
        let text = Self.fix(at: 0) + Self.noFix(at: 1) + Self.noFix(at: 2) + Self.fix(at: 3, step: 3)
        let (loop, _, recorder) = try started(text, speedFactor: 1)
        #expect(recorder.fixes.count == 1 && recorder.losses == 0)
        loop.advanceTime(by: .seconds(1))
        #expect(recorder.losses == 1)
        loop.advanceTime(by: .seconds(1))
        #expect(recorder.losses == 2)
        #expect(recorder.fixes.count == 1)
        loop.advanceTime(by: .seconds(1))
        #expect(recorder.fixes.count == 2)
        #expect(recorder.lastLatitudeStep == 3)
    }

    @Test("U3: an epoch is a loss of fix if either of its sentences has none")
    func mixedEpoch() {
        var parser = NMEASentenceParser()
        let gga = "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n"
        let voidRMC = "$GPRMC,123519,V,,,,,,,221126,,,N*"
        let sum = "GPRMC,123519,V,,,,,,,221126,,,N".utf8.reduce(0, ^)
        let text = gga + voidRMC + String(sum, radix: 16, uppercase: true) + "\r\n"
        let route = NMEARoute(sentences: parser.sentences(in: Array(text.utf8)))
        #expect(route.epochs.count == 1)
        #expect(route.epochs.first?.fix == nil)
    }

    @Test("U3: a route crosses midnight forwards, not a day backwards")
    func midnight() {
        var parser = NMEASentenceParser()
        let before = "$GPRMC,235959,A,4807.038,N,01131.000,E,0.0,,221126,,,A*"
        let after = "$GPRMC,000001,A,4807.038,N,01131.000,E,0.0,,231126,,,A*"
        func line(_ text: String) -> String {
            let body = text.dropFirst().dropLast()
            let sum = body.utf8.reduce(0, ^)
            return text + (sum < 16 ? "0" : "") + String(sum, radix: 16, uppercase: true) + "\n"
        }
        let route = NMEARoute(sentences: parser.sentences(in: Array((line(before) + line(after)).utf8)))
        #expect(route.epochs.map(\.offset) == [0, 2])
    }

    @Test("U3: stopping cancels the replay: nothing more is reported")
    func stopCancels() throws {
        let (loop, provider, recorder) = try started(Self.fix(at: 0) + Self.fix(at: 1), speedFactor: 1)
        let count = recorder.updates.count
        provider.stop()
        #expect(provider.state == .stopped)
        loop.advanceTime(by: .seconds(60))
        #expect(recorder.updates.count == count)
    }

    @Test("U3: a start followed at once by a stop reports nothing")
    func stopBeforeFirstTurn() throws {
        let loop = EmbeddedEventLoop()
        let provider = NMEAReplayProvider(file: try Self.file(Self.fix(at: 0)), speedFactor: 1, eventLoop: loop)
        let recorder = Recorder()
        provider.start { recorder.updates.append($0) }
        provider.stop()
        loop.run()
        loop.advanceTime(by: .seconds(5))
        #expect(recorder.updates.isEmpty)
    }

    @Test("U3: unusable lines are skipped and counted in one warning; the rest of the route plays")
    func countedWarning() throws {
        let text =
            "not nmea\n" + Self.fix(at: 0) + "$GPGGA,1235\n"
            + "$GPGGA,123519,4807.039,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\n"
        let (_, provider, recorder) = try started(text, speedFactor: 1)
        #expect(provider.state == .running)
        #expect(recorder.fixes.count == 1)
        #expect(recorder.warnings.count == 1)
        #expect(
            recorder.warnings.first?.hasSuffix(
                "skipped 3 unusable lines: 1 notASentence, 1 missingChecksum, 1 checksumMismatch"
            ) == true
        )
        #expect(provider.lastParse.rejected == 3)
    }

    @Test("U3: a missing file, or one without a single fix, fails the provider with what to do")
    func failures() throws {
        let loop = EmbeddedEventLoop()
        let missing = NMEAReplayProvider(file: "/nonexistent/route.nmea", speedFactor: 1, eventLoop: loop)
        let recorder = Recorder()
        missing.start { recorder.updates.append($0) }
        loop.run()
        #expect(missing.state == .failed)
        guard case .state(.failed, let detail) = recorder.updates.first else {
            Issue.record("expected a failure, got \(recorder.updates)")
            return
        }
        #expect(detail?.contains("cannot read /nonexistent/route.nmea") == true)

        let (_, empty, emptyRecorder) = try started("garbage\n" + Self.noFix(at: 0), speedFactor: 1)
        #expect(empty.state == .failed)
        #expect(emptyRecorder.fixes.isEmpty)
        guard case .state(.failed, let why) = emptyRecorder.updates.first else {
            Issue.record("expected a failure, got \(emptyRecorder.updates)")
            return
        }
        #expect(why?.contains("has no GGA or RMC sentence with a fix (1 lines rejected: 1 notASentence)") == true)
    }
}
