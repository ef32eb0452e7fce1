import Foundation
import JSON

/// A stand-in ichnaea-compatible geolocate endpoint on 127.0.0.1 (Fixtures/geolocate_standin.py): it checks and
/// records every request, answers a position or, as the test tells it, badly, and can stop and start listening.
package final class StandInGeolocate: @unchecked Sendable {
    // @unchecked: set once in init; the script is driven from one test.
    /// How it answers.
    package enum Mode: String, Sendable, CaseIterable {
        /// The position set with ``answer(latitude:longitude:accuracy:)`` (at the start 52.52, 13.405, ±5000 m).
        case position
        /// A body that is not JSON.
        case notJSON = "notjson"
        /// A JSON object without `location`.
        case missing
        /// Latitude 123.
        case latitude
        /// A 10 MB body.
        case huge
        /// A redirect to itself.
        case loop
        /// A redirect to http:// on a host the client must not take as loopback (`[::ffff:127.0.0.1]`).
        case downgrade
        /// The answer one byte a second.
        case drip
        /// HTTP 503.
        case status
        /// HTTP 403 with ichnaea's `dailyLimitExceeded` body.
        case daily
        /// HTTP 400 with ichnaea's `keyInvalid` body.
        case keyInvalid = "keyinvalid"
    }

    private let script: ScriptProcess
    package let port: Int

    /// Whether it speaks HTTPS, with a self-signed certificate no client should trust.
    package let selfSigned: Bool
    /// The self-signed certificate (for 127.0.0.1 and `geolocate.test`), a PEM file, when it speaks HTTPS.
    package let certificatePath: String?

    /// - Parameter selfSigned: speak HTTPS with a certificate made for 127.0.0.1 by `openssl` and signed by
    ///   itself, which a client that checks certificates refuses before it sends anything.
    package init(directory: String, selfSigned: Bool = false) throws {
        var arguments = ["/usr/bin/python3", ScriptProcess.fixture("geolocate_standin.py")]
        if selfSigned {
            let (certificate, key) = (directory + "/geolocate-cert.pem", directory + "/geolocate-key.pem")
            let openssl = try ScriptProcess(
                [
                    "/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out",
                    certificate, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext",
                    "subjectAltName=IP:127.0.0.1,DNS:geolocate.test",
                ],
                logPath: directory + "/openssl.log"
            )
            guard openssl.process.waitForExit().status == 0 else {
                throw StandInFailure("openssl could not make a certificate: \(openssl.log)")
            }
            arguments += ["--tls", certificate, key]
            certificatePath = certificate
        } else {
            certificatePath = nil
        }
        self.selfSigned = selfSigned
        script = try ScriptProcess(arguments, logPath: directory + "/geolocate.log")
        guard let port = script.waitFor({ $0["port"] != nil })?["port"]?.intValue else {
            throw StandInFailure("the stand-in geolocation service did not start: \(script.log)")
        }
        self.port = Int(port)
    }

    /// The URL to give locd-network.
    package var url: String { "\(selfSigned ? "https" : "http")://127.0.0.1:\(port)/v1/geolocate" }

    /// Every well-formed request so far, in order: `{"considerIp": …, "wifiAccessPoints": [...]}`.
    package var requests: [JSONObject] { script.objects.compactMap { $0["request"]?.objectValue } }

    /// The `User-Agent` of every well-formed request so far, in order.
    package var userAgents: [String?] {
        script.objects.filter { $0["request"] != nil }.map { $0["userAgent"]?.stringValue }
    }

    /// Requests that were not what an ichnaea client sends, and why.
    package var badRequests: [String] { script.objects.compactMap { $0["badRequest"]?.stringValue } }

    /// The BSSIDs of request `index`.
    package func macAddresses(ofRequest index: Int) -> [String] {
        requests[index]["wifiAccessPoints"]?.arrayValue?.compactMap { $0["macAddress"]?.stringValue } ?? []
    }

    /// Answers from now on as `mode` says.
    package func set(_ mode: Mode) throws { try command(mode.rawValue, expect: mode.rawValue) }

    /// Answers this position from now on.
    package func answer(latitude: Double, longitude: Double, accuracy: Double) throws {
        try command("position \(latitude) \(longitude) \(accuracy)", expect: "position")
    }

    /// Answers HTTP 429 with this `Retry-After` from now on (seconds, or an HTTP date).
    package func rateLimit(retryAfter: String) throws {
        try command("ratelimit \(retryAfter.replacingOccurrences(of: " ", with: "_"))", expect: "ratelimit")
    }

    /// Answers the position from now on, `seconds` after the request.
    package func answerSlowly(after seconds: Double) throws { try command("slow \(seconds)", expect: "slow") }

    /// How many TCP connections it accepted so far (each counted before any TLS handshake).
    package func connections() throws -> Int {
        let before = script.objects.filter { $0["connections"] != nil }.count
        script.send("connections")
        var answer: Int?
        _ = eventually(timeout: 20, every: 0.02) {
            let answers = script.objects.compactMap { $0["connections"]?.intValue }
            if answers.count > before { answer = Int(answers[before]) }
            return answer != nil
        }
        guard let answer else { throw StandInFailure("the stand-in did not count its connections: \(script.log)") }
        return answer
    }

    /// Stops listening: connections are refused.
    package func switchOff() throws { try command("off", expect: "off") }

    /// Listens again on the same port.
    package func switchOn() throws { try command("on", expect: "on") }

    private func command(_ line: String, expect: String) throws {
        let before = script.objects.filter { $0["mode"] != nil }.count
        script.send(line)
        let done = eventually(timeout: 20, every: 0.02) {
            let modes = script.objects.compactMap { $0["mode"]?.stringValue }
            return modes.count > before && modes[before] == expect
        }
        guard done else { throw StandInFailure("the stand-in did not take \"\(line)\": \(script.log)") }
    }

    package func stop() { script.kill9() }
}
