import JSON
import LocationProtocol
import Varlink

/// A session of the app that no process owns: its process closed without `Goodbye`, and it lingers for the daemon's
/// relaunch window (SEMANTICS L3). ``LocationClient/resumeSession(id:)`` takes it over, with no new prompt.
public struct LingeringSession: Sendable, Hashable {
    /// `kind` of the protocol's `Session`; raw values are the wire names.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case explicit
        case implicit
        case backgroundActivity
    }

    public let id: String
    public let kind: Kind
    public let authorization: ServiceSession.AuthorizationRequirement
    public let fullAccuracyPurposeKey: String?

    /// A `Session` of the protocol; `nil` when it lacks what this type needs.
    package init?(wire value: JSONValue) {
        guard let wire = WireSession(json: value), let kind = Kind(rawValue: wire.kind),
            let authorization = ServiceSession.AuthorizationRequirement(rawValue: wire.authorization)
        else { return nil }
        id = wire.id
        self.kind = kind
        self.authorization = authorization
        fullAccuracyPurposeKey = wire.fullAccuracyPurposeKey
    }
}
