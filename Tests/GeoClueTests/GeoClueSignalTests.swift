import Foundation
import JSON
import LocationTestSupport
import Testing

/// Who hears a client's signals: its owner, and no other peer of the bus.
@Suite("GeoClue2: a client's signals go to its owner only", .serialized)
struct GeoClueSignalTests {
    @Test(
        "G4: another user's match rule on the service's PropertiesChanged hears the Manager's InUse, never a client's; the owner hears its own",
        .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"))
    )
    func clientPropertiesChangedIsUnicast() throws {
        let secret = """
            id = "com.example.secret"
            identity = "uid"
            users = ["\(getuid())"]
            NSLocationWhenInUseUsageDescription = "Shows where you are"
            """
        let harness = try GeoClueHarness(manifests: ["com.example.secret": secret])
        #expect(try harness.locctl(["auth", "com.example.secret", "while-using"]).status == 0)
        // nobody, on the same bus, with an ordinary match rule (eavesdropping is not allowed on a system bus).
        let listener = try harness.pythonRunning(["listen"], asUID: GeoClueHarness.ordinaryUID)
        defer { listener.closeInput() }
        #expect(listener.waitFor("\"listening\""), "\(listener.log)")
        let result = try harness.python(["where-am-i", "com.example.secret", "8"])
        let location = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(location["Latitude"] as? Double == GeoClueHarness.latitude, "\(location)")
        // The owner heard its client's PropertiesChanged: Active turned true, Location changed.
        let changed = location["changed"] as? [String] ?? []
        #expect(changed.contains("Active") && changed.contains("Location"), "\(changed)")
        // The listener's rule works: it heard the Manager's InUse turn true and, after DeleteClient, false.
        let inUse = eventually(timeout: 20, every: 0.05) {
            listener.objects.filter { ($0["changed"]?.arrayValue ?? []).contains(.string("InUse")) }.count >= 2
        }
        #expect(inUse, "\(listener.log)")
        // And nothing of the client: not that it started, not its Location, not its DesktopId.
        let clients = listener.objects.filter {
            $0["path"]?.stringValue?.hasPrefix("/org/freedesktop/GeoClue2/Client/") == true
        }
        #expect(clients.isEmpty, "\(listener.log)")
    }
}
