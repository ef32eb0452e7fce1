/// What the access points in view are, as read once from the system bus (U6).
public struct AccessPointSnapshot: Sendable, Hashable {
    /// Every access point read, withheld ones too (``AccessPoint/sendable(_:)`` picks what is sent).
    public var points: [AccessPoint]
    /// Why nothing could be read, when nothing could: no bus, neither wpa_supplicant nor NetworkManager on it.
    public var note: String?

    public init(points: [AccessPoint], note: String? = nil) {
        self.points = points
        self.note = note
    }
}
