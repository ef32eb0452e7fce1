import LocationTestSupport
import Testing

@testable import LocationCore

/// U4: conditions evaluated against fixes, with hysteresis, the monitor-event flags, and the store.
@Suite("Monitor evaluation")
struct MonitorEvaluationTests {
    /// A 200 m circle around Tokyo Station.
    static let station = CircularCondition(
        latitude: Harness.here.latitude,
        longitude: Harness.here.longitude,
        radius: 200
    )

    /// A fix `north` metres from the station, `seconds` after ``Harness/here``.
    static func fix(north: Double, at seconds: Double, accuracy: Double = 5) -> Fix {
        var fix = Harness.here.moved(north: north, accuracy: accuracy)
        fix.timestamp += seconds
        return fix
    }

    /// A walk from 1 km south of the station, through the circle, to 1 km north of it, a fix every 10 s,
    /// jittering across both boundaries: in at -195 m, out (by 5 m, inside the exit margin) at -205 m and
    /// +215 m, and out for good only at +230 m (beyond 200 + 25).
    static let route: [Double] = [
        -1000, -800, -600, -400, -260, -210, -195, -205, -190, -100, 0, 100, 190, 215, 195, 205, 230, 220, 205,
        300, 600, 1000,
    ]

    private func events(_ h: Harness, _ stream: CallID, inLast: Bool = false) -> [MonitorEventView] {
        h.messages(to: stream, inLast: inLast).compactMap {
            if case .monitorCondition(let event) = $0 { event } else { nil }
        }
    }

    private func walk(_ h: inout Harness, _ route: [Double], from start: Double = 0) {
        for (index, north) in route.enumerated() {
            h.now = h.now.adding(.seconds(10))
            h.send(.fix(Self.fix(north: north, at: start + Double(10 * index))))
        }
    }

