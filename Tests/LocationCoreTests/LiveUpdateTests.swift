import LocationTestSupport
import Testing

@testable import LocationCore

/// U1, U2 and D10 on `LiveUpdates` streams: which updates carry which location, in virtual time.
@Suite("Live updates")
struct LiveUpdateTests {
    /// The Tokyo Station fix `seconds` after ``Harness/here``, displaced north and east in metres.
    static func fix(at seconds: Double, north: Double = 0, east: Double = 0) -> Fix {
        var fix = Harness.here.moved(north: north, east: east)
        fix.timestamp += seconds
        return fix
    }

    /// The Tokyo Station cell's centre, worked out by hand in ``QuantisationTests/tokyoVector()``.
    static let tokyoCell = (latitude: 35.685, longitude: 139.722_991_689_750_7)

    /// Moves virtual time forward and delivers a fix then.
    private func deliver(_ h: inout Harness, _ fix: Fix, after seconds: Double) {
        h.now = h.now.adding(.seconds(seconds))
        h.send(.fix(fix))
    }

    private func authorizedStream(
        _ configuration: LiveConfiguration = .standard,
        precise: Bool = true
    ) -> (Harness, ClientID, CallID) {
        var h = Harness()
        h.set("com.ex.maps", .whileUsing, precise: precise)
        h.send(.fix(Harness.here))
        let app = h.launch("com.ex.maps")
        let stream = h.call(app, .liveUpdates(configuration))
        return (h, app, stream)
    }

    // MARK: U1

    @Test("U1: the first update carries the current fix, and a default stream gets every later fix")
    func firstUpdateAndEveryFix() {
        var (h, _, stream) = authorizedStream()
        #expect(h.messages(to: stream) == [.update([], location: Harness.here)])
        let next = Self.fix(at: 1, north: 0.5)
        deliver(&h, next, after: 1)
        #expect(h.messages(to: stream) == [.update([], location: next)])
        deliver(&h, next, after: 1)
        #expect(h.messages(to: stream) == [.update([], location: next)], "a default stream filters nothing")
    }

    @Test("U1: an update withheld by its flags carries no location; the next allowed one carries the current fix")
    func withheldThenCurrent() {
        var (h, app, stream) = authorizedStream(.fitness)
        h.call(app, .setAppState(.background))
        h.advance(10)
        #expect(h.messages(to: stream) == [.update([.insufficientlyInUse])])
        let moved = Self.fix(at: 20, north: 1)
        deliver(&h, moved, after: 1)
        #expect(h.messages(to: stream).isEmpty, "a fix changes nothing while the location is withheld")
        h.call(app, .setAppState(.foreground))
        #expect(h.messages(to: stream) == [.update([], location: moved)], "unfiltered: the first after withholding")
    }

    @Test(
        "U1: each configuration's distance filter decides which fixes of a slow walk are sent",
        arguments: [
            (LiveConfiguration.standard, 10), (.automotiveNavigation, 10), (.airborne, 10), (.fitness, 5),
            (.otherNavigation, 2),
        ]
    )
    func distanceFilters(configuration: LiveConfiguration, sent: Int) {
        var (h, _, stream) = authorizedStream(configuration)
        // Ten fixes a second apart, each 1.01 m farther north: fitness (2 m) sends every second one,
        // otherNavigation (5 m) every fifth; neither heartbeat passes between two sent fixes.
        var expected: [Fix?] = [Harness.here]
        for step in 1...10 {
            let fix = Self.fix(at: Double(step), north: 1.01 * Double(step))
            deliver(&h, fix, after: 1)
            let every = configuration.distanceFilter == 0 ? 1 : Int(configuration.distanceFilter)
            if step.isMultiple(of: every) { expected.append(fix) }
        }
        #expect(h.locations(on: stream).count == 1 + sent)
        #expect(h.locations(on: stream) == expected)
    }

    @Test(
        "U1: the heartbeat sends a fix that did not move once its time has passed",
        arguments: [(LiveConfiguration.fitness, [5.0, 10.0]), (.otherNavigation, [10.0])]
    )
    func heartbeat(configuration: LiveConfiguration, at times: [Double]) {
        var (h, _, stream) = authorizedStream(configuration)
        var sentAt: [Double] = []
        for second in 1...12 {
            deliver(&h, Self.fix(at: Double(second)), after: 1)
            if case .update(_, let location?)? = h.messages(to: stream).first {
                sentAt.append(location.timestamp - Harness.here.timestamp)
            }
        }
        #expect(sentAt == times)
    }

