import Foundation
import JSON
import LocationProtocol
import LocationTestSupport
import Testing

/// Each golden message decodes to a value, and that value encodes to the same text: the decoders the client, locctl
/// and locd-agent use and the encoders locd uses agree with the files, and so with each other.
@Suite("Golden messages")
struct GoldenTests {
    /// Decodes every message of `kind` with `decode`, encodes it again with `encode`, and compares the text with the
    /// file's; `LOCD_UPDATE_GOLDEN=1` writes the file instead.
    private func roundTrip<Value>(
        _ kind: String,
        decode: (JSONValue) -> Value?,
        encode: (Value) -> JSONValue,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let messages = try WireGolden.messages(kind)
        #expect(!messages.isEmpty, sourceLocation: sourceLocation)
        var encoded: [JSONValue] = []
        for message in messages {
            let value = try #require(decode(message), "\(kind): \(message.serialized)", sourceLocation: sourceLocation)
            encoded.append(encode(value))
        }
        let text = WireGolden.text(of: encoded)
        if ProcessInfo.processInfo.environment["LOCD_UPDATE_GOLDEN"] == "1" {
            try text.write(to: WireGolden.url(kind), atomically: true, encoding: .utf8)
            return
        }
        #expect(
            text == (try WireGolden.text(kind)),
            "\(kind).json differs; got:\n\(text)",
            sourceLocation: sourceLocation
        )
    }

    @Test("PROTOCOL: Authorization decodes and encodes to its golden text")
    func authorization() throws {
        try roundTrip("Authorization", decode: { WireAuthorization(json: $0) }, encode: \.json)
    }

    @Test("PROTOCOL: Diagnostic decodes and encodes to its golden text, its mask and flags agreeing")
    func diagnostic() throws {
        try roundTrip("Diagnostic", decode: { WireDiagnostic(json: $0) }, encode: \.json)
        for message in try WireGolden.messages("Diagnostic") {
            let flags = message["flags"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(WireDiagnostic(flags: flags) == WireDiagnostic(json: message))
        }
    }

    @Test("PROTOCOL: Session decodes and encodes to its golden text, optionals present and absent")
    func session() throws {
        try roundTrip("Session", decode: { WireSession(json: $0) }, encode: \.json)
    }

    @Test("PROTOCOL: Prompt decodes and encodes to its golden text, brokered written only when true")
    func prompt() throws {
        try roundTrip("Prompt", decode: { WirePrompt(json: $0) }, encode: \.json)
    }

    @Test("PROTOCOL: Update decodes and encodes to its golden text, with a full, a sparse and no location")
    func update() throws {
        try roundTrip("Update", decode: { WireUpdate(json: $0) }, encode: \.json)
    }

    @Test("PROTOCOL: MonitorEvent decodes and encodes to its golden text")
    func monitorEvent() throws {
        try roundTrip("MonitorEvent", decode: { WireMonitorEvent(json: $0) }, encode: \.json)
    }

    @Test("PROTOCOL: AppEntry decodes and encodes to its golden text, owner, user, policy and source or not")
    func appEntry() throws {
        try roundTrip("AppEntry", decode: { WireAppEntry(json: $0) }, encode: \.json)
    }

    @Test("PROTOCOL: Event decodes and encodes to its golden text")
    func event() throws {
        try roundTrip("Event", decode: { WireEvent(json: $0) }, encode: \.json)
    }

    @Test("PROTOCOL: DaemonStatus decodes and encodes to its golden text, an administrator's and another caller's")
    func daemonStatus() throws {
        try roundTrip("DaemonStatus", decode: { WireDaemonStatus(json: $0) }, encode: \.json)
    }

    @Test("U6: io.locd.NetworkLocation's Position decodes and encodes to its golden text")
    func position() throws {
        try roundTrip("Position", decode: { WirePosition(json: $0) }, encode: \.json)
    }

    @Test("PROTOCOL: an error reply decodes to its WireError and message and encodes to its golden text")
    func errors() throws {
        try roundTrip(
            "Error",
            decode: { reply -> (WireError, String?)? in
                guard let name = reply["error"]?.stringValue, let parameters = reply["parameters"]?.objectValue,
                    let error = WireError(name: name, parameters: parameters)
                else { return nil }
                return (error, parameters["message"]?.stringValue)
            },
            encode: { error, message in
                .object(["error": .string(error.name.name), "parameters": .object(error.parameters(message: message))])
            }
        )
    }

    @Test("PROTOCOL: a message missing a field its IDL requires does not decode")
    func missingFields() throws {
        for message in try WireGolden.messages("Session") {
            for field in ["id", "appId", "kind", "authorization", "state", "diagnostic"] {
                #expect(WireSession(json: .object(removing(field, from: message))) == nil, "without \(field)")
            }
        }
        for message in try WireGolden.messages("Prompt") {
            for field in ["id", "appId", "kind"] {
                #expect(WirePrompt(json: .object(removing(field, from: message))) == nil, "without \(field)")
            }
        }
        for message in try WireGolden.messages("Authorization") {
            for field in ["status", "accuracy", "settingsLabel"] {
                #expect(WireAuthorization(json: .object(removing(field, from: message))) == nil, "without \(field)")
            }
        }
    }

    private func removing(_ field: String, from message: JSONValue) -> JSONObject {
        JSONObject((message.objectValue?.fields ?? []).filter { $0.0 != field })
    }
}
