import Foundation
import JSON
import LocationProtocol
import Varlink

/// One update of a live-updates stream, like `CLLocationUpdate`: a location when one may be delivered, and the
/// flags that say why not.
public struct LocationUpdate: Sendable, Hashable {
    /// `CLLocationUpdate.LiveConfiguration`: what the updates are for, which sets the daemon's distance and time
    /// filters. Raw values are the wire names.
    public enum LiveConfiguration: String, Sendable, Hashable, CaseIterable {
        case `default`
        case automotiveNavigation
        case otherNavigation
        case fitness
        case airborne
    }

    /// The accuracy an app asks its live updates to have (`CLLocationManager.desiredAccuracy`, of which locd
    /// knows the two that change what is sent). Raw values are the wire names.
    public enum DesiredAccuracy: String, Sendable, Hashable, CaseIterable {
        /// As precise as the grant allows.
        case full
        /// Approximate even with a precise grant (`kCLLocationAccuracyReduced`).
        case reduced
    }

    /// The fix, or `nil` when the flags hold it back (or the provider has none).
    public var location: Location?
    public var flags: DiagnosticFlags

    public init(location: Location?, flags: DiagnosticFlags) {
        self.location = location
        self.flags = flags
    }

    public var authorizationDenied: Bool { flags.contains(.authorizationDenied) }
    public var authorizationDeniedGlobally: Bool { flags.contains(.authorizationDeniedGlobally) }
    public var authorizationRestricted: Bool { flags.contains(.authorizationRestricted) }
    /// The device has not moved beyond 10 m for 60 s; updates pause until it does.
    public var stationary: Bool { flags.contains(.stationary) }
    public var insufficientlyInUse: Bool { flags.contains(.insufficientlyInUse) }
    /// Authorized and in use, but the provider has no fix.
    public var locationUnavailable: Bool { flags.contains(.locationUnavailable) }
    /// Locations are approximate (reduced accuracy, no temporary grant).
    public var accuracyLimited: Bool { flags.contains(.accuracyLimited) }
    public var serviceSessionRequired: Bool { flags.contains(.serviceSessionRequired) }
    public var authorizationRequestInProgress: Bool { flags.contains(.authorizationRequestInProgress) }

    /// The `Update` of the protocol: `{location?, diagnostic}`.
    package init(wire value: JSONValue?) throws {
        guard let value else { throw LocationClientError.unexpectedReply("an update reply without update") }
        flags = try DiagnosticFlags(wire: value["diagnostic"])
        switch value["location"] {
        case nil, .null?: location = nil
        case let fix?: location = try Location(wire: fix)
        }
    }
}

extension Location {
    /// The `Location` of the protocol; `timestamp` is Unix time in seconds.
    init(wire value: JSONValue) throws {
        guard let wire = WireLocation(json: value) else {
            throw LocationClientError.unexpectedReply("a location without latitude, longitude, accuracy or time")
        }
        self.init(
            latitude: wire.latitude,
            longitude: wire.longitude,
            altitude: wire.altitude,
            horizontalAccuracy: wire.horizontalAccuracy,
            verticalAccuracy: wire.verticalAccuracy,
            speed: wire.speed,
            course: wire.course,
            timestamp: Date(timeIntervalSince1970: wire.timestamp)
        )
    }
}
