import Foundation

/// The proxy the environment names for https:// requests, and the hosts reached without it (SEMANTICS U23).
public struct ProxySettings: Sendable, Hashable {
    /// An HTTP proxy, reached in the clear, through which https:// requests are tunnelled with `CONNECT`.
    public struct Server: Sendable, Hashable {
        public var host: String
        public var port: Int
        /// `user:password`, sent as `Proxy-Authorization: Basic`.
        public var user: String?
        public var password: String?

        public init(host: String, port: Int, user: String? = nil, password: String? = nil) {
            self.host = host
            self.port = port
            self.user = user
            self.password = password
        }
    }

    public var server: Server?
    /// `no_proxy`'s entries, lower case, without a leading `.` or `*.` or a `:port`.
    public var direct: [String]

    public init(server: Server?, direct: [String] = []) {
        self.server = server
        self.direct = direct
    }

    /// The most `no_proxy` entries read.
    static let maximumDirect = 64

    /// Reads `https_proxy` (else `HTTPS_PROXY`) and `no_proxy` (else `NO_PROXY`) from `environment`, or says what is
    /// wrong with them. An empty variable is as none.
    public static func parse(environment: [String: String]) -> Result<ProxySettings, InvalidSettings> {
        let named = ["https_proxy", "HTTPS_PROXY"].first { !(environment[$0] ?? "").isEmpty }
        let exceptions = ["no_proxy", "NO_PROXY"].compactMap { environment[$0] }.first ?? ""
        let direct = exceptions.split(separator: ",").prefix(maximumDirect).compactMap { entry -> String? in
            var host = entry.trimmingCharacters(in: .whitespaces).lowercased()
            if host.hasPrefix("*.") { host.removeFirst(2) } else if host.hasPrefix(".") { host.removeFirst() }
            if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
                host = String(host[host.index(after: host.startIndex)..<close])
            } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
                host = String(host[..<colon])
            }
            return host.isEmpty ? nil : host
        }
        guard let name = named, let value = environment[name] else {
            return .success(ProxySettings(server: nil, direct: direct))
        }
        let text = value.contains("://") ? value : "http://" + value
        guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
            return .failure(InvalidSettings(name, "is not a proxy URL: give http://host:port"))
        }
        guard components.scheme?.lowercased() == "http" else {
            return .failure(
                InvalidSettings(
                    name,
                    "has the scheme \(components.scheme ?? ""): only an http:// proxy is supported (it carries "
                        + "https:// requests with CONNECT, so they stay encrypted end to end)"
                )
            )
        }
        guard components.path.isEmpty || components.path == "/", components.query == nil else {
            return .failure(InvalidSettings(name, "has a path or query: give http://host:port"))
        }
        let port = components.port ?? 80
        guard (1...65_535).contains(port) else {
            return .failure(InvalidSettings(name, "has the port \(port), not between 1 and 65535"))
        }
        let server = Server(
            host: host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host,
            port: port,
            user: components.user.map { $0.removingPercentEncoding ?? $0 },
            password: components.password.map { $0.removingPercentEncoding ?? $0 }
        )
        return .success(ProxySettings(server: server, direct: direct))
    }

    /// Whether a request to `host` goes through the proxy: there is one, `host` is not loopback (U10), and no
    /// `no_proxy` entry names it or a domain it is in.
    public func usesProxy(for host: String) -> Bool {
        guard server != nil else { return false }
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if NetworkSettings.isLoopback(host) { return false }
        for entry in direct {
            if entry == "*" || host == entry || host.hasSuffix("." + entry) { return false }
        }
        return true
    }
}