    @Test("U1: a fix with no place on Earth is dropped, and no coordinate makes the core trap")
    func garbageFixDropped() {
        var h = Harness()
        h.set("com.ex.maps", .whileUsing)
        let app = h.launch("com.ex.maps")
        let stream = h.call(app, .liveUpdates(.standard))
        let garbage = [
            Fix(latitude: .nan, longitude: 0, horizontalAccuracy: 5, timestamp: 0),
            Fix(latitude: 0, longitude: .infinity, horizontalAccuracy: 5, timestamp: 0),
            Fix(latitude: 91, longitude: 0, horizontalAccuracy: 5, timestamp: 0),
            Fix(latitude: 0, longitude: -180.5, horizontalAccuracy: 5, timestamp: 0),
            Fix(latitude: 0, longitude: 0, horizontalAccuracy: -1, timestamp: 0),
            Fix(latitude: 0, longitude: 0, horizontalAccuracy: .nan, timestamp: 0),
        ]
        for fix in garbage {
            h.send(.fix(fix))
            #expect(h.messages(to: stream).isEmpty)
        }
        #expect(!h.core.providerReportsFix)
        // The grid and the geodesy take anything without trapping.
        _ = GridCell(latitude: .nan, longitude: -.infinity)
        _ = GridCell(latitude: 1e300, longitude: -1e300)
        #expect(Geodesy.distance(latitude: .nan, longitude: 0, toLatitude: 0, longitude: 0).isNaN)
        #expect(Geodesy.sine(1e300).isNaN)
    }

    // MARK: U2

    @Test("U2: reduced accuracy sends the quantised point at once, then a new cell at most once per 15 minutes")
    func reducedThrottle() throws {
        var (h, _, stream) = authorizedStream(precise: false)
        let first = try #require(h.locations(on: stream).first ?? nil)
        #expect(h.messages(to: stream).count == 1)
        #expect(
            abs(first.latitude - Self.tokyoCell.latitude) < 1e-12
                && abs(first.longitude - Self.tokyoCell.longitude) < 1e-9
        )
        #expect(first.horizontalAccuracy == 5000)
        #expect(first.altitude == nil && first.verticalAccuracy == nil && first.speed == nil && first.course == nil)

