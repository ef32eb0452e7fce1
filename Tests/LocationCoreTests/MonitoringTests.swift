import LocationTestSupport
import Testing

@testable import LocationCore

/// U4: named monitors of circular conditions, with the 20-condition limit per app.
@Suite("Monitoring")
struct MonitoringTests {
    private let home = CircularCondition(latitude: 35.68, longitude: 139.76, radius: 200)

    private func conditionEvents(_ h: Harness, _ stream: CallID) -> [MonitorEventView] {
        h.messages(to: stream).compactMap { if case .monitorCondition(let event) = $0 { event } else { nil } }
    }

    @Test("U4: MonitorEvents reports each condition of its monitor at once, as unknown until evaluated")
    func eventsAtStart() {
        var h = Harness()
        h.set("com.ex.maps", .always)
        let app = h.launch("com.ex.maps")
        h.call(app, .addCondition(monitor: "places", identifier: "home", condition: home))
        h.call(app, .addCondition(monitor: "other", identifier: "work", condition: home))
        let stream = h.call(app, .monitorEvents(monitor: "places"))
        #expect(h.messages(to: stream).first == .monitor([]))
        #expect(
            conditionEvents(h, stream) == [
                MonitorEventView(monitor: "places", identifier: "home", state: .unknown, diagnostic: [])
            ]
        )
    }

    @Test("U4: a condition added while its monitor streams is reported on that stream only")
    func addWhileStreaming() {
        var h = Harness()
        h.set("com.ex.maps", .always)
        let app = h.launch("com.ex.maps")
        let places = h.call(app, .monitorEvents(monitor: "places"))
        let other = h.call(app, .monitorEvents(monitor: "other"))
        let add = h.call(app, .addCondition(monitor: "places", identifier: "home", condition: home))
        #expect(h.reply(to: add) == .empty)
        #expect(conditionEvents(h, places).map(\.identifier) == ["home"])
        #expect(conditionEvents(h, other).isEmpty)
    }

    @Test("U4: the 21st condition of an app reports conditionLimitExceeded until an earlier one is removed")
    func conditionLimit() {
        var h = Harness()
        h.set("com.ex.maps", .always)
        let app = h.launch("com.ex.maps")
        for index in 0..<21 {
            h.call(app, .addCondition(monitor: "m\(index % 2)", identifier: "c\(index)", condition: home))
        }
        let stream = h.call(app, .monitorEvents(monitor: "m0"))
        let events = conditionEvents(h, stream)
        #expect(events.count == 11)
        #expect(events.filter { $0.diagnostic.contains(.conditionLimitExceeded) }.map(\.identifier) == ["c20"])
        h.call(app, .removeCondition(monitor: "m1", identifier: "c1"))
        #expect(
            conditionEvents(h, stream) == [
                MonitorEventView(monitor: "m0", identifier: "c20", state: .unknown, diagnostic: [])
            ]
        )
    }

    @Test("U4: a malformed condition is refused with InvalidParameter and not added")
    func malformedCondition() {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        let bad = h.call(
            app,
            .addCondition(monitor: "m", identifier: "x", condition: .init(latitude: 91, longitude: 0, radius: 5))
        )
        #expect(h.error(of: bad) == .invalidParameter(parameter: "condition", reason: "latitude must be in -90…90"))
        let negative = h.call(
            app,
            .addCondition(monitor: "m", identifier: "x", condition: .init(latitude: 0, longitude: 0, radius: -1))
        )
        #expect(h.error(of: negative) != nil)
        let stream = h.call(app, .monitorEvents(monitor: "m"))
        #expect(conditionEvents(h, stream).isEmpty)
    }
}

extension MonitoringTests {
    @Test("U4: a closed MonitorEvents stream is forgotten and hears no later condition")
    func closedStreamForgotten() {
        var h = Harness()
        h.set("com.ex.maps", .always)
        let app = h.launch("com.ex.maps")
        let viewer = h.connect()
        h.call(viewer, .hello(appID: "com.ex.maps", state: nil))
        let stream = h.call(viewer, .monitorEvents(monitor: "places"))
        #expect(h.core.monitorStreams[stream] != nil)
        h.disconnect(viewer)
        #expect(h.core.monitorStreams[stream] == nil)
        h.call(app, .addCondition(monitor: "places", identifier: "home", condition: home))
        #expect(h.messages(to: stream).isEmpty)
    }
}
