import JSON
import LocationCore
import LocationProtocol
import LocationWireErrors
import Varlink

// The core's views as the IDL's types, field for field in IDL order. Enum cases use their raw values,
// which are the wire strings (STYLE habit 3).

extension AuthorizationView {
    var wire: WireAuthorization {
        WireAuthorization(
            status: status.rawValue,
            accuracy: accuracy.rawValue,
            provisional: provisional,
            oneTime: oneTime,
            temporaryFullAccuracy: temporaryFullAccuracy,
            settingsLabel: settingsLabel.rawValue
        )
    }

    var json: JSONValue { wire.json }
}

extension DiagnosticMask {
    var json: JSONValue { WireDiagnostic(mask: Int(rawValue)).json }
}

extension Fix {
    /// The IDL's `Location`; absent optionals are left out, as the IDL's `?` allows.
    var wire: WireLocation {
        WireLocation(
            latitude: latitude,
            longitude: longitude,
            altitude: altitude,
            horizontalAccuracy: horizontalAccuracy,
            verticalAccuracy: verticalAccuracy,
            speed: speed,
            course: course,
            timestamp: timestamp
        )
    }

    var json: JSONValue { wire.json }
}

extension MonitorEventView {
    /// The IDL's `MonitorEvent`; `now` dates an event whose state no fix has set yet.
    func json(now: Double) -> JSONValue {
        WireMonitorEvent(
            monitor: monitor,
            identifier: identifier,
            state: state.rawValue,
            date: date ?? now,
            diagnostic: WireDiagnostic(mask: Int(diagnostic.rawValue))
        ).json
    }
}

extension SessionView {
    var wire: WireSession {
        WireSession(
            id: id.description,
            appId: appID,
            user: user,
            kind: kind.rawValue,
            authorization: requirement.rawValue,
            fullAccuracyPurposeKey: purposeKey,
            state: state.rawValue,
            diagnostic: WireDiagnostic(mask: Int(diagnostic.rawValue)),
            deadline: deadline?.nanoseconds,
            remainingSeconds: remaining.map { max(0, $0.seconds) }
        )
    }

    var json: JSONValue { wire.json }
}

extension SessionView {
    /// The final reply carrying this session, written straight into its frame: the text of ``json`` in a
    /// `session` parameter. Every `CreateSession` is answered with one; building it as a ``JSONObject``
    /// first was a fifth of what the daemon did for the call beyond reading and writing the socket.
    var replyFrame: VarlinkEncodedReply { replyFrame(continues: false) }

    /// The reply carrying this session, final or not (the decision a call with `more` gets first, R11).
    func replyFrame(continues: Bool) -> VarlinkEncodedReply {
        VarlinkEncodedReply(continues: continues) { bytes in
            bytes.append(contentsOf: "{\"session\":{\"id\":".utf8)
            appendQuoted(id, to: &bytes)
            bytes.append(contentsOf: ",\"appId\":".utf8)
            JSONValue.writeString(appID, into: &bytes)
            if let user {
                bytes.append(contentsOf: ",\"user\":".utf8)
                appendDecimal(UInt64(user), to: &bytes)
            }
            bytes.append(contentsOf: ",\"kind\":".utf8)
            JSONValue.writeString(kind.rawValue, into: &bytes)
            bytes.append(contentsOf: ",\"authorization\":".utf8)
            JSONValue.writeString(requirement.rawValue, into: &bytes)
            if let purposeKey {
                bytes.append(contentsOf: ",\"fullAccuracyPurposeKey\":".utf8)
                JSONValue.writeString(purposeKey, into: &bytes)
            }
            bytes.append(contentsOf: ",\"state\":".utf8)
            JSONValue.writeString(state.rawValue, into: &bytes)
            bytes.append(contentsOf: ",\"diagnostic\":".utf8)
            diagnostic.write(into: &bytes)
            if let deadline {
                bytes.append(contentsOf: ",\"deadline\":".utf8)
                JSONValue.int(deadline.nanoseconds).write(into: &bytes)
            }
            if let remaining {
                bytes.append(contentsOf: ",\"remainingSeconds\":".utf8)
                JSONValue.double(max(0, remaining.seconds)).write(into: &bytes)
            }
            bytes.append(contentsOf: "}}".utf8)
        }
    }
}

