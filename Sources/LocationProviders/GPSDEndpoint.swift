/// Where gpsd listens: a TCP address, or a Unix socket (the system unit has no network and reaches gpsd
/// through `locd-gpsd.socket`'s proxy at `/run/locd/gpsd.sock`).
package enum GPSDEndpoint: Equatable, Sendable, CustomStringConvertible {
    case tcp(host: String, port: Int)
    case unix(path: String)

    package var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        }
    }
}
