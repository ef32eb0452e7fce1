import Foundation
import LocationTestSupport
import Testing

/// The D-Bus policy `systemd/locd-network.conf`, read by a real dbus-daemon beside a policy shaped as wpa_supplicant's
/// own (only root may call it): the policy's user reads wpa_supplicant's access points, asks it for a scan, and can
/// call nothing else of it. The test names `nobody` as that user, since the test cannot create `locd-network`.
@Suite("locd-network's D-Bus policy", .serialized)
struct BusPolicyTests {
    /// wpa_supplicant's policy as Debian ships it, less the group: only root may call it.
    static let wpaSupplicantPolicy = """
        <policy context="default"><deny send_destination="fi.w1.wpa_supplicant1"/></policy>
        <policy user="root"><allow send_destination="fi.w1.wpa_supplicant1"/></policy>
        """

    /// `busctl` on `address` as the user `nobody`, with no supplementary group.
    static func busctlAsNobody(_ address: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments =
            ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/busctl", "--address=" + address]
            + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        return (process.waitForExit().status, String(decoding: data, as: UTF8.self))
    }

    @Test(
        "U6, U24: the policy lets locd-network's user read wpa_supplicant's access points and ask for a scan, and call nothing else of it",
        .enabled(if: getuid() == 0, "needs root to run busctl as another user")
    )
    func policyAllowsReadingOnly() throws {
        let directory = try TemporaryDirectory(prefix: "locd-network-policy")
        defer { directory.remove() }
        // nobody must reach the bus's socket in the test's folder.
        chmod(directory.path, 0o755)
        let shipped = try String(
            contentsOfFile: Repository.root() + "/systemd/locd-network.conf",
            encoding: .utf8
        )
        let policy = try #require(
            shipped.range(of: "<policy user=\"locd-network\">").map { start in
                String(shipped[start.lowerBound...]).components(separatedBy: "</busconfig>")[0]
            },
            "no policy for the user locd-network in systemd/locd-network.conf"
        )
        let bus = try PrivateSystemBus(
            directory: directory.path,
            policies: Self.wpaSupplicantPolicy + "\n"
                + policy.replacingOccurrences(of: "user=\"locd-network\"", with: "user=\"nobody\"")
        )
        defer { bus.stop() }
        let wifi = try StandInWifi(
            .wpaSupplicant,
            points: StandInWifi.threeWithNomap,
            bus: bus,
            directory: directory.path
        )
        defer { wifi.stop() }

        let read = try Self.busctlAsNobody(
            bus.address,
            ["get-property", "fi.w1.wpa_supplicant1", "/fi/w1/wpa_supplicant1", "fi.w1.wpa_supplicant1", "Interfaces"]
        )
        #expect(read.status == 0 && read.output.contains("/fi/w1/wpa_supplicant1/Interfaces/0"), "\(read.output)")
        let all = try Self.busctlAsNobody(
            bus.address,
            [
                "call", "fi.w1.wpa_supplicant1", "/fi/w1/wpa_supplicant1/Interfaces/0",
                "org.freedesktop.DBus.Properties",
                "GetAll", "s", "fi.w1.wpa_supplicant1.Interface",
            ]
        )
        #expect(all.status == 0 && all.output.contains("BSSs"), "\(all.output)")
        // A scan, asked when the list is older than interval (U24): let through, and taken by the stand-in.
        let passive = try Self.busctlAsNobody(
            bus.address,
            [
                "call", "fi.w1.wpa_supplicant1", "/fi/w1/wpa_supplicant1/Interfaces/0",
                "fi.w1.wpa_supplicant1.Interface", "Scan", "a{sv}", "1", "Type", "s", "passive",
            ]
        )
        #expect(passive.status == 0, "\(passive.output)")
        #expect(try wifi.scans().count == 1)
        // A method that changes Wi-Fi: refused by the bus, before wpa_supplicant could be asked.
        let scan = try Self.busctlAsNobody(
            bus.address,
            [
                "call", "fi.w1.wpa_supplicant1", "/fi/w1/wpa_supplicant1/Interfaces/0",
                "fi.w1.wpa_supplicant1.Interface",
                "Disconnect",
            ]
        )
        #expect(scan.status != 0 && scan.output.contains("Access denied"), "\(scan.output)")
        let set = try Self.busctlAsNobody(
            bus.address,
            [
                "set-property", "fi.w1.wpa_supplicant1", "/fi/w1/wpa_supplicant1", "fi.w1.wpa_supplicant1",
                "DebugLevel",
                "s", "debug",
            ]
        )
        #expect(set.status != 0 && set.output.contains("Access denied"), "\(set.output)")
    }
}
