extension DaemonConfiguration {
    /// One provider table, `[provider]` or an element of `[[provider]]`: where locations come from (SEMANTICS U3,
    /// U13).
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
            /// Positions by the access points in view, from `locd-network` over `io.locd.NetworkLocation`.
            case network
        }

        /// `access-points` (network): where `locd-network` reads the access points in view; the raw value is
        /// the configuration's spelling.
        package enum AccessPoints: String, CaseIterable, Hashable, Sendable {
            /// Whichever of wpa_supplicant and NetworkManager is on the bus.
            case auto
            case wpaSupplicant = "wpa-supplicant"
            case networkManager = "network-manager"
        }

        /// The network provider's socket when `socket` is not set: `locd-network.socket`'s.
        package static let defaultNetworkSocket = "/run/locd/network.sock"
        /// `url`'s default: beaconDB's ichnaea-compatible geolocate endpoint.
        package static let defaultURL = "https://api.beacondb.net/v1/geolocate"
        /// How much longer than its `interval` a network fix stays fresh by default (U14): a service that answers
        /// slowly does not make the position flicker away between two answers.
        package static let networkStaleMargin = 60.0

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
        /// `socket` (gpsd, network): a Unix socket to reach gpsd through, such as `/run/locd/gpsd.sock` of
        /// `locd-gpsd.socket` for the system unit, which has no network; when set it wins over `host` and `port`.
        /// For network, `locd-network`'s socket, ``defaultNetworkSocket`` when unset.
        package var socket: String?
        /// `url` (network): the ichnaea-compatible geolocate endpoint, `https://`, or `http://` on a loopback host.
        package var url = Provider.defaultURL
        /// `consider-ip` = true (network): with no access point in view, ask by the request's IP address.
        package var considerIP = true
        /// `interval` = 300 (network): seconds after which `locd-network` asks again, access points changed or not.
        package var interval = 300.0
        /// `minimum-interval` = 10 (network): seconds; `locd-network` never asks more often.
        package var minimumInterval = 10.0
        /// `access-points` = `"auto"` (network).
        package var accessPoints = AccessPoints.auto
        /// `stale-after` (every kind): seconds a fix of this provider counts as fresh with no newer one (U14);
        /// `nil` means ``defaultStaleAfter``.
        package var staleAfter: Double?

        package init() {}

        /// The providers when no file writes `provider` (U28): gpsd through `locd-gpsd.socket`, then the network
        /// position through `locd-network.socket` (beaconDB). Never a made-up place.
        package static var builtIn: [Provider] {
            var gpsd = Provider()
            gpsd.kind = .gpsd
            gpsd.socket = defaultGPSDSocket
            var network = Provider()
            network.kind = .network
            return [gpsd, network]
        }

        /// The gpsd provider's socket in the built-in list: `locd-gpsd.socket`'s, a proxy to gpsd for a locd that has
        /// no network.
        package static let defaultGPSDSocket = "/run/locd/gpsd.sock"

        /// The socket the network provider connects to.
        package var networkSocket: String { socket ?? Provider.defaultNetworkSocket }

        /// `stale-after` when it is not set (U14): a receiver reports every second, so gpsd's and NMEA's fixes are
        /// stale after 5 s without a new one; a fixed point never is; a network position is asked for every
        /// `interval` seconds, so it stays fresh for that and ``networkStaleMargin`` more.
        package var defaultStaleAfter: Double {
            switch kind {
            case .fixedPoint: .infinity
            case .nmea, .gpsd: 5
            case .network: interval + Provider.networkStaleMargin
            }
        }

        /// How long a fix of this provider counts as fresh (U14): `stale-after`, else ``defaultStaleAfter``.
        package var freshFor: Double { staleAfter ?? defaultStaleAfter }
    }
}
