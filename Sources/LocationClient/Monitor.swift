import Foundation
import JSON
import LocationProtocol
import Varlink

/// A named monitor of circular geographic conditions, like `CLMonitor`: the daemon evaluates the conditions and
/// reports each one's state as events.
///
/// Conditions are kept by the daemon under the app and the monitor's name, so another process of the app (or the
/// same one after a relaunch) gets the same monitor by asking for it by name.
public final class Monitor: Sendable {
    /// `CLMonitor.CircularGeographicCondition`: a centre and a radius in metres.
    public struct CircularGeographicCondition: Sendable, Hashable {
        public var center: Coordinate
        public var radius: Double

        public init(center: Coordinate, radius: Double) {
            self.center = center
            self.radius = radius
        }
    }

    /// A point on Earth, like `CLLocationCoordinate2D`.
    public struct Coordinate: Sendable, Hashable {
        public var latitude: Double
        public var longitude: Double

        public init(latitude: Double, longitude: Double) {
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    public let name: String
    private let link: AppLink

    init(name: String, link: AppLink) {
        self.name = name
        self.link = link
    }

    /// Starts monitoring `condition` under `identifier`, replacing what was there (`CLMonitor.add(_:identifier:)`).
    ///
    /// An empty identifier is refused (``LocationClientError/invalidParameter(parameter:message:)``): events about the
    /// whole monitor carry none.
    public func add(_ condition: CircularGeographicCondition, identifier: String) async throws {
        guard !identifier.isEmpty else {
            throw LocationClientError.invalidParameter(
                parameter: "identifier",
                message: "a condition needs a non-empty identifier: events with none are about the whole monitor"
            )
        }
        let wire: JSONValue = .object([
            "latitude": .double(condition.center.latitude), "longitude": .double(condition.center.longitude),
            "radius": .double(condition.radius),
        ])
        try await link.call(
            AppMethod.addCondition.name,
            ["monitor": .string(name), "identifier": .string(identifier), "condition": wire],
            retry: true
        )
    }

    /// Stops monitoring the condition under `identifier` (`CLMonitor.remove(_:)`).
    public func remove(identifier: String) async throws {
        try await link.call(
            AppMethod.removeCondition.name,
            ["monitor": .string(name), "identifier": .string(identifier)],
            retry: true
        )
    }

    /// Each condition's state at once, then each change (`CLMonitor.events`).
    public var events: LocationStream<Event> {
        let link = self.link
        let name = self.name
        return LocationStream { continuation in
            try await link.follow(AppMethod.monitorEvents.name, ["monitor": .string(name)]) { reply, _ in
                continuation.yield(try Event(wire: reply["event"]))
                return .more
            }
        }
    }
}
