import Foundation
import JSON
import LocationNetwork
import LocationTestSupport
import Synchronization
import Testing

/// The real locd-network toward a strict stand-in of the ichnaea API and the stand-in supplicants: what it says it
/// is, what it never sends, how it takes the service's refusals, how it connects, and when it scans and asks
/// (SEMANTICS U19–U26).
@Suite(.serialized) struct GoodCitizenTests {
    static let home = "00:11:22:33:44:01"
    static let cafe = "00:11:22:33:44:02"
    static let library = StandInWifi.Point("00:11:22:33:44:04", "Library", -45)
    static let tower = StandInWifi.Point("00:11:22:33:44:06", "Tower", -55)

    /// What a request to the service must start with, whatever the machine's os-release says.
    static let agentPrefix = "locd-network/\(UserAgent.version) ("

    /// `locd-network` run with `arguments` and `environment`, on a socket and bus address in a folder of its own,
    /// until it exits (killed after 20 s, should it take the options and serve): its status and what it wrote.
    static func runToExit(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String) {
        let directory = try TemporaryDirectory(prefix: "locd-network-options")
        defer { directory.remove() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: NetworkLocationProcess.binary)
        process.arguments = ["--socket", directory.path + "/network.sock"] + arguments
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { $1 }
        merged["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(directory.path)/no-bus"
        merged.removeValue(forKey: "NOTIFY_SOCKET")
        merged.removeValue(forKey: "LISTEN_FDS")
        process.environment = merged
        let log = directory.path + "/output"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = output
        process.standardError = output
        try process.run()
        if !eventually(timeout: 20, every: 0.05, { !process.isRunning }) { process.terminate() }
        let ended = process.waitForExit()
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return (ended.status, text)
    }

    @Test("U19: every request names locd-network, its version, the system and the project in its User-Agent")
    func identifies() async throws {
        let scene = try await NetworkScene.start()
        let watch = try await scene.watch()
        _ = try #require(try await watch.position(), "\(watch.ending)\n\(scene.daemon.log)")
        let agent = try #require(scene.service.userAgents.first ?? nil)
        let release = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)) ?? ""
        let pretty = release.split(separator: "\n").first { $0.hasPrefix("PRETTY_NAME=") }.map {
            String($0.dropFirst("PRETTY_NAME=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
        }
        let expected = Self.agentPrefix + "\(pretty ?? "Linux"); https://github.com/locd/locd)"
        #expect(agent == expected)
    }

    @Test("U19: --user-agent replaces the User-Agent; one with a line break is refused at start")
    func userAgentOption() async throws {
        let scene = try await NetworkScene.start { _ in (["--user-agent", "ExampleFleet/2.0 (ops@example.com)"], [:]) }
        let watch = try await scene.watch()
        _ = try #require(try await watch.position(), "\(watch.ending)\n\(scene.daemon.log)")
        #expect(scene.service.userAgents.first == "ExampleFleet/2.0 (ops@example.com)")
        let (status, output) = try await offPool { try Self.runToExit(["--user-agent", "a\nX-Injected: 1"]) }
        #expect(status == 64 && output.contains("--user-agent holds a character"), "\(status) \(output)")
    }

    @Test("U20: an access point with a hidden SSID never reaches the service, however strong")
    func hiddenNeverSent() async throws {
        let hidden = StandInWifi.Point("00:11:22:33:44:05", "", -30)
        let scene = try await NetworkScene.start(points: StandInWifi.threeWithNomap + [hidden])
        let watch = try await scene.watch()
        let position = try #require(try await watch.position(), "\(watch.ending)\n\(scene.daemon.log)")
        #expect(position["accessPoints"]?.intValue == 2)
        #expect(scene.service.macAddresses(ofRequest: 0) == [Self.home, Self.cafe])
    }

    @Test("U21: after a 429 with Retry-After, in seconds or as an HTTP date, nothing is asked before that time")
    func retryAfter() async throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        for retryAfter in ["3600", formatter.string(from: Date().addingTimeInterval(3600))] {
            let scene = try await NetworkScene.start()
            let wifi = try #require(scene.wifi)
            let watch = try await scene.watch(interval: 300, minimumInterval: 1)
            _ = try #require(try await watch.position(), "\(watch.ending)\n\(scene.daemon.log)")
            try await offPool { try scene.service.rateLimit(retryAfter: retryAfter) }
            let seen = watch.events.count
            try await offPool { try wifi.add(Self.library) }
            let reason = try #require(try await watch.lost(after: seen), "\(scene.daemon.log)")
            #expect(reason.contains("HTTP 429") && reason.contains("Retry-After"), "\(reason)")
            let asked = scene.service.requests.count
            // Without Retry-After the backoff is minimumInterval, 1 s: the next change would be asked within it.
            try await offPool { try wifi.add(Self.tower) }
            #expect(try await !eventually(timeout: 4) { scene.service.requests.count > asked }, "\(retryAfter)")
            #expect(scene.daemon.log.contains("asking again in 3"), "\(scene.daemon.log)")
        }
    }

