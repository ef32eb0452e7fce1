import Foundation
import JSON
import LocationProtocol
import Varlink

extension Monitor {
    /// One event of a monitor, like `CLMonitor.Event`: a condition's state and the flags that apply to monitoring.
    public struct Event: Sendable, Hashable {
        /// `CLMonitor.Event.State`; raw values are the wire names.
        public enum State: String, Sendable, Hashable, CaseIterable {
            case unknown
            case satisfied
            case unsatisfied
        }

        public var monitor: String
        /// The identifier the condition was added under; `nil` on an event about the whole monitor: the first event
        /// of ``Monitor/events``, and each change of the diagnostics that apply to every condition.
        public var identifier: String?
        public var state: State
        public var date: Date
        public var flags: DiagnosticFlags

        public var authorizationDenied: Bool { flags.contains(.authorizationDenied) }
        public var authorizationDeniedGlobally: Bool { flags.contains(.authorizationDeniedGlobally) }
        public var authorizationRestricted: Bool { flags.contains(.authorizationRestricted) }
        public var insufficientlyInUse: Bool { flags.contains(.insufficientlyInUse) }
        public var accuracyLimited: Bool { flags.contains(.accuracyLimited) }
        /// The provider cannot evaluate this condition.
        public var conditionUnsupported: Bool { flags.contains(.conditionUnsupported) }
        /// The app monitors more than 20 conditions; this one is not evaluated.
        public var conditionLimitExceeded: Bool { flags.contains(.conditionLimitExceeded) }
        /// The monitor could not be stored.
        public var persistenceUnavailable: Bool { flags.contains(.persistenceUnavailable) }
        public var serviceSessionRequired: Bool { flags.contains(.serviceSessionRequired) }
        public var authorizationRequestInProgress: Bool { flags.contains(.authorizationRequestInProgress) }

        /// The `MonitorEvent` of the protocol.
        init(wire value: JSONValue?) throws {
            guard let value, value["monitor"]?.stringValue != nil,
                let state = value["state"]?.stringValue.flatMap(State.init(rawValue:))
            else {
                throw LocationClientError.unexpectedReply("a monitor event without monitor or state")
            }
            guard let wire = WireMonitorEvent(json: value) else {
                throw LocationClientError.unexpectedReply("a diagnostic without mask or flags")
            }
            monitor = wire.monitor
            identifier = wire.identifier.isEmpty ? nil : wire.identifier
            self.state = state
            date = Date(timeIntervalSince1970: wire.date)
            flags = DiagnosticFlags(rawValue: wire.diagnostic.mask)
        }
    }
}
