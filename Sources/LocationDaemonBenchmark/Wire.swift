import LocationProtocol

#if canImport(Glibc)
import Glibc
#endif

/// The calls the benchmark sends, as bytes ready for the socket, and the little it reads of replies.
///
/// Replies are scanned for the one field a scenario needs instead of parsed, so that the client's cost
/// stays small beside the daemon's and the figures describe the daemon.
enum Wire {
    /// A call as Varlink frames it: compact JSON and a NUL.
    static func call(_ method: String, _ parameters: String = "{}", more: Bool = false) -> [UInt8] {
        let tail = more ? ",\"more\":true}" : "}"
        return Array("{\"method\":\"\(method)\",\"parameters\":\(parameters)\(tail)".utf8) + [0]
    }

    static func hello(_ appID: String) -> [UInt8] {
        call(AppMethod.hello.name, "{\"appId\":\"\(appID)\",\"state\":\"foreground\"}")
    }

    static let createSession = call(AppMethod.createSession.name, "{\"authorization\":\"whenInUse\"}")

    static func invalidateSession(_ id: String) -> [UInt8] {
        call(AppMethod.invalidateSession.name, "{\"id\":\"\(id)\"}")
    }

    static func sessionDiagnostics(_ id: String) -> [UInt8] {
        call(AppMethod.sessionDiagnostics.name, "{\"id\":\"\(id)\"}", more: true)
    }

    static func setAuthorization(_ appID: String, _ setting: String) -> [UInt8] {
        call(AdminMethod.setAuthorization.name, "{\"appId\":\"\(appID)\",\"setting\":\"\(setting)\"}")
    }

    static func setLocationServices(_ enabled: Bool) -> [UInt8] {
        call(AdminMethod.setLocationServices.name, "{\"enabled\":\(enabled)}")
    }

    static let watch = call(AdminMethod.watch.name, more: true)

    /// The Varlink error name of a reply, `nil` for a successful one.
    static func error(in frame: ArraySlice<UInt8>) -> String? {
        string(after: "\"error\":\"", in: frame)
    }

    /// The string value that follows `key` (a pattern such as `"id":"`), up to its closing quote.
    ///
    /// Values the daemon writes here (ids, names, enum cases) never hold an escaped quote.
    static func string(after key: String, in frame: ArraySlice<UInt8>) -> String? {
        guard let start = index(after: key, in: frame) else { return nil }
        guard let end = frame[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return String(decoding: frame[start..<end], as: UTF8.self)
    }

    /// The number that follows `key` (a pattern such as `"timestamp":`).
    static func number(after key: String, in frame: ArraySlice<UInt8>) -> Double? {
        guard let start = index(after: key, in: frame) else { return nil }
        var end = start
        while end < frame.endIndex, let byte = Optional(frame[end]),
            byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e")
                || byte == UInt8(ascii: "E") || byte == UInt8(ascii: "+") || (byte >= 48 && byte <= 57)
        {
            end += 1
        }
        return Double(String(decoding: frame[start..<end], as: UTF8.self))
    }

    /// Where the bytes after the first occurrence of `key` start.
    ///
    /// On raw memory with `memchr` and `memcmp`: the same search through slices, with a comparison by
    /// `elementsEqual` at each candidate, was half the benchmark's time while it read the deadline scenario's
    /// 200,000 events (perf), time in which it fell behind them.
    static func index(after key: String, in frame: ArraySlice<UInt8>) -> Int? {
        var key = key
        return key.withUTF8 { pattern in
            frame.withUnsafeBufferPointer { bytes -> Int? in
                guard let base = bytes.baseAddress, let start = pattern.baseAddress, pattern.count > 0 else {
                    return nil
                }
                var offset = 0
                while bytes.count - offset >= pattern.count {
                    let span = bytes.count - offset - pattern.count + 1
                    guard let hit = memchr(base + offset, Int32(start.pointee), span) else { return nil }
                    let position = UnsafePointer(hit.assumingMemoryBound(to: UInt8.self)) - base
                    if memcmp(base + position, start, pattern.count) == 0 {
                        return frame.startIndex + position + pattern.count
                    }
                    offset = position + 1
                }
                return nil
            }
        }
    }
}
