import JSON
import Varlink

extension Authorization {
    /// The `Authorization` of the protocol.
    package init(wire value: JSONValue?) throws {
        guard let value,
            let status = value["status"]?.stringValue.flatMap(Status.init(rawValue:)),
            let accuracy = value["accuracy"]?.stringValue.flatMap(Accuracy.init(rawValue:)),
            let label = value["settingsLabel"]?.stringValue.flatMap(SettingsLabel.init(rawValue:))
        else {
            throw LocationClientError.unexpectedReply("an authorization without a known status, accuracy or label")
        }
        self.init(
            status: status,
            accuracy: accuracy,
            provisional: value["provisional"]?.boolValue ?? false,
            oneTime: value["oneTime"]?.boolValue ?? false,
            temporaryFullAccuracy: value["temporaryFullAccuracy"]?.boolValue ?? false,
            settingsLabel: label
        )
    }
}
