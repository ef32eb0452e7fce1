import Foundation
import JSON

/// A stand-in wpa_supplicant or NetworkManager on a ``PrivateSystemBus`` (Fixtures/wifi_standin.py): it serves the
/// access points it is given, as the real service does, and the test adds and removes them while it runs.
package final class StandInWifi: @unchecked Sendable {
    // @unchecked: set once in init; the script is driven from one test.
    /// Which service it stands in for.
    package enum Kind: String, Sendable {
        case wpaSupplicant = "wpa"
        case networkManager = "nm"
    }

    /// One access point: its BSSID (`aa:bb:cc:dd:ee:ff`), SSID and signal in dBm.
    package struct Point: Sendable, Hashable {
        package var bssid: String
        package var ssid: String
        package var signal: Int

        package init(_ bssid: String, _ ssid: String, _ signal: Int) {
            self.bssid = bssid
            self.ssid = ssid
            self.signal = signal
        }

        var argument: String { "\(bssid),\(ssid),\(signal)" }
    }

    /// Three access points in view, one of whose owner opted out (`_nomap`).
    package static let threeWithNomap = [
        Point("00:11:22:33:44:01", "Home", -50),
        Point("00:11:22:33:44:02", "Cafe", -60),
        Point("00:11:22:33:44:03", "Private_nomap", -40),
    ]

    private let script: ScriptProcess

    /// Starts the stand-in on `bus` and waits until it owns its name.
    package convenience init(_ kind: Kind, points: [Point], bus: PrivateSystemBus, directory: String) throws {
        try self.init(kind, points: points, busAddress: bus.address, directory: directory)
    }

    /// Starts the stand-in on the bus at `busAddress` (a D-Bus address, `unix:path=…`), the test's own system bus
    /// whoever started it, and waits until it owns its name.
    package init(_ kind: Kind, points: [Point], busAddress: String, directory: String) throws {
        script = try ScriptProcess(
            ["/usr/bin/python3", ScriptProcess.fixture("wifi_standin.py"), kind.rawValue] + points.map(\.argument),
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": busAddress],
            logPath: directory + "/wifi-\(kind.rawValue).log"
        )
        guard script.waitFor({ $0["ready"] != nil }) != nil else {
            throw StandInFailure("the stand-in \(kind.rawValue) did not start: \(script.log)")
        }
    }

    /// Adds an access point, with the signals the real service sends.
    package func add(_ point: Point) throws {
        script.send("add \(point.argument)")
        guard script.waitFor({ $0["added"]?.stringValue == point.bssid.lowercased() }) != nil else {
            throw StandInFailure("the stand-in did not add \(point.bssid): \(script.log)")
        }
    }

    /// Removes the access point `bssid`, with the signals the real service sends.
    package func remove(_ bssid: String) throws {
        script.send("remove \(bssid)")
        guard script.waitFor({ $0["removed"]?.stringValue == bssid.lowercased() }) != nil else {
            throw StandInFailure("the stand-in did not remove \(bssid): \(script.log)")
        }
    }

    /// How many property reads and method calls it has answered so far.
    package func reads() throws -> Int {
        let before = script.objects.filter { $0["reads"] != nil }.count
        script.send("reads")
        var answer: Int?
        _ = eventually(timeout: 20, every: 0.02) {
            let answers = script.objects.compactMap { $0["reads"]?.intValue }
            if answers.count > before { answer = Int(answers[before]) }
            return answer != nil
        }
        guard let answer else { throw StandInFailure("the stand-in did not count its reads: \(script.log)") }
        return answer
    }

    /// How many scans it was asked for so far, and the `Type` of wpa_supplicant's last (`nil` for none or nm).
    package func scans() throws -> (count: Int, type: String?) {
        let before = script.objects.filter { $0["scans"] != nil }.count
        script.send("scans")
        var answer: JSONObject?
        _ = eventually(timeout: 20, every: 0.02) {
            let answers = script.objects.filter { $0["scans"] != nil }
            if answers.count > before { answer = answers[before] }
            return answer != nil
        }
        guard let answer, let count = answer["scans"]?.intValue else {
            throw StandInFailure("the stand-in did not count its scans: \(script.log)")
        }
        return (Int(count), answer["type"]?.stringValue)
    }

    /// The list was last scanned `seconds` ago (wpa: every BSS's `Age`; nm: `LastScan`), silently, as the real
    /// services let it age.
    package func setAge(_ seconds: Int) throws {
        script.send("age \(seconds)")
        guard script.waitFor({ $0["age"]?.intValue == Int64(seconds) }) != nil else {
            throw StandInFailure("the stand-in did not take the age: \(script.log)")
        }
    }

    /// Sets the connection state, signalled as the real service does: wpa_supplicant's interface `State`
    /// (`completed`, `disconnected`), or NetworkManager's `State` (`70` connected, `20` disconnected).
    package func setState(_ state: String) throws {
        script.send("state \(state)")
        guard script.waitFor({ $0["state"]?.stringValue == state }) != nil else {
            throw StandInFailure("the stand-in did not take the state \(state): \(script.log)")
        }
    }

    /// Ends the stand-in: its name leaves the bus.
    package func stop() { script.kill9() }
}
