/// One Wi-Fi access point in view, as wpa_supplicant or NetworkManager reports it.
public struct AccessPoint: Sendable, Hashable {
    /// The BSSID, as six octets.
    public var bssid: [UInt8]
    /// The SSID's bytes (not necessarily UTF-8).
    public var ssid: [UInt8]
    /// The signal strength in dBm.
    public var signal: Int

    public init(bssid: [UInt8], ssid: [UInt8], signal: Int) {
        self.bssid = bssid
        self.ssid = ssid
        self.signal = signal
    }

    /// The BSSID as the geolocation service takes it: `aa:bb:cc:dd:ee:ff`, lower case.
    public var macAddress: String {
        bssid.map { byte in
            let digits = String(byte, radix: 16)
            return byte < 16 ? "0" + digits : digits
        }.joined(separator: ":")
    }

    /// The suffix by which an access point's owner opts out of geolocation services (U7).
    static let optOut = Array("_nomap".utf8)

    /// Why this access point is never sent (U7, U20), or `nil` when it may be: its SSID ends in `_nomap`; its BSSID
    /// is not six octets, all zero (hidden or unknown), a group address, or locally administered (randomised, as
    /// phones' hotspots are: it moves, and it says nothing of where the machine is); its SSID is hidden (empty, or
    /// zero bytes only, as wpa_supplicant reports some hidden networks).
    public var withheld: String? {
        if ssid.count >= Self.optOut.count, Array(ssid.suffix(Self.optOut.count)) == Self.optOut { return "_nomap" }
        guard bssid.count == 6 else { return "not a 6-octet BSSID" }
        if bssid.allSatisfy({ $0 == 0 }) { return "zero BSSID" }
        if bssid[0] & 0x01 != 0 { return "group BSSID" }
        if bssid[0] & 0x02 != 0 { return "locally administered BSSID" }
        if ssid.allSatisfy({ $0 == 0 }) { return "hidden SSID" }
        return nil
    }

    /// The most access points one request carries.
    public static let maximumSent = 20

    /// What a request carries (U7): the access points not withheld, strongest first (equal signals by BSSID),
    /// at most ``maximumSent``, each BSSID once.
    public static func sendable(_ accessPoints: [AccessPoint]) -> [AccessPoint] {
        var seen = Set<[UInt8]>()
        let allowed = accessPoints.filter { $0.withheld == nil && seen.insert($0.bssid).inserted }
        let sorted = allowed.sorted { ($0.signal, $1.macAddress) > ($1.signal, $0.macAddress) }
        return Array(sorted.prefix(maximumSent))
    }

    /// NetworkManager's `Strength` (percent) in dBm: the inverse of NetworkManager's own conversion, which maps
    /// −100…−40 dBm linearly onto 0…100 %: −100 + 0.6 × percent.
    public static func dBm(fromPercent percent: UInt8) -> Int {
        -100 + (Int(min(percent, 100)) * 6 + 5) / 10
    }
}
