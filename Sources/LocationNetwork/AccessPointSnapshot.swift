/// What the access points in view are, as read once from the system bus (U6).
public struct AccessPointSnapshot: Sendable, Hashable {
    /// Every access point read, withheld ones too (``AccessPoint/sendable(_:)`` picks what is sent).
    public var points: [AccessPoint]
    /// Why nothing could be read, when nothing could: no bus, neither wpa_supplicant nor NetworkManager on it.
    public var note: String?
    /// When the list was last scanned, in seconds of `NIODeadline`'s clock (U24): from wpa_supplicant's youngest
    /// BSS `Age`, or NetworkManager's `LastScan`; `nil` when not known.
    public var scanned: Double?
    /// Whether the supplicant says the machine is connected (U26): NetworkManager's `State` 70, or an interface
    /// of wpa_supplicant `completed`; `nil` when not known.
    public var connected: Bool?

    public init(points: [AccessPoint], note: String? = nil, scanned: Double? = nil, connected: Bool? = nil) {
        self.points = points
        self.note = note
        self.scanned = scanned
        self.connected = connected
    }
}