    @Test("U21: 403 dailyLimitExceeded is a lost, and nothing is asked again until the next UTC day")
    func dailyLimit() async throws {
        let scene = try await NetworkScene.start()
        let wifi = try #require(scene.wifi)
        let watch = try await scene.watch(interval: 300, minimumInterval: 1)
        _ = try #require(try await watch.position(), "\(watch.ending)\n\(scene.daemon.log)")
        try await offPool { try scene.service.set(.daily) }
        let seen = watch.events.count
        try await offPool { try wifi.add(Self.library) }
        let reason = try #require(try await watch.lost(after: seen), "\(scene.daemon.log)")
        #expect(reason.contains("dailyLimitExceeded") && reason.contains("next UTC day"), "\(reason)")
        let asked = scene.service.requests.count
        try await offPool { try wifi.add(Self.tower) }
        #expect(try await !eventually(timeout: 4) { scene.service.requests.count > asked })
    }

    @Test("U21: 400 keyInvalid is a lost saying what to do, logged once; that url is asked nothing more")
    func keyInvalid() async throws {
        let scene = try await NetworkScene.start()
        let wifi = try #require(scene.wifi)
        try await offPool { try scene.service.set(.keyInvalid) }
        let url = scene.service.url + "?key=wrong"
        let watch = try await scene.watch(interval: 300, minimumInterval: 1, url: url)
        let reason = try #require(try await watch.lost(), "\(watch.ending)\n\(scene.daemon.log)")
        #expect(reason.contains("keyInvalid") && reason.contains("put a valid key in the url"), "\(reason)")
        #expect(scene.service.requests.count == 1)
        try await offPool { try wifi.add(Self.library) }
        #expect(try await !eventually(timeout: 4) { scene.service.requests.count > 1 })
        // A new schedule for the same url is told at once, and asks nothing.
        watch.close()
        #expect(try await eventually { scene.daemon.log.contains("no Watch open") })
        let again = try await scene.watch(interval: 300, minimumInterval: 1, url: url)
        #expect(try await again.lost() == reason)
        #expect(try await !eventually(timeout: 2) { scene.service.requests.count > 1 })
        #expect(scene.daemon.log.components(separatedBy: "put a valid key in the url").count - 1 == 1)
        // Another url (another key) is asked.
        try await offPool { try scene.service.set(.position) }
        let other = try await scene.watch(interval: 300, minimumInterval: 1, url: scene.service.url + "?key=right")
        #expect(try await other.position() != nil)
        #expect(scene.service.requests.count == 2)
    }

    @Test("U22: a request whose TLS handshake fails makes one connection, not the HTTP client's retries")
    func oneConnection() async throws {
        let scene = try await NetworkScene.start(selfSigned: true)
        let watch = try await scene.watch(interval: 300, minimumInterval: 60)
        let reason = try #require(try await watch.lost(), "\(watch.ending)\n\(scene.daemon.log)")
        #expect(reason.contains("CERTIFICATE_VERIFY_FAILED"), "\(reason)")
        #expect(try await offPool { try scene.service.connections() } == 1)
        // None comes after the lost either: the next request is a minute away.
        let more = try await offPool {
            eventually(timeout: 2, every: 0.2) { ((try? scene.service.connections()) ?? 0) > 1 }
        }
        #expect(!more)
    }

    @Test("U22: the answer may take all of --request-timeout, not a shorter read timeout of the HTTP client")
    func readWithinRequestTimeout() async throws {
        let scene = try await NetworkScene.start(requestTimeout: 9)
        try await offPool { try scene.service.answerSlowly(after: 6) }
        let watch = try await scene.watch()
        let first = try #require(try await watch.next(timeout: 40) { $0["event"] != "started" })
        #expect(first["event"] == "position", "\(first)\n\(scene.daemon.log)")
    }

    @Test(
        "U23: --ca-file trusts the service's own CA; https_proxy carries the request with CONNECT; loopback is direct"
    )
    func caFileAndProxy() async throws {
        let proxy = ProxyBox()
        let scene = try await NetworkScene.start(selfSigned: true) { service in
            guard let certificate = service.certificatePath else { throw StandInFailure("no certificate") }
            let directory = (certificate as NSString).deletingLastPathComponent
            let started = try StandInProxy(target: service.port, directory: directory)
            proxy.value.withLock { $0 = started }
            return (
                ["--ca-file", certificate],
                ["https_proxy": "http://fleet:s3cret@127.0.0.1:\(started.port)", "no_proxy": "internal.example"]
            )
        }
        let tunnel = try #require(proxy.value.withLock { $0 })
        defer { tunnel.stop() }
        // The service's own address is loopback: reached directly, and trusted by the CA file.
        let direct = try await scene.watch()
        _ = try #require(try await direct.position(), "\(direct.ending)\n\(scene.daemon.log)")
        #expect(tunnel.connects.isEmpty)
        direct.close()
        // A name only the proxy resolves (it tunnels every CONNECT to the service): the position proves the tunnel.
        let named = try await scene.watch(url: "https://geolocate.test:\(scene.service.port)/v1/geolocate")
        _ = try #require(try await named.position(), "\(named.ending)\n\(scene.daemon.log)")
        #expect(tunnel.connects == ["geolocate.test:\(scene.service.port)"])
        #expect(tunnel.authorizations == ["Basic " + Data("fleet:s3cret".utf8).base64EncodedString()])
        #expect(scene.service.requests.count == 2)
    }