    @Test("U4: a monitor reports entering and leaving along a route, once each, though the fixes jitter at the edge")
    func enterAndLeave() {
        var h = Harness()
        h.set("com.ex.maps", .always)
        let app = h.launch("com.ex.maps")
        let stream = h.call(app, .monitorEvents(monitor: "places"))
        h.call(app, .addCondition(monitor: "places", identifier: "station", condition: Self.station))
        walk(&h, Self.route)

        let seen = events(h, stream)
        #expect(seen.map(\.state) == [.unknown, .unsatisfied, .satisfied, .unsatisfied])
        #expect(seen.allSatisfy { $0.identifier == "station" && $0.diagnostic == [] })
        // Dated by the fixes that changed the state: the first fix, -195 m (index 6) and +230 m (index 16).
        #expect(
            seen.map(\.date) == [
                nil, Harness.here.timestamp, Harness.here.timestamp + 60, Harness.here.timestamp + 160,
            ]
        )
    }

    @Test("U4: a state change is stored, and an uncertain fix does not make a condition leave")
    func storedAndAccuracy() {
        var h = Harness()
        h.set("com.ex.maps", .always)
        let app = h.launch("com.ex.maps")
        h.call(app, .addCondition(monitor: "places", identifier: "station", condition: Self.station))
        #expect(h.persisted.compactMap(\.conditionState) == [.unknown])
        h.send(.fix(Self.fix(north: 0, at: 0)))
        #expect(h.persisted.compactMap(\.conditionState) == [.satisfied])
        // 300 m out, but the fix is good to only 150 m: not clearly outside 200 + 150.
        h.send(.fix(Self.fix(north: 300, at: 10, accuracy: 150)))
        #expect(h.persisted.compactMap(\.conditionState).isEmpty)
        h.send(.fix(Self.fix(north: 300, at: 20, accuracy: 10)))
        #expect(h.persisted.compactMap(\.conditionState) == [.unsatisfied])
    }

    @Test("U4: a condition added while the provider has a fix is evaluated at once")
    func evaluatedOnAdd() {
        var h = Harness()
        h.set("com.ex.maps", .always)
        h.send(.fix(Harness.here))
        let app = h.launch("com.ex.maps")
        let stream = h.call(app, .monitorEvents(monitor: "places"))
        h.call(app, .addCondition(monitor: "places", identifier: "station", condition: Self.station))
        #expect(events(h, stream, inLast: true).map(\.state) == [.satisfied])
    }

    @Test("U4: monitoring out of use needs authorizedAlways; with whenInUse the state waits and the flag says why")
    func backgroundNeedsAlways() {
        var h = Harness()
        h.set("com.ex.maps", .whileUsing)
        let app = h.launch("com.ex.maps")
        let stream = h.call(app, .monitorEvents(monitor: "places"))
        h.call(app, .addCondition(monitor: "places", identifier: "station", condition: Self.station))
        walk(&h, [0])
        #expect(events(h, stream).last?.state == .satisfied)

        h.call(app, .setAppState(.background))
        h.advance(10)
        #expect(h.messages(to: stream) == [.monitor([.insufficientlyInUse])])
        walk(&h, [1000], from: 20)
        #expect(h.messages(to: stream).isEmpty, "not evaluated out of use")
        #expect(events(h, stream).last?.state == .satisfied)

        h.set("com.ex.maps", .always)
        #expect(h.messages(to: stream) == [.monitor([])], "Always lifts the flag (D4's exception)")
        walk(&h, [1000], from: 30)
        #expect(events(h, stream, inLast: true).map(\.state) == [.unsatisfied])
    }

    @Test("U4: with reduced accuracy a monitor does not evaluate and its events say accuracyLimited")
    func reducedAccuracy() {
        var h = Harness()
        h.set("com.ex.maps", .always, precise: false)
        let app = h.launch("com.ex.maps")
        let stream = h.call(app, .monitorEvents(monitor: "places"))
        h.call(app, .addCondition(monitor: "places", identifier: "station", condition: Self.station))
        walk(&h, [0])
        #expect(events(h, stream).map(\.state) == [.unknown])
        #expect(events(h, stream).first?.diagnostic == [.accuracyLimited])
    }

    @Test("U4: a circle wider than 100 km or reaching a pole reports conditionUnsupported and stays unknown")
    func unsupported() {
        var h = Harness()
        h.set("com.ex.maps", .always)
        let app = h.launch("com.ex.maps")
        let stream = h.call(app, .monitorEvents(monitor: "places"))
        let wide = CircularCondition(
            latitude: Harness.here.latitude,
            longitude: Harness.here.longitude,
            radius: 150_000
        )
        let polar = CircularCondition(latitude: 89.9, longitude: 0, radius: 20_000)
        h.call(app, .addCondition(monitor: "places", identifier: "wide", condition: wide))
        h.call(app, .addCondition(monitor: "places", identifier: "polar", condition: polar))
        h.call(app, .addCondition(monitor: "places", identifier: "station", condition: Self.station))
        walk(&h, [0])
        let seen = events(h, stream)
        #expect(seen.filter { $0.identifier != "station" }.allSatisfy { $0.state == .unknown })
        #expect(seen.filter { $0.identifier != "station" }.allSatisfy { $0.diagnostic == [.conditionUnsupported] })
        #expect(
            seen.last
                == MonitorEventView(
                    monitor: "places",
                    identifier: "station",
                    state: .satisfied,
                    diagnostic: [],
                    date: Harness.here.timestamp
                )
        )
    }

    @Test("U4: the 21st condition of an app is not evaluated until an earlier one is removed")
    func limitNotEvaluated() {
        var h = Harness()
        h.set("com.ex.maps", .always)
        let app = h.launch("com.ex.maps")
        let stream = h.call(app, .monitorEvents(monitor: "places"))
        for index in 0..<21 {
            h.call(app, .addCondition(monitor: "places", identifier: "c\(index)", condition: Self.station))
        }
        walk(&h, [0])
        let evaluated = events(h, stream, inLast: true)
        #expect(evaluated.count == 20)
        #expect(!evaluated.contains { $0.identifier == "c20" })
        h.call(app, .removeCondition(monitor: "places", identifier: "c3"))
        #expect(
            h.persisted == [.conditionRemoved(AppKey.noUser("com.ex.maps"), monitor: "places", identifier: "c3")]
        )
        #expect(
            events(h, stream, inLast: true) == [
                MonitorEventView(monitor: "places", identifier: "c20", state: .unknown, diagnostic: [])
            ]
        )
        walk(&h, [0], from: 10)
        #expect(events(h, stream, inLast: true).map(\.identifier) == ["c20"])
    }

    @Test("U4: a failing store sets persistenceUnavailable on monitors only, until it takes writes again")
    func persistenceUnavailable() {
        var h = Harness()
        h.set("com.ex.maps", .always)
        h.send(.fix(Harness.here))
        let app = h.launch("com.ex.maps")
        let monitor = h.call(app, .monitorEvents(monitor: "places"))
        let updates = h.call(app, .liveUpdates(.standard))
        h.send(.storeHealth(healthy: false))
        #expect(h.messages(to: monitor) == [.monitor([.persistenceUnavailable])])
        #expect(h.messages(to: updates).isEmpty)
        h.call(app, .addCondition(monitor: "places", identifier: "station", condition: Self.station))
        #expect(events(h, monitor, inLast: true).map(\.diagnostic) == [[.persistenceUnavailable]])
        h.send(.storeHealth(healthy: false))
        #expect(h.last.isEmpty, "the same health twice changes nothing")
        h.send(.storeHealth(healthy: true))
        #expect(h.messages(to: monitor) == [.monitor([])])
    }

    @Test("U4: conditions keep their order, states and limit across a restart of the core")
    func restored() throws {
        var h = Harness()
        h.set("com.ex.maps", .always)
        let app = h.launch("com.ex.maps")
        for index in 0..<21 {
            h.call(app, .addCondition(monitor: "m\(index % 2)", identifier: "c\(index)", condition: Self.station))
        }
        // Replacing a condition keeps its place: c0 stays first, so c20 stays past the limit.
        h.call(app, .addCondition(monitor: "m0", identifier: "c0", condition: Self.station))
        walk(&h, [0])
        let snapshot = h.core.snapshot
        #expect(snapshot.conditions.map(\.identifier) == (0..<21).map { "c\($0)" })
        #expect(snapshot.conditions.filter { $0.state == .satisfied }.count == 20)

        var after = Harness()
        after.core = LocationCore(
            configuration: CoreConfiguration(),
            manifests: Harness.defaultManifests,
            restoring: snapshot,
            epoch: 2,
            at: h.now
        )
        #expect(after.core.snapshot.conditions == snapshot.conditions)
        after.now = h.now
        let back = after.launch("com.ex.maps")
        let stream = after.call(back, .monitorEvents(monitor: "m0"))
        let seen = events(after, stream)
        #expect(seen.count == 11)
        #expect(seen.filter { $0.state == .satisfied }.count == 10)
        #expect(
            seen.last
                == MonitorEventView(
                    monitor: "m0",
                    identifier: "c20",
                    state: .unknown,
                    diagnostic: [.conditionLimitExceeded]
                )
        )
        // A condition added after the restart comes after every restored one.
        after.call(back, .addCondition(monitor: "m1", identifier: "new", condition: Self.station))
        #expect(after.core.snapshot.conditions.last?.identifier == "new")
    }
}

extension Persist {
    /// The state a condition write stores, `nil` for other writes.
    fileprivate var conditionState: ConditionState? {
        if case .condition(let stored) = self { stored.state } else { nil }
    }
}
