import JSON
import LocationProtocol
import Varlink

extension Authorization {
    /// The `Authorization` of the protocol.
    package init(wire value: JSONValue?) throws {
        guard let wire = WireAuthorization(json: value), let status = Status(rawValue: wire.status),
            let accuracy = Accuracy(rawValue: wire.accuracy), let label = SettingsLabel(rawValue: wire.settingsLabel)
        else {
            throw LocationClientError.unexpectedReply("an authorization without a known status, accuracy or label")
        }
        self.init(
            status: status,
            accuracy: accuracy,
            provisional: wire.provisional,
            oneTime: wire.oneTime,
            temporaryFullAccuracy: wire.temporaryFullAccuracy,
            settingsLabel: label
        )
    }
}
