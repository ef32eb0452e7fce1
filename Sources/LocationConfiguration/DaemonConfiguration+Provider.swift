extension DaemonConfiguration {
    /// The `[provider]` table: where locations come from (SEMANTICS U3).
    ///
    /// Every kind's keys may be written; only those of the chosen `kind` are used, so that a drop-in can switch
    /// the kind without undoing the main file's other keys. They are checked all the same.
    package struct Provider: Hashable, Sendable {
        /// `kind`: the provider; its raw value is the configuration's spelling.
        package enum Kind: String, CaseIterable, Hashable, Sendable {
            /// A fixed point (`static` in the file; a Swift keyword, hence the name).
            case fixedPoint = "static"
            /// An NMEA 0183 file replayed in real time, looping.
            case nmea
            /// A gpsd on this machine, over its JSON protocol.
            case gpsd
        }

        /// `kind` = `"static"`.
        package var kind = Kind.fixedPoint
        /// `latitude` = 35.681236 (static), degrees in [-90, 90].
        package var latitude = 35.681236
        /// `longitude` = 139.767125 (static), degrees in [-180, 180].
        package var longitude = 139.767125
        /// `altitude` (static), metres; unset means unknown.
        package var altitude: Double?
        /// `accuracy` = 5 (static): the horizontal accuracy reported, metres ≥ 0.
        package var accuracy = 5.0
        /// `file` (nmea, required there): the NMEA 0183 file to replay.
        package var file: String?
        /// `speed-factor` = 1 (nmea): how much faster than real time the file is replayed, > 0.
        package var speedFactor = 1.0
        /// `host` = `"127.0.0.1"` (gpsd).
        package var host = "127.0.0.1"
        /// `port` = 2947 (gpsd), in 1…65535.
        package var port = 2947
        /// `socket` (gpsd): a Unix socket to reach gpsd through, such as `/run/locd/gpsd.sock` of
        /// `locd-gpsd.socket` for the system unit, which has no network; when set it wins over `host` and `port`.
        package var socket: String?

        package init() {}
    }
}
