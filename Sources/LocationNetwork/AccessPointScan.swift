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
            switch source {
            case .wpaSupplicant:
                return AccessPointSnapshot(points: try readWpaSupplicant(bus, stopping))
            case .networkManager:
                return AccessPointSnapshot(points: try readNetworkManager(bus, stopping))
            case .auto:
                if try bus.hasOwner(wpaSupplicant) {
                    return AccessPointSnapshot(points: try readWpaSupplicant(bus, stopping))
                }
                if try bus.hasOwner(networkManager) {
                    return AccessPointSnapshot(points: try readNetworkManager(bus, stopping))
                }
                return AccessPointSnapshot(
                    points: [],
                    note: "neither wpa_supplicant nor NetworkManager is on the system bus"
                )
            }
        } catch {
            return AccessPointSnapshot(points: [], note: error.description)
        }
    }

    private static func readWpaSupplicant(
        _ bus: SystemBusClient,
        _ stopping: () -> Bool
    ) throws(BusError) -> [AccessPoint] {
        let interfaces = try bus.property(wpaSupplicant, "/fi/w1/wpa_supplicant1", wpaSupplicant, "Interfaces")
        var points: [AccessPoint] = []
        for interface in (interfaces.objectPaths ?? []).prefix(maximumDevices) where !stopping() {
            let bsss = try? bus.property(wpaSupplicant, interface, wpaSupplicant + ".Interface", "BSSs")
            for path in (bsss?.objectPaths ?? []).prefix(maximumPoints - points.count) where !stopping() {
                guard let properties = try? bus.properties(wpaSupplicant, path, wpaSupplicant + ".BSS"),
                    let bssid = properties["BSSID"]?.bytes
                else { continue }
                let signal = properties["Signal"]?.integer ?? -100
                points.append(AccessPoint(bssid: bssid, ssid: properties["SSID"]?.bytes ?? [], signal: signal))
            }
        }
        return points
    }

    private static func readNetworkManager(
        _ bus: SystemBusClient,
        _ stopping: () -> Bool
    ) throws(BusError) -> [AccessPoint] {
        let root = "/org/freedesktop/NetworkManager"
        let devices = try bus.call(networkManager, root, networkManager, "GetDevices").readObjectPaths()
        var points: [AccessPoint] = []
        for device in devices.prefix(maximumDevices) where !stopping() {
            // Only wireless devices have this interface; the others answer an error, and are skipped.
            let found = try? bus.property(networkManager, device, networkManager + ".Device.Wireless", "AccessPoints")
            for path in (found?.objectPaths ?? []).prefix(maximumPoints - points.count) where !stopping() {
                guard let properties = try? bus.properties(networkManager, path, networkManager + ".AccessPoint"),
                    let bssid = properties["HwAddress"]?.string.flatMap(parseMAC)
                else { continue }
                let strength = UInt8(clamping: properties["Strength"]?.integer ?? 0)
                let signal = AccessPoint.dBm(fromPercent: strength)
                points.append(AccessPoint(bssid: bssid, ssid: properties["Ssid"]?.bytes ?? [], signal: signal))
            }
        }
        return points
    }

    /// `AA:BB:CC:DD:EE:FF` as six octets, or `nil`.
    static func parseMAC(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        let octets = parts.compactMap { $0.count == 2 ? UInt8($0, radix: 16) : nil }
        return octets.count == 6 ? octets : nil
    }
}
