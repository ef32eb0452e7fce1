import JSON

/// Splits gpsd's stream into lines and decodes each JSON object, keeping a partial line for the next read.
///
/// gpsd writes one JSON object per line, and a read may end anywhere, even inside a UTF-8 character.
/// A line that is not a JSON object with a `class`, or is longer than ``maximumLineLength`` (gpsd's own
/// limit is far smaller), is counted as malformed and skipped; objects of classes the provider does not
/// use (`DEVICE`, `PPS`, `TOFF`, `GST`, …) are counted as ignored. Nothing in the stream can trap.
package struct GPSDMessageParser: Sendable {
    /// Longer lines are dropped, up to the next newline, so a peer cannot make the buffer grow without end.
    package static let maximumLineLength = 65_536

    private var buffer: [UInt8] = []
    /// Whether the rest of an over-long line is being skipped.
    private var discarding = false
    /// Lines that were not a JSON object with a `class`, or were too long.
    package private(set) var malformedLines = 0
    /// Objects of classes the provider does not read.
    package private(set) var ignoredLines = 0

    package init() {}

    /// Bytes held back: the start of a line whose end has not arrived.
    package var pendingBytes: Int { buffer.count }

    /// Takes the next bytes read and returns the messages of every line they complete.
    package mutating func feed(_ bytes: some Sequence<UInt8>) -> [GPSDMessage] {
        var messages: [GPSDMessage] = []
        for byte in bytes {
            if byte == 0x0A {
                if discarding {
                    discarding = false
                } else if let message = decode(buffer) {
                    messages.append(message)
                }
                buffer.removeAll(keepingCapacity: true)
            } else if !discarding {
                buffer.append(byte)
                if buffer.count > Self.maximumLineLength {
                    malformedLines += 1
                    discarding = true
                    buffer.removeAll()
                }
            }
        }
        return messages
    }

    /// Forgets a partial line: the connection it came from is gone.
    package mutating func reset() {
        buffer.removeAll()
        discarding = false
    }

    private mutating func decode(_ line: [UInt8]) -> GPSDMessage? {
        var end = line.count
        while end > 0, line[end - 1] == 0x0D || line[end - 1] == 0x20 { end -= 1 }
        guard end > 0 else { return nil }
        guard let object = JSONValue.parse(line[..<end])?.objectValue, let name = object["class"]?.stringValue else {
            malformedLines += 1
            return nil
        }
        guard let message = Self.message(name, object) else {
            ignoredLines += 1
            return nil
        }
        return message
    }

    private static func message(_ name: String, _ object: JSONObject) -> GPSDMessage? {
        switch name {
        case "VERSION":
            return .version(
                release: object["release"]?.stringValue ?? "",
                protocolMajor: Int(clamping: object["proto_major"]?.intValue ?? 0),
                protocolMinor: Int(clamping: object["proto_minor"]?.intValue ?? 0)
            )
        case "DEVICES":
            let devices = object["devices"]?.arrayValue ?? []
            return .devices(devices.compactMap { $0["path"]?.stringValue })
        case "WATCH":
            return .watch(enabled: object["enable"]?.boolValue ?? false)
        case "TPV":
            return .tpv(report(object))
        case "SKY":
            let satellites = object["satellites"]?.arrayValue
            let used = satellites?.filter { $0["used"]?.boolValue == true }.count
            return .sky(
                visible: object["nSat"]?.intValue.map { Int(clamping: $0) } ?? satellites?.count,
                used: object["uSat"]?.intValue.map { Int(clamping: $0) } ?? used,
                hdop: number(object["hdop"])
            )
        case "ERROR":
            return .error(object["message"]?.stringValue ?? "")
        default:
            return nil
        }
    }

    private static func report(_ object: JSONObject) -> GPSDReport {
        let latitude = number(object["lat"]).flatMap { abs($0) <= 90 ? $0 : nil }
        let longitude = number(object["lon"]).flatMap { abs($0) <= 180 ? $0 : nil }
        return GPSDReport(
            mode: object["mode"]?.intValue.map { Int(clamping: $0) } ?? 0,
            time: object["time"]?.stringValue.flatMap(UnixTime.parseISO8601),
            latitude: latitude,
            longitude: longitude,
            altitude: number(object["altMSL"]) ?? number(object["alt"]) ?? number(object["altHAE"]),
            eph: nonNegative(object["eph"]),
            epx: nonNegative(object["epx"]),
            epy: nonNegative(object["epy"]),
            epv: nonNegative(object["epv"]),
            speed: number(object["speed"]),
            track: number(object["track"])
        )
    }

    /// A finite number, or `nil` (gpsd writes `NaN` fields as absent, but a peer may send anything).
    private static func number(_ value: JSONValue?) -> Double? {
        guard let double = value?.doubleValue, double.isFinite else { return nil }
        return double
    }

    private static func nonNegative(_ value: JSONValue?) -> Double? {
        number(value).flatMap { $0 >= 0 ? $0 : nil }
    }
}
