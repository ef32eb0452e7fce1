import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Reads the access points in view from wpa_supplicant (`fi.w1.wpa_supplicant1`) or NetworkManager, as GeoClue
/// reads wpa_supplicant's: every interface's BSSs, each with its BSSID, SSID and signal.
enum AccessPointScan {
    static let wpaSupplicant = "fi.w1.wpa_supplicant1"
    static let networkManager = "org.freedesktop.NetworkManager"
    /// The most access points read in one scan, and interfaces or devices looked at.
    static let maximumPoints = 256
    static let maximumDevices = 16

    /// One reading for `source`; `stopping` is asked between calls, so a reader told to stop does not finish it.
    static func read(
        _ source: NetworkSettings.AccessPointSource,
        on bus: SystemBusClient,
        stopping: () -> Bool
    ) -> AccessPointSnapshot {
        do {
            switch try resolve(source, on: bus) {
            case .wpaSupplicant: return try readWpaSupplicant(bus, stopping)
            case .networkManager: return try readNetworkManager(bus, stopping)
            case .auto:
                return AccessPointSnapshot(
                    points: [],
                    note: "neither wpa_supplicant nor NetworkManager is on the system bus"
                )
            }
        } catch {
            return AccessPointSnapshot(points: [], note: error.description)
        }
    }

    /// The source `auto` stands for now: wpa_supplicant if it is on the bus, else NetworkManager, else `auto`
    /// (neither).
    private static func resolve(
        _ source: NetworkSettings.AccessPointSource,
        on bus: SystemBusClient
    ) throws(BusError) -> NetworkSettings.AccessPointSource {
        guard source == .auto else { return source }
        if try bus.hasOwner(wpaSupplicant) { return .wpaSupplicant }
        if try bus.hasOwner(networkManager) { return .networkManager }
        return .auto
    }

    /// Asks `source` for a scan of every interface or wireless device (U24): wpa_supplicant's `Interface.Scan`
    /// with `Type` `passive` (no probe request goes out: the machine is heard, not made to call), or
    /// NetworkManager's `Device.Wireless.RequestScan`. `nil` once one was taken, else why none was.
    static func requestScan(_ source: NetworkSettings.AccessPointSource, on bus: SystemBusClient) -> String? {
        do {
            var refusal: String?
            switch try resolve(source, on: bus) {
            case .wpaSupplicant:
                let interfaces = try bus.property(wpaSupplicant, "/fi/w1/wpa_supplicant1", wpaSupplicant, "Interfaces")
                for interface in (interfaces.objectPaths ?? []).prefix(maximumDevices) {
                    do {
                        try bus.call(
                            wpaSupplicant,
                            interface,
                            wpaSupplicant + ".Interface",
                            "Scan",
                            options: ["Type": "passive"]
                        )
                        return nil
                    } catch {
                        refusal = refusal ?? error.description
                    }
                }
            case .networkManager:
                let root = "/org/freedesktop/NetworkManager"
                let devices = try bus.call(networkManager, root, networkManager, "GetDevices").readObjectPaths()
                for device in devices.prefix(maximumDevices) {
                    do {
                        try bus.call(
                            networkManager,
                            device,
                            networkManager + ".Device.Wireless",
                            "RequestScan",
                            options: [:]
                        )
                        return nil
                    } catch  where error.name == "org.freedesktop.DBus.Error.UnknownMethod" {
                        continue  // Not a wireless device.
                    } catch {
                        refusal = refusal ?? error.description
                    }
                }
            case .auto:
                return "neither wpa_supplicant nor NetworkManager is on the system bus"
            }
            return refusal ?? "no Wi-Fi interface to scan"
        } catch {
            return error.description
        }
    }

    /// Seconds of `NIODeadline`'s clock (CLOCK_MONOTONIC) now.
    static func monotonicNow() -> Double { Double(NIODeadline.now().uptimeNanoseconds) / 1e9 }

    private static func readWpaSupplicant(
        _ bus: SystemBusClient,
        _ stopping: () -> Bool
    ) throws(BusError) -> AccessPointSnapshot {
        let interfaces = try bus.property(wpaSupplicant, "/fi/w1/wpa_supplicant1", wpaSupplicant, "Interfaces")
        var points: [AccessPoint] = []
        var youngest: Int?
        var connected = false
        for interface in (interfaces.objectPaths ?? []).prefix(maximumDevices) where !stopping() {
            let state = try? bus.property(wpaSupplicant, interface, wpaSupplicant + ".Interface", "State")
            if state?.string == "completed" { connected = true }
            let bsss = try? bus.property(wpaSupplicant, interface, wpaSupplicant + ".Interface", "BSSs")
            for path in (bsss?.objectPaths ?? []).prefix(maximumPoints - points.count) where !stopping() {
                guard let properties = try? bus.properties(wpaSupplicant, path, wpaSupplicant + ".BSS"),
                    let bssid = properties["BSSID"]?.bytes
                else { continue }
                let signal = properties["Signal"]?.integer ?? -100
                if let age = properties["Age"]?.integer { youngest = min(youngest ?? age, age) }
                points.append(AccessPoint(bssid: bssid, ssid: properties["SSID"]?.bytes ?? [], signal: signal))
            }
        }
        let scanned = youngest.map { monotonicNow() - Double($0) }
        return AccessPointSnapshot(points: points, scanned: scanned, connected: connected)
    }

    private static func readNetworkManager(
        _ bus: SystemBusClient,
        _ stopping: () -> Bool
    ) throws(BusError) -> AccessPointSnapshot {
        let root = "/org/freedesktop/NetworkManager"
        let devices = try bus.call(networkManager, root, networkManager, "GetDevices").readObjectPaths()
        let state = try? bus.property(networkManager, root, networkManager, "State")
        var points: [AccessPoint] = []
        var lastScan: Int?
        for device in devices.prefix(maximumDevices) where !stopping() {
            // Only wireless devices have this interface; the others answer an error, and are skipped.
            let wireless = networkManager + ".Device.Wireless"
            guard let found = try? bus.property(networkManager, device, wireless, "AccessPoints") else { continue }
            // LastScan: CLOCK_BOOTTIME milliseconds of the last scan, -1 for none.
            if let scan = (try? bus.property(networkManager, device, wireless, "LastScan"))?.integer, scan >= 0 {
                lastScan = max(lastScan ?? scan, scan)
            }
            for path in (found.objectPaths ?? []).prefix(maximumPoints - points.count) where !stopping() {
                guard let properties = try? bus.properties(networkManager, path, networkManager + ".AccessPoint"),
                    let bssid = properties["HwAddress"]?.string.flatMap(parseMAC)
                else { continue }
                let strength = UInt8(clamping: properties["Strength"]?.integer ?? 0)
                let signal = AccessPoint.dBm(fromPercent: strength)
                points.append(AccessPoint(bssid: bssid, ssid: properties["Ssid"]?.bytes ?? [], signal: signal))
            }
        }
        let scanned = lastScan.map { monotonicNow() - max(0, bootTimeNow() - Double($0) / 1000) }
        // NM_STATE_CONNECTED_GLOBAL.
        let connected = state?.integer.map { $0 == 70 }
        return AccessPointSnapshot(points: points, scanned: scanned, connected: connected)
    }

    /// Seconds of CLOCK_BOOTTIME now, the clock of NetworkManager's `LastScan`.
    private static func bootTimeNow() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// `AA:BB:CC:DD:EE:FF` as six octets, or `nil`.
    static func parseMAC(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        let octets = parts.compactMap { $0.count == 2 ? UInt8($0, radix: 16) : nil }
        return octets.count == 6 ? octets : nil
    }
}
