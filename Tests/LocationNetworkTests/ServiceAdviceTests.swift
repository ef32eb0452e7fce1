import Foundation
import JSON
import LocationNetwork
import Testing

/// How locd-network behaves toward the geolocation service, without a process: what it says it is, what it reads in
/// the service's refusals, the proxy it takes, and the schedule's answers to them, in virtual time (SEMANTICS U19–U26).
@Suite struct ServiceAdviceTests {
    let two = ["00:11:22:33:44:01", "00:11:22:33:44:02"]

    @Test("U19: the User-Agent names the program, its version, the system and the project")
    func userAgent() {
        let debian = """
            PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
            NAME="Debian GNU/Linux"
            VERSION_ID="12"
            ID=debian
            """
        #expect(
            UserAgent.make(osRelease: debian)
                == "locd-network/\(UserAgent.version) (Debian GNU/Linux 12 (bookworm); https://github.com/locd/locd)"
        )
        #expect(UserAgent.make(osRelease: "ID=arch\nVERSION_ID='2024.1'\n").contains("(arch 2024.1; "))
        #expect(UserAgent.make(osRelease: "ID=nixos\n").contains("(nixos; "))
        #expect(UserAgent.make(osRelease: nil).contains("(Linux; "))
        // Nothing but printable ASCII reaches the header.
        #expect(UserAgent.make(osRelease: "PRETTY_NAME=\"Café\\nOS\"\n").contains("(CafnOS; "))
        #expect(UserAgent.check("ExampleFleet/2.0 (ops@example.com)") == nil)
        #expect(UserAgent.check("a\r\nX-Injected: 1") != nil)
        #expect(UserAgent.check("") != nil)
        #expect(UserAgent.check(String(repeating: "a", count: 201)) != nil)
    }

    @Test("U20: an access point with an empty or all-zero SSID is withheld")
    func hidden() {
        let bssid: [UInt8] = [0x00, 0x11, 0x22, 0x33, 0x44, 0x05]
        #expect(AccessPoint(bssid: bssid, ssid: [], signal: -30).withheld == "hidden SSID")
        #expect(AccessPoint(bssid: bssid, ssid: [0, 0, 0, 0], signal: -30).withheld == "hidden SSID")
        #expect(AccessPoint(bssid: bssid, ssid: Array("Home".utf8), signal: -30).withheld == nil)
    }

    @Test("U21: Retry-After in seconds or as an HTTP date, bounded to a day")
    func retryAfter() {
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryAfter.delay("120", now: now) == 120)
        #expect(RetryAfter.delay(" 0 ", now: now) == 0)
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:59:37 GMT", now: now) == 600)
        #expect(RetryAfter.delay("Sunday, 06-Nov-94 08:50:37 GMT", now: now) == 60)
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:00:00 GMT", now: now) == 0)
        #expect(RetryAfter.delay("99999999", now: now) == 86_400)
        #expect(RetryAfter.delay("-5", now: now) == nil)
        #expect(RetryAfter.delay("soon", now: now) == nil)
        let sinceMidnight: Double = 8 * 3600 + 49 * 60 + 37
        #expect(RetryAfter.untilNextUTCDay(from: now) == 86_400 - sinceMidnight)
        #expect(RetryAfter.untilNextUTCDay(from: Date(timeIntervalSince1970: 86_400)) == 86_400)
    }

    @Test("U21: ichnaea's dailyLimitExceeded and keyInvalid are read from the answer, Retry-After kept")
    func refusals() {
        func decode(_ status: Int, _ body: String, retryAfter: Double? = nil) -> GeolocateFailure? {
            guard
                case .failure(let failure) = GeolocateAnswer.decode(
                    status: status,
                    body: Array(body.utf8),
                    retryAfter: retryAfter
                )
            else { return nil }
            return failure
        }
        func body(_ code: Int, _ reason: String) -> String {
            #"{"error": {"errors": [{"domain": "usageLimits", "reason": "\#(reason)", "message": "m"}], "code": \#(code), "message": "m"}}"#
        }
        guard case .dailyLimitExceeded(let daily)? = decode(403, body(403, "dailyLimitExceeded")) else {
            Issue.record("403 dailyLimitExceeded not read")
            return
        }
        #expect(daily.contains("next UTC day"))
        guard case .keyInvalid(let key)? = decode(400, body(400, "keyInvalid")) else {
            Issue.record("400 keyInvalid not read")
            return
        }
        #expect(key.contains("put a valid key in the url"))
        // Another reason, or the right reason with another status, is an ordinary refusal.
        #expect(decode(403, body(403, "forbidden")) == .refused("the service answered HTTP 403: m"))
        #expect(decode(400, body(400, "parseError")) == .refused("the service answered HTTP 400: m"))
        guard case .refused(let text, let wait)? = decode(429, "", retryAfter: 30) else {
            Issue.record("429 not a refusal")
            return
        }
        #expect(wait == 30 && text.contains("Retry-After"), "\(text)")
    }

    @Test("U21: nothing is asked before the time the service named, nor ever after a refused key")
    func policyWaits() {
        var policy = AskingPolicy(interval: 300, minimumInterval: 1)
        policy.asked(at: 0, sending: two)
        policy.answered(success: false)
        policy.wait(until: 3600)
        let three = two + ["00:11:22:33:44:04"]
        #expect(policy.decide(now: 10, sending: three, considerIp: false) == .wait(until: 3600))
        #expect(policy.decide(now: 3600, sending: three, considerIp: false) == .ask)
        // Connectivity returning does not shorten the service's own wait.
        policy.connectivityReturned()
        #expect(policy.decide(now: 20, sending: three, considerIp: false) == .wait(until: 3600))
        policy.refuseKey()
        #expect(policy.decide(now: 99_999, sending: three, considerIp: true) == .stopped)
    }

    @Test("U26: connectivity back ends a backoff after failures, not minimumInterval")
    func connectivityBack() {
        var policy = AskingPolicy(interval: 300, minimumInterval: 5)
        var now = 0.0
        for _ in 1...5 {
            policy.asked(at: now, sending: two)
            policy.answered(success: false)
            now += policy.pause
        }
        #expect(policy.pause == 80)
        let last = now - 80
        #expect(policy.decide(now: last + 10, sending: two, considerIp: false) == .wait(until: last + 80))
        policy.connectivityReturned()
        #expect(policy.decide(now: last + 2, sending: two, considerIp: false) == .wait(until: last + 5))
        #expect(policy.decide(now: last + 10, sending: two, considerIp: false) == .ask)
        // With no failure behind it, connectivity back changes nothing.
        var fresh = AskingPolicy(interval: 300, minimumInterval: 5)
        fresh.asked(at: 0, sending: two)
        fresh.answered(success: true)
        fresh.connectivityReturned()
        #expect(fresh.decide(now: 10, sending: two, considerIp: false) == .wait(until: 300))
    }

    @Test("U24: a list older than interval is scanned first, at most once per interval, waited for 10 s at most")
    func scanFirst() {
        var policy = AskingPolicy(interval: 60, minimumInterval: 5)
        #expect(policy.decide(now: 1000, sending: two, considerIp: false, scanned: 990) == .ask)
        #expect(policy.decide(now: 1000, sending: two, considerIp: false, scanned: 900) == .scan(waitUntil: 1010))
        policy.scanRequested(at: 1000)
        #expect(policy.decide(now: 1003, sending: two, considerIp: false, scanned: 900) == .wait(until: 1010))
        // The scan came back: ask.
        #expect(policy.decide(now: 1003, sending: two, considerIp: false, scanned: 1002) == .ask)
        // It never came: ask with the list as it is, and ask for no other scan within interval.
        #expect(policy.decide(now: 1010, sending: two, considerIp: false, scanned: 900) == .ask)
        policy.asked(at: 1010, sending: two)
        policy.answered(success: true)
        #expect(policy.decide(now: 1070, sending: two, considerIp: false, scanned: 900) == .scan(waitUntil: 1080))
    }

    @Test("U25: answers are kept by the set of BSSIDs for an hour, 64 at most, never for the IP alone")
    func cache() {
        var cache = AnswerCache()
        let answer = GeolocateAnswer(latitude: 1, longitude: 2, accuracy: 30)
        cache.keep(answer, for: two, now: 0)
        #expect(cache.answer(for: two.reversed(), now: 3599) == answer)
        #expect(cache.answer(for: two, now: 3600) == nil)
        #expect(cache.answer(for: [two[0]], now: 10) == nil)
        cache.keep(answer, for: [], now: 0)
        cache.keep(GeolocateAnswer(latitude: 1, longitude: 2, accuracy: 30, ipFallback: true), for: ["x"], now: 0)
        #expect(cache.count == 1)
        for index in 0..<100 { cache.keep(answer, for: ["ap\(index)"], now: Double(index + 1)) }
        #expect(cache.count == AnswerCache.capacity)
        #expect(cache.answer(for: two, now: 101) == nil)
        #expect(cache.answer(for: ["ap99"], now: 101) == answer)
        #expect(cache.answer(for: ["ap35"], now: 101) == nil)
    }

    @Test("U23: https_proxy and no_proxy, loopback always direct, bad proxies refused")
    func proxy() throws {
        let settings = try ProxySettings.parse(
            environment: [
                "https_proxy": "http://user:p%40ss@proxy.example:3128", "HTTPS_PROXY": "http://ignored:1",
                "no_proxy": "internal.example, .corp.example,*.lan,10.1.2.3,[::2]:443",
            ]
        ).get()
        #expect(settings.server == .init(host: "proxy.example", port: 3128, user: "user", password: "p@ss"))
        #expect(settings.usesProxy(for: "api.beacondb.net"))
        for direct in [
            "internal.example", "a.internal.example", "x.corp.example", "corp.example", "box.lan", "10.1.2.3",
            "::2", "127.0.0.1", "localhost", "[::1]",
        ] {
            #expect(!settings.usesProxy(for: direct), "\(direct)")
        }
        #expect(settings.usesProxy(for: "notinternal.example"))
        let upper = try ProxySettings.parse(environment: ["HTTPS_PROXY": "proxy:8080", "NO_PROXY": "*"]).get()
        #expect(upper.server?.port == 8080 && !upper.usesProxy(for: "api.beacondb.net"))
        #expect(
            try ProxySettings.parse(environment: ["no_proxy": "x"]).get().usesProxy(for: "api.beacondb.net") == false
        )
        for bad in ["https://proxy:3128", "socks5://proxy:1080", "http://proxy:3128/path", "http://:3128"] {
            guard case .failure(let invalid) = ProxySettings.parse(environment: ["https_proxy": bad]) else {
                Issue.record("\(bad) was taken")
                continue
            }
            #expect(invalid.field == "https_proxy", "\(bad)")
        }
    }
}
