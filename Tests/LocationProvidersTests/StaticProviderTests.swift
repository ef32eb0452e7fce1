import LocationCore
import LocationProtocol
import NIOEmbedded
import Testing

@testable import LocationProviders

/// The static provider and the calendar arithmetic every provider stamps fixes with.
@Suite("Static provider and Unix time")
struct StaticProviderTests {
    @Test("U3: the static provider reports its point once per start, on the loop's next turn")
    func staticPoint() {
        let loop = EmbeddedEventLoop()
        let provider = StaticProvider(
            latitude: -33.8568,
            longitude: 151.2153,
            altitude: 58.5,
            accuracy: 12,
            eventLoop: loop,
            unixTime: { 1_795_348_800 }
        )
        var updates: [ProviderUpdate] = []
        provider.start { updates.append($0) }
        #expect(updates.isEmpty, "nothing is reported inside start: the daemon is still handling an event")
        loop.run()
        let fix = Fix(
            latitude: -33.8568,
            longitude: 151.2153,
            altitude: 58.5,
            horizontalAccuracy: 12,
            timestamp: 1_795_348_800
        )
        #expect(updates == [.state(.running, detail: nil), .fix(fix)])
        #expect(provider.state == .running)
        loop.advanceTime(by: .seconds(3600))
        #expect(updates.count == 2)

        provider.stop()
        #expect(provider.state == .stopped)
        provider.start { updates.append($0) }
        loop.run()
        #expect(updates.count == 4)
    }

    @Test("U3: a static provider stopped before its first report reports nothing")
    func stopBeforeReport() {
        let loop = EmbeddedEventLoop()
        let provider = StaticProvider(latitude: 0, longitude: 0, altitude: nil, accuracy: 5, eventLoop: loop)
        var updates: [ProviderUpdate] = []
        provider.start { updates.append($0) }
        provider.stop()
        loop.run()
        #expect(updates.isEmpty)
    }

    @Test("U1: UTC dates and ISO 8601 times become Unix seconds")
    func unixTime() {
        #expect(UnixTime.seconds(year: 1970, month: 1, day: 1, secondsOfDay: 0) == 0)
        #expect(UnixTime.seconds(year: 1969, month: 12, day: 31, secondsOfDay: 0) == -86_400)
        #expect(UnixTime.seconds(year: 2000, month: 3, day: 1, secondsOfDay: 0) == 951_868_800)
        #expect(UnixTime.seconds(year: 1994, month: 3, day: 23, secondsOfDay: 0) == 764_380_800)
        #expect(UnixTime.parseISO8601("2026-11-22T12:00:00.000Z") == 1_795_348_800)
        #expect(UnixTime.parseISO8601("2026-11-22T12:00:17Z") == 1_795_348_817)
        #expect(UnixTime.parseISO8601("2026-11-22T12:00:17.25Z") == 1_795_348_817.25)
        for bad in [
            "", "2026-11-22", "2026-11-22T12:00:17", "2026-13-22T12:00:17Z", "2026-11-22T25:00:17Z",
            "2026-11-22T12:00:17.Z", "2026-11-22T12:00:17.x5Z", "2026-11-22 12:00:17Z", "２０２６-11-22T12:00:17Z",
            // A fraction too long to read without overflow (found by fuzzing gpsd's reports).
            "2026-11-22T12:00:05.0002222222222222222222222222222222222222222222222222222222222Z",
        ] {
            #expect(UnixTime.parseISO8601(bad) == nil, "\(bad)")
        }
    }

    @Test("PROTOCOL: the provider states are spelled on the wire as io.locd.Admin's ProviderStatus.state lists them")
    func stateWireNames() {
        let names = ProviderState.allCases.map(\.rawValue)
        #expect(names == ["stopped", "connecting", "running", "retrying", "failed"])
        #expect(LocationInterfaces.admin.contains("  state: ?(\(names.joined(separator: ", "))),\n"))
        for name in names { #expect(ProviderState(rawValue: name)?.rawValue == name) }
    }

    @Test("U3: reconnection pauses double from 0.25 s to 8 s and start over once a connection works")
    func backoff() {
        var backoff = ReconnectBackoff()
        let delays = (0..<8).map { _ in backoff.nextDelay() }
        #expect(delays == [0.25, 0.5, 1, 2, 4, 8, 8, 8])
        backoff.reset()
        #expect(backoff.nextDelay() == 0.25)
    }
}