extension DiagnosticMask {
    /// The text of ``json``, written without building it.
    func write(into bytes: inout [UInt8]) {
        bytes.append(contentsOf: "{\"flags\":[".utf8)
        var first = true
        for (bit, name) in DiagnosticMask.names.enumerated() where rawValue & (1 << bit) != 0 {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            JSONValue.writeString(name, into: &bytes)
        }
        bytes.append(contentsOf: "],\"mask\":".utf8)
        appendDecimal(UInt64(rawValue), to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }
}

extension PromptView {
    /// The prompt of the wire, raised at `raisedAt` (Unix time in seconds).
    func wire(raisedAt: Double) -> WirePrompt {
        WirePrompt(
            id: id.description,
            appId: appID,
            kind: kind.rawValue,
            usageDescription: usageDescription,
            purposeKey: purposeKey,
            options: options.map(\.rawValue),
            defaultAccuracy: defaultAccuracy.rawValue,
            accuracyToggle: accuracyToggle,
            raisedAt: raisedAt,
            user: user,
            brokered: brokered
        )
    }

    func json(clock: DaemonClock) -> JSONValue { wire(raisedAt: clock.unixTime(of: raisedAt)).json }
}

extension AppView {
    /// `owner` (a uid) or `ownerUnknown` only for an app with no manifest of its own (F20).
    var json: JSONValue {
        let owner: WireAppEntry.Owner? =
            switch self.owner {
            case .uid(let uid)?: .uid(uid)
            case .unknown?: .unknown
            case nil: nil
            }
        return WireAppEntry(
            appId: appID,
            manifest: manifest,
            state: state.rawValue,
            inUse: inUse,
            usingLocationInBackground: usingLocationInBackground,
            authorization: authorization.wire,
            clients: clients,
            sessions: sessions,
            owner: owner,
            user: user,
            policy: policy.map { WireAppEntry.Policy(setting: $0.setting?.rawValue, precise: $0.precise) },
            stateSource: stateSource
        ).json
    }
}

extension AdminEvent {
    /// Fields appended in order, as ``SessionView/json`` does: a thousand clients gone at once make
    /// 200,000 of these.
    /// - Parameter timestamp: the Unix time of ``at``, ``DaemonClock/unixTime(of:)``.
    func json(timestamp: Double) -> JSONValue {
        WireEvent(
            kind: kind.rawValue,
            appId: appID,
            user: user,
            sessionId: sessionID?.description,
            detail: detail,
            timestamp: timestamp
        ).json
    }

    /// The `Watch` reply carrying this event, written straight into its frame: the text of
    /// ``json(timestamp:)`` in an `event` parameter. A thousand apps' sessions expiring send 100,000 of these
    /// in a second, and building each as a ``JSONObject`` first was a third of locd's time doing it (perf
    /// under `locd-bench`).
    func frame(timestamp: Double) -> VarlinkEncodedReply {
        VarlinkEncodedReply { bytes in
            bytes.append(contentsOf: "{\"event\":{\"kind\":".utf8)
            JSONValue.writeString(kind.rawValue, into: &bytes)
            if let appID {
                bytes.append(contentsOf: ",\"appId\":".utf8)
                JSONValue.writeString(appID, into: &bytes)
            }
            if let user {
                bytes.append(contentsOf: ",\"user\":".utf8)
                appendDecimal(UInt64(user), to: &bytes)
            }
            if let sessionID {
                bytes.append(contentsOf: ",\"sessionId\":".utf8)
                appendQuoted(sessionID, to: &bytes)
            }
            bytes.append(contentsOf: ",\"detail\":".utf8)
            JSONValue.writeString(detail, into: &bytes)
            bytes.append(contentsOf: ",\"timestamp\":".utf8)
            JSONValue.double(timestamp).write(into: &bytes)
            bytes.append(contentsOf: "}}".utf8)
        }
    }
}

/// Appends `"s<epoch>-<number>"`: digits only, nothing to escape.
private func appendQuoted(_ id: SessionID, to bytes: inout [UInt8]) {
    bytes.append(contentsOf: "\"s".utf8)
    appendDecimal(UInt64(id.epoch), to: &bytes)
    bytes.append(UInt8(ascii: "-"))
    appendDecimal(id.number, to: &bytes)
    bytes.append(UInt8(ascii: "\""))
}

/// Appends the decimal digits of `value`, without a `String` in between.
private func appendDecimal(_ value: UInt64, to bytes: inout [UInt8]) {
    if value >= 10 { appendDecimal(value / 10, to: &bytes) }
    bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
}

extension LocationError {
    /// The Varlink error reply: the IDL's parameters plus a `message` that says what to do.
    var varlinkError: VarlinkError {
        let wire = wireError
        return VarlinkError(name: wire.name.rawValue, parameters: wire.parameters(message: message))
    }
}
