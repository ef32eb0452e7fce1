import JSON
import LocationProtocol
import Varlink

extension ServiceSession {
    /// Why a session is limited, like `CLServiceSession.Diagnostic`: the Apple-named flags that apply to sessions,
    /// and the whole mask.
    public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
        public var flags: DiagnosticFlags

        public init(flags: DiagnosticFlags) {
            self.flags = flags
        }

        /// The mask as sent on the wire.
        public var mask: Int { flags.rawValue }
        /// The flags by name, as `Diagnostic[insufficientlyInUse]`: what limits the session, readable in a log.
        public var description: String { "Diagnostic" + flags.description }
        /// The app is denied, or location services are off.
        public var authorizationDenied: Bool { flags.contains(.authorizationDenied) }
        /// Location services are off for everyone.
        public var authorizationDeniedGlobally: Bool { flags.contains(.authorizationDeniedGlobally) }
        public var authorizationRestricted: Bool { flags.contains(.authorizationRestricted) }
        /// The app needs to be in use (foreground, grace, or a background activity session) for this session.
        public var insufficientlyInUse: Bool { flags.contains(.insufficientlyInUse) }
        /// The session asks for Always, and the user declined it (or granted once).
        public var alwaysAuthorizationDenied: Bool { flags.contains(.alwaysAuthorizationDenied) }
        /// The session's purpose key has no temporary full-accuracy grant.
        public var fullAccuracyDenied: Bool { flags.contains(.fullAccuracyDenied) }
        /// The app opted out of implicit sessions and holds no explicit one that would do.
        public var serviceSessionRequired: Bool { flags.contains(.serviceSessionRequired) }
        /// A prompt this session waits for is on screen.
        public var authorizationRequestInProgress: Bool { flags.contains(.authorizationRequestInProgress) }

        /// The `Diagnostic` of the protocol: `{flags, mask}`; the mask decides, the names are its spelling.
        package init(wire value: JSONValue?) throws {
            flags = try DiagnosticFlags(wire: value)
        }
    }
}

extension DiagnosticFlags {
    /// Reads a wire `Diagnostic`: its `mask`, or its `flags` names if a sender left the mask out.
    init(wire value: JSONValue?) throws {
        guard let wire = WireDiagnostic(json: value) else {
            throw LocationClientError.unexpectedReply("a diagnostic without mask or flags")
        }
        self.init(rawValue: wire.mask)
    }
}
