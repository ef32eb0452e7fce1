import Foundation
import LocationTestSupport
import Testing

/// GeoClue2 clients, as where-am-i and gammastep use the API, against locd-geoclue on a private system bus with the
/// real locd deciding.
@Suite("GeoClue2: clients on a private system bus get locd's decisions", .serialized)
struct GeoClueClientTests {
    @Test("G1: an authorized app's Start succeeds and LocationUpdated names a Location with locd's fix")
    func authorizedAppGetsLocation() throws {
        let harness = try GeoClueHarness()
        #expect(try harness.locctl(["auth", "test.allowed", "while-using"]).status == 0)
        let result = try harness.python(["where-am-i", "test.allowed", "8"])
        let location = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(location["error"] == nil, "\(location)")
        #expect(location["Latitude"] as? Double == GeoClueHarness.latitude)
        #expect(location["Longitude"] as? Double == GeoClueHarness.longitude)
        #expect((location["Accuracy"] as? Double ?? 0) < 5000)
        #expect(location["old"] as? String == "/")
        #expect((location["new"] as? String ?? "").hasPrefix("/org/freedesktop/GeoClue2/Location/"))
        // GeoClue's sentinels for what a fixed point does not measure.
        #expect(location["Altitude"] as? Double == -Double.greatestFiniteMagnitude)
        #expect(location["Speed"] as? Double == -1)
        #expect(location["Heading"] as? Double == -1)
        let timestamp = location["Timestamp"] as? [Any]
        #expect((timestamp?.first as? Int ?? 0) > 1_600_000_000, "\(String(describing: timestamp))")
        #expect(location["Description"] is String)
        // PropertiesChanged told the client that Active turned true and that Location changed (sent before the
        // signal, so it arrives first).
        let changed = location["changed"] as? [String] ?? []
        #expect(changed.contains("Active"), "\(changed)")
        #expect(changed.contains("Location"), "\(changed)")
    }

    @Test(
        "G1: a client of an ordinary user, without privileges, is served: every method and Set of the API is open to every uid",
        .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"))
    )
    func unprivilegedClientIsServed() throws {
        let harness = try GeoClueHarness()
        #expect(try harness.locctl(["auth", "test.allowed", "while-using"]).status == 0)
        let result = try harness.python(["where-am-i", "test.allowed", "8"], asUID: GeoClueHarness.ordinaryUID)
        let location = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(location["error"] == nil, "\(location)\n\(harness.locd?.log ?? "")")
        #expect(location["Latitude"] as? Double == GeoClueHarness.latitude)
        #expect(location["Longitude"] as? Double == GeoClueHarness.longitude)
    }

    @Test("G1, G3, R11: with locd's store failing, Start is answered from locd's decision and the client locates")
    func startDoesNotWaitForTheStore() throws {
        let harness = try GeoClueHarness()
        #expect(try harness.locctl(["auth", "test.allowed", "while-using"]).status == 0)
        // locd serves from memory and acknowledges no new session (R7, R11): a Start that waited for the
        // acknowledgement would hang until the client's own timeout.
        try FileManager.default.removeItem(atPath: harness.directory + "/state")
        let result = try harness.python(["where-am-i", "test.allowed", "8"])
        let location = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(location["Latitude"] as? Double == GeoClueHarness.latitude, "\(location)")
        #expect(result.elapsed < 5, "\(result.elapsed) s")
    }

    @Test("G2: a client at city level gets the approximate grid cell with accuracy 5000 m")
    func cityLevelIsApproximate() throws {
        let harness = try GeoClueHarness()
        #expect(try harness.locctl(["auth", "test.city", "while-using"]).status == 0)
        let result = try harness.python(["where-am-i", "test.city", "4"])
        let location = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(location["Accuracy"] as? Double == 5000, "\(location)")
        let latitude = try #require(location["Latitude"] as? Double)
        let longitude = try #require(location["Longitude"] as? Double)
        #expect(latitude != GeoClueHarness.latitude || longitude != GeoClueHarness.longitude)
        #expect(abs(latitude - GeoClueHarness.latitude) < 0.1)
        #expect(abs(longitude - GeoClueHarness.longitude) < 0.15)
    }

    @Test("G3: a denied app's Start fails at once with AccessDenied saying to run locctl auth")
    func deniedAppFailsFast() throws {
        let harness = try GeoClueHarness()
        #expect(try harness.locctl(["auth", "test.denied", "never"]).status == 0)
        let result = try harness.python(["start", "test.denied"])
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(reply["error"] as? String == "org.freedesktop.DBus.Error.AccessDenied", "\(reply)")
        #expect((reply["message"] as? String ?? "").contains("locctl auth test.denied while-using"), "\(reply)")
        #expect(result.elapsed < 5, "Start took \(result.elapsed) s")
    }

    @Test("G3: with location services off, Start fails with AccessDenied saying to turn them on")
    func servicesOffFails() throws {
        let harness = try GeoClueHarness()
        #expect(try harness.locctl(["auth", "test.allowed", "while-using"]).status == 0)
        #expect(try harness.locctl(["services", "off"]).status == 0)
        let result = try harness.python(["start", "test.allowed"])
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(reply["error"] as? String == "org.freedesktop.DBus.Error.AccessDenied", "\(reply)")
        #expect((reply["message"] as? String ?? "").contains("locctl services on"), "\(reply)")
    }

    @Test("G3: a prompt no agent answers ends Start with AccessDenied at locd's prompt timeout, not a hang")
    func unansweredPromptFailsAtTimeout() throws {
        let harness = try GeoClueHarness(promptTimeout: 1.5)
        let result = try harness.python(["start", "test.unanswered"])
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(reply["error"] as? String == "org.freedesktop.DBus.Error.AccessDenied", "\(reply)")
        #expect((reply["message"] as? String ?? "").contains("locctl agent"), "\(reply)")
        #expect(result.elapsed >= 1.5 && result.elapsed < 10, "Start took \(result.elapsed) s")
    }

    @Test("G3, P14: with no agent at all, Start fails after agent-wait, not prompt-timeout, naming locd-agent")
    func promptNobodyCanAnswerFailsPromptly() throws {
        let harness = try GeoClueHarness(promptTimeout: 600, agentWait: 0.5)
        let result = try harness.python(["start", "test.unanswered"])
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(reply["error"] as? String == "org.freedesktop.DBus.Error.AccessDenied", "\(reply)")
        #expect((reply["message"] as? String ?? "").contains("locd-agent"), "\(reply)")
        #expect(result.elapsed < 60, "Start took \(result.elapsed) s")
    }

    @Test("G3: a prompt answered by an agent decides Start: allow-while-using starts the client")
    func agentAnswerDecidesStart() throws {
        let harness = try GeoClueHarness()
        let agent = try harness.allowingAgent()
        defer { agent.stop() }
        let result = try harness.python(["where-am-i", "test.allowed", "8"])
        let location = try #require(result.objects.first, "\(result.output)\(result.errors)\(agent.log)")
        #expect(location["Latitude"] as? Double == GeoClueHarness.latitude, "\(location)\n\(agent.log)")
    }
}