    @Test("U23: a proxy that is not http://host:port, and a CA file without certificates, are refused at start")
    func badProxyAndCAFile() async throws {
        let (status, output) = try await offPool {
            try Self.runToExit([], environment: ["https_proxy": "https://proxy:3128"])
        }
        #expect(status == 64 && output.contains("https_proxy") && output.contains("http://"), "\(output)")
        let directory = try TemporaryDirectory(prefix: "locd-network-ca")
        defer { directory.remove() }
        let empty = directory.path + "/empty.pem"
        _ = FileManager.default.createFile(atPath: empty, contents: Data("not a certificate\n".utf8))
        for path in [empty, directory.path + "/missing.pem"] {
            let (status, output) = try await offPool { try Self.runToExit(["--ca-file", path]) }
            #expect(status == 64 && output.contains("--ca-file"), "\(output)")
        }
    }

    @Test("U24: a list older than interval is scanned (passively) before the service is asked; a fresh one is not")
    func scansStaleList() async throws {
        for kind in [StandInWifi.Kind.wpaSupplicant, .networkManager] {
            let scene = try await NetworkScene.start(wifi: kind)
            let wifi = try #require(scene.wifi)
            let fresh = try await scene.watch(interval: 30)
            _ = try #require(try await fresh.position(), "\(fresh.ending)\n\(scene.daemon.log)")
            #expect(try await offPool { try wifi.scans().count } == 0)
            fresh.close()
            try await offPool { try wifi.setAge(600) }
            let stale = try await scene.watch(interval: 60)
            _ = try #require(try await stale.position(), "\(stale.ending)\n\(scene.daemon.log)")
            // The request came after the scan: the scan was asked for before the position could be.
            let scans = try await offPool { try wifi.scans() }
            #expect(scans.count == 1, "\(kind)")
            if kind == .wpaSupplicant { #expect(scans.type == "passive") }
            #expect(scene.service.requests.count == 2)
        }
    }

    @Test("U25: back to a set of access points already answered, the kept answer is given with no request")
    func keptAnswer() async throws {
        let scene = try await NetworkScene.start()
        let wifi = try #require(scene.wifi)
        let watch = try await scene.watch(interval: 300, minimumInterval: 1)
        _ = try #require(try await watch.position(), "\(watch.ending)\n\(scene.daemon.log)")
        var seen = watch.events.count
        try await offPool { try wifi.add(Self.library) }
        let moved = try #require(try await watch.position(after: seen))
        #expect(moved["accessPoints"]?.intValue == 3)
        #expect(scene.service.requests.count == 2)
        seen = watch.events.count
        try await offPool { try wifi.remove(Self.library.bssid) }
        let back = try #require(try await watch.position(after: seen), "\(scene.daemon.log)")
        #expect(back["accessPoints"]?.intValue == 2)
        #expect(back["latitude"]?.doubleValue == 52.52)
        #expect(scene.service.requests.count == 2)
    }

    @Test("U26: connectivity back (wpa_supplicant's State completed) asks at once, not after the grown backoff")
    func connectivityBack() async throws {
        let scene = try await NetworkScene.start()
        let wifi = try #require(scene.wifi)
        try await offPool { try scene.service.set(.status) }
        let watch = try await scene.watch(interval: 300, minimumInterval: 1)
        // Failures at 0, 1, 3, 7 and 15 s: the backoff after the fifth is 16 s.
        #expect(
            try await eventually(timeout: 60) { scene.service.requests.count >= 5 },
            "\(watch.events.count) \(scene.daemon.log)"
        )
        #expect(try await eventually { scene.daemon.log.contains("asking again in 16 s") }, "\(scene.daemon.log)")
        try await offPool { try wifi.setState("disconnected") }
        try await offPool { try scene.service.set(.position) }
        let seen = watch.events.count
        try await offPool { try wifi.setState("completed") }
        // A generous bound, still well within the 16 s the backoff would wait.
        let back = try await watch.position(after: seen, timeout: 10)
        #expect(back != nil, "\(scene.daemon.log)")
        #expect(scene.daemon.log.contains("connected again"))
    }
}

/// The proxy a scene's options start, handed back to the test.
private final class ProxyBox: Sendable {
    let value = Mutex<StandInProxy?>(nil)
}
