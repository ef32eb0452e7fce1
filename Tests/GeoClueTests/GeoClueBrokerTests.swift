import Foundation
import LocationTestSupport
import Testing

/// locd-geoclue as a broker: locd checks each app's manifest against the process of the GeoClue client that called,
/// whose pidfd locd-geoclue passes with `Hello`, and only a locd-geoclue running as a `[[broker]]`'s user may speak for anyone.
@Suite("GeoClue2: locd-geoclue speaks for each client's process", .serialized)
struct GeoClueBrokerTests {
    private static let python = GeoClueHarness.realPath("/usr/bin/python3")

    @Test("I9, G1: a client whose executable its app's manifest names gets locd's fix")
    func matchingExecutable() throws {
        let harness = try GeoClueHarness()
        #expect(try harness.locctl(["auth", "test.python", "while-using"]).status == 0)
        let result = try harness.python(["where-am-i", "test.python", "8"])
        let location = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(location["error"] == nil, "\(location)")
        #expect(location["Latitude"] as? Double == GeoClueHarness.latitude, "\(location)")
        #expect(location["Longitude"] as? Double == GeoClueHarness.longitude, "\(location)")
    }

    @Test("I9, G3: a client whose executable its app's manifest does not name is refused: AccessDenied says what to do")
    func otherExecutable() throws {
        let harness = try GeoClueHarness()
        #expect(try harness.locctl(["auth", "test.sleeper", "while-using"]).status == 0)
        let result = try harness.python(["start", "test.sleeper"])
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(reply["error"] as? String == "org.freedesktop.DBus.Error.AccessDenied", "\(reply)")
        let message = reply["message"] as? String ?? ""
        #expect(message.contains("manifest") && message.contains("test.sleeper"), "\(message)")
        // locd checked the client's process, python, not locd-geoclue's.
        let checked = "executable \(Self.python) of pid"
        let logged = eventually(timeout: 5) { harness.locd?.log.contains(checked) == true }
        #expect(logged, "no '\(checked)' in locd's log")
        #expect(try harness.sessions(of: "test.sleeper").isEmpty)
    }

    @Test("I8, I13, G3: a locd-geoclue that is no [[broker]] speaks for no one: AccessDenied says how it becomes one")
    func notABroker() throws {
        let harness = try GeoClueHarness(brokered: false)
        #expect(try harness.locctl(["auth", "test.allowed", "while-using"]).status == 0)
        let result = try harness.python(["start", "test.allowed"])
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(reply["error"] as? String == "org.freedesktop.DBus.Error.AccessDenied", "\(reply)")
        #expect((reply["message"] as? String ?? "").contains("[[broker]]"), "\(reply)")
        #expect(try harness.sessions(of: "test.allowed").isEmpty)
    }

    @Test(
        "I14: a client whose process left the bus's pid to a process of root is refused, while an honest client is served",
        .enabled(if: getuid() == 0, "a pid namespace of its own and acting as nobody need root")
    )
    func pidReusedBehindTheBus() throws {
        let directory = try TemporaryDirectory(prefix: "pid-reuse")
        defer { directory.remove() }
        // A pid namespace of its own, where the pid the bus recorded can be handed to a process of root at once
        // (ns_last_pid) rather than after cycling through every pid of the machine.
        let result = try Command.run(
            [
                "/usr/bin/unshare", "--pid", "--fork", "--mount-proc", "/usr/bin/python3",
                GeoClueHarness.fixture("pid_reuse_attack.py"), directory.path, GeoClueHarness.binary("locd"),
                GeoClueHarness.binary("locctl"), GeoClueHarness.binary("locd-geoclue"),
                GeoClueHarness.fixture("system-bus.conf"),
            ],
            timeout: 180
        )
        let outcome = try #require(result.objects.last, "\(result.output)\(result.errors)")
        #expect(outcome["reused"] as? Bool == true, "\(outcome)")
        #expect(outcome["honest"] as? String == "ok", "\(outcome)")
        let attack = outcome["attack"] as? [String: Any]
        #expect(attack?["start"] as? String == "org.freedesktop.DBus.Error.AccessDenied", "\(outcome)")
        #expect((attack?["message"] as? String)?.contains("has gone: connect again") == true, "\(outcome)")
    }
}