        // A walk east at 80 m a minute for 40 minutes, a fix a minute, altitude and speed included.
        var sentAt: [Double] = []
        for minute in 1...40 {
            var fix = Self.fix(at: Double(minute * 60), east: 80 * Double(minute))
            fix.altitude = 40
            fix.speed = 1.3
            deliver(&h, fix, after: 60)
            for case .update(let mask, let location?) in h.messages(to: stream) {
                #expect(mask == [.accuracyLimited])
                #expect(location.altitude == nil && location.speed == nil)
                sentAt.append(Double(minute))
            }
        }
        // 1200 m east after 15 minutes is past the cell's edge (1018 m) but within its margin: the same cell,
        // so nothing goes. 1520 m after 19 minutes has left it: the next cell east goes at once, and nothing
        // more inside the 15 minutes after it.
        #expect(sentAt == [19], "the first at once, then only a new cell, at most one per 15 minutes")
        let locations = h.locations(on: stream).compactMap { $0 }
        #expect(abs(locations[1].longitude - (first.longitude + 360.0 / 3249)) < 1e-9)
        #expect(locations[1].latitude == first.latitude)
    }

    @Test("U2: no repeated approximate location while the device stays inside its cell")
    func reducedNoRepeatInsideCell() throws {
        var (h, _, stream) = authorizedStream(precise: false)
        let first = try #require(h.locations(on: stream).first ?? nil)
        // Two hours of pacing 300 m back and forth inside the cell, a fix a minute: never stationary, never
        // news. Each quarter hour used to bring the same point again.
        for minute in 1...120 {
            deliver(&h, Self.fix(at: Double(minute * 60), east: minute % 2 == 0 ? 0 : 300), after: 60)
            #expect(h.locations(on: stream).count == 1, "minute \(minute): the place has not changed")
        }
        // Then the device leaves the cell: long past the throttle, the new cell goes with that fix.
        deliver(&h, Self.fix(at: 121 * 60, east: 5000), after: 60)
        let fresh = try #require(h.messages(to: stream).first)
        guard case .update(let mask, let location?) = fresh else {
            Issue.record("expected a fresh location, got \(fresh)")
            return
        }
        #expect(mask == [.accuracyLimited])
        #expect(abs(location.longitude - (first.longitude + 360.0 / 3249)) < 1e-9)
        // And walking back inside the quarter hour after it reveals nothing until 15 minutes have passed.
        deliver(&h, Self.fix(at: 122 * 60), after: 60)
        #expect(h.messages(to: stream).isEmpty)
        deliver(&h, Self.fix(at: 137 * 60, north: 20), after: 15 * 60)
        #expect(h.locations(on: stream).last??.longitude == first.longitude)
    }

    @Test("U2: a change of flags inside the throttle repeats the last reduced location, never a fresh one")
    func reducedMaskChangeRepeats() throws {
        var (h, app, stream) = authorizedStream(precise: false)
        let first = try #require(h.locations(on: stream).first ?? nil)
        // Five kilometres east: another cell, but the throttle holds it back.
        deliver(&h, Self.fix(at: 60, east: 5000), after: 60)
        #expect(h.messages(to: stream).isEmpty)
        h.call(app, .setAppState(.background))
        h.advance(10)
        #expect(h.messages(to: stream) == [.update([.insufficientlyInUse, .accuracyLimited])])
        h.call(app, .setAppState(.foreground))
        #expect(h.messages(to: stream) == [.update([.accuracyLimited], location: first)])
        // Once 15 minutes have passed since the first, the next fix reveals the new cell. (The walk goes on
        // 100 m: a fix where the last one was, 14 minutes later, would be stationary and withheld.)
        h.now = h.now.adding(.seconds(900 - 70))
        h.send(.fix(Self.fix(at: 900, east: 5100)))
        let fresh = try #require(h.locations(on: stream).last ?? nil)
        #expect(fresh.longitude > first.longitude)
        #expect(fresh.horizontalAccuracy == 5000)
    }

    @Test("U2: temporary full accuracy lifts the reduction for that app at once, until it stops being in use")
    func temporaryFullAccuracy() throws {
        var h = Harness()
        h.set("com.ex.maps", .whileUsing, precise: false)
        h.set("com.ex.run", .whileUsing, precise: false)
        h.send(.fix(Harness.here))
        let maps = h.launch("com.ex.maps")
        let mapsStream = h.call(maps, .liveUpdates(.standard))
        let run = h.launch("com.ex.run")
        let runStream = h.call(run, .liveUpdates(.standard))
        let reduced = try #require(h.locations(on: mapsStream).first ?? nil)
        #expect(reduced.horizontalAccuracy == 5000)

        h.call(maps, .requestTemporaryFullAccuracy(purposeKey: "Navigation"))
        try #require(h.answer("com.ex.maps", .allow) == nil)
        #expect(h.messages(to: mapsStream) == [.update([], location: Harness.here)], "precise at once")
        let moved = Self.fix(at: 1, north: 3)
        deliver(&h, moved, after: 1)
        #expect(h.messages(to: mapsStream) == [.update([], location: moved)])
        #expect(h.messages(to: runStream).isEmpty, "another app stays reduced and throttled")

        // Out of use, the grant ends (L5): back in the foreground the stream is reduced again, and the throttle
        // that started with the first reduced location still runs.
        h.call(maps, .setAppState(.background))
        h.advance(10)
        #expect(h.authorization("com.ex.maps").temporaryFullAccuracy == false)
        h.call(maps, .setAppState(.foreground))
        #expect(h.messages(to: mapsStream) == [.update([.accuracyLimited], location: reduced)])
    }

    // MARK: D10

    @Test("D10: live updates pause while stationary and resume with the fix that moved beyond 10 m")
    func stationaryPause() {
        var (h, _, stream) = authorizedStream()
        // Jitter of a few metres around the anchor, every 10 s.
        let jitter: [(Double, Double)] = [(3, -2), (-4, 1), (2, 4), (-1, -3), (4, 4)]
        for (index, (north, east)) in jitter.enumerated() {
            deliver(&h, Self.fix(at: Double(10 * (index + 1)), north: north, east: east), after: 10)
            #expect(h.locations(on: stream).count == index + 2, "sent while not yet stationary")
        }
        // 60 s after the anchor, with nothing beyond 10 m: stationary, and the update carries no location.
        deliver(&h, Self.fix(at: 60, north: -3), after: 10)
        #expect(h.messages(to: stream) == [.update([.stationary])])
        for second in stride(from: 70.0, through: 120, by: 10) {
            deliver(&h, Self.fix(at: second, north: 6, east: -5), after: 10)
            #expect(h.messages(to: stream).isEmpty, "paused: jitter within 10 m sends nothing")
        }
        let walked = Self.fix(at: 130, north: 30)
        deliver(&h, walked, after: 10)
        #expect(h.messages(to: stream) == [.update([], location: walked)])
    }

    @Test("D10: stationary starts at its deadline even when the provider goes quiet, and ends when the fix is lost")
    func stationaryDeadline() {
        var (h, _, stream) = authorizedStream()
        h.advance(59)
        #expect(h.messages(to: stream).isEmpty)
        h.advance(1)
        #expect(h.messages(to: stream) == [.update([.stationary])])
        h.send(.fixLost)
        #expect(h.messages(to: stream) == [.update([.locationUnavailable])])
        // A fix back at the same place starts a new 60 s: movement is unknown without fixes.
        h.send(.fix(Harness.here))
        #expect(h.messages(to: stream) == [.update([], location: Harness.here)])
    }
}
