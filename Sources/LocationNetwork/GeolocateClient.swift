import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

#if canImport(Glibc)
import Glibc
#endif

/// Asks an ichnaea-compatible geolocate endpoint over HTTPS (U6, U12, U22), within bounds: one connection attempt
/// per request (the HTTP client retries no connect or TLS handshake of its own), one deadline that covers
/// connecting, TLS, the request and the answer's body (a service that drips its answer is cut off), at most
/// ``maximumBodyBytes`` of body, and at most ``maximumRedirects`` redirects, none back to a URL already visited.
/// Certificates are checked against the system's trust store, or the certificates of a CA file (U23); https://
/// requests go through the proxy the environment names unless `no_proxy` or loopback says otherwise.
public final class GeolocateClient: Sendable {
    /// The largest answer read: a position is a hundred bytes; anything near a mebibyte is not one.
    public static let maximumBodyBytes = 1 << 20
    public static let maximumRedirects = 3

    private let direct: HTTPClient
    /// The client through the proxy, when the environment names one.
    private let proxied: HTTPClient?
    private let proxy: ProxySettings
    private let deadline: Duration
    private let userAgent: String

    /// - Parameters:
    ///   - deadline: how long one request may take from connecting to the last byte of the answer.
    ///   - userAgent: the `User-Agent` of every request (U19).
    ///   - proxy: the proxy and the hosts reached without it (U23).
    ///   - caFile: the certificates to check the service's against, instead of the system's (U23).
    public init(
        deadline: Duration,
        userAgent: String = UserAgent.make(osRelease: nil),
        proxy: ProxySettings = ProxySettings(server: nil),
        caFile: CAFile? = nil
    ) {
        let nanoseconds = deadline.components.seconds * 1_000_000_000 + deadline.components.attoseconds / 1_000_000_000
        let whole = TimeAmount.nanoseconds(max(1_000_000, nanoseconds))
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile { tls.trustRoots = .certificates(caFile.certificates) }
        func make(_ server: ProxySettings.Server?) -> HTTPClient {
            var configuration = HTTPClient.Configuration(
                tlsConfiguration: tls,
                redirectConfiguration: .disallow,
                // Connect and read within the whole deadline, not a shorter one of their own: execute's deadline
                // is the bound.
                timeout: .init(connect: whole, read: whole)
            )
            configuration.connectionPool.retryConnectionEstablishment = false
            if let server {
                let authorization = server.user.map { user in
                    HTTPClient.Authorization.basic(username: user, password: server.password ?? "")
                }
                configuration.proxy = .server(host: server.host, port: server.port, authorization: authorization)
            }
            return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        }
        direct = make(nil)
        proxied = proxy.server.map { make($0) }
        self.proxy = proxy
        self.deadline = deadline
        self.userAgent = userAgent
    }

    /// Closes the client's connections.
    public func shutdown() async {
        try? await direct.shutdown()
        try? await proxied?.shutdown()
    }

    /// Sends `request` to `url` and reads the answer, or says why there is none.
    public func locate(url: String, _ request: GeolocateRequest) async -> Result<GeolocateAnswer, GeolocateFailure> {
        let limit = deadline
        let outcome = await withTaskGroup(of: Result<(Int, [UInt8], Double?), GeolocateFailure>?.self) { group in
            group.addTask { await self.exchange(url: url, body: request.body) }
            // The client's own deadline comes first and says why; this one, a moment later, also cuts off an
            // answer whose body is still coming.
            group.addTask {
                try? await Task.sleep(for: limit + .milliseconds(500))
                return Task.isCancelled
                    ? nil : .failure(.unreachable("the service did not answer in full within \(Self.describe(limit))"))
            }
            defer { group.cancelAll() }
            while let next = await group.next() {
                if let next { return next }
            }
            return .failure(.unreachable("the request was cancelled"))
        }
        return outcome.flatMap { status, body, retryAfter in
            GeolocateAnswer.decode(status: status, body: body, retryAfter: retryAfter)
        }
    }

    /// One answer, or where the service redirects.
    private enum Reply {
        case answer(status: Int, body: [UInt8], retryAfter: Double?)
        case redirect(String)
    }

    /// POSTs `body` to `url`, following redirects by hand: each new URL must pass U10's check as the Watch's own
    /// did (https://, or http:// on loopback), so that a redirect cannot send the access points in the clear.
    private func exchange(url: String, body: String) async -> Result<(Int, [UInt8], Double?), GeolocateFailure> {
        let components = deadline.components
        let nanoseconds = components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
        let end = NIODeadline.now() + .nanoseconds(nanoseconds)
        var current = url
        var visited: Set<String> = [url]
        for _ in 0...Self.maximumRedirects {
            switch await send(body, to: current, deadline: end) {
            case .failure(let failure): return .failure(failure)
            case .success(.answer(let status, let bytes, let retryAfter)): return .success((status, bytes, retryAfter))
            case .success(.redirect(let location)):
                guard let next = URL(string: location, relativeTo: URL(string: current))?.absoluteURL.absoluteString
                else { return .failure(.refused("the service redirects to \"\(location.prefix(200))\", not a URL")) }
                if let refusal = NetworkSettings.checkURL(next) {
                    return .failure(.refused("the service redirects to a URL that \(refusal.reason)"))
                }
                guard visited.insert(next).inserted else {
                    return .failure(.refused("the service redirects in a loop"))
                }
                current = next
            }
        }
        return .failure(.refused("the service redirects more than \(Self.maximumRedirects) times"))
    }

    private func send(_ body: String, to url: String, deadline: NIODeadline) async -> Result<Reply, GeolocateFailure> {
        var http = HTTPClientRequest(url: url)
        http.method = .POST
        http.headers.add(name: "Content-Type", value: "application/json")
        http.headers.add(name: "User-Agent", value: userAgent)
        http.body = .bytes(ByteBuffer(string: body))
        let host = URLComponents(string: url)?.host ?? ""
        let client = proxy.usesProxy(for: host) ? (proxied ?? direct) : direct
        do {
            let response = try await client.execute(http, deadline: deadline)
            let status = Int(response.status.code)
            if [301, 302, 303, 307, 308].contains(status), let location = response.headers.first(name: "Location") {
                _ = try? await response.body.collect(upTo: 65_536)
                return .success(.redirect(location))
            }
            let bytes = try await response.body.collect(upTo: Self.maximumBodyBytes)
            let retryAfter = response.headers.first(name: "Retry-After").flatMap {
                RetryAfter.delay($0, now: Date())
            }
            return .success(.answer(status: status, body: Array(buffer: bytes), retryAfter: retryAfter))
        } catch is NIOTooManyBytesError {
            return .failure(.badAnswer("the answer is larger than \(Self.maximumBodyBytes) bytes"))
        } catch let error as HTTPClientError {
            return .failure(Self.failure(error))
        } catch let error as IOError {
            return .failure(.unreachable("cannot reach the service: \(String(cString: strerror(error.errnoCode)))"))
        } catch is CancellationError {
            return .failure(.unreachable("the request was cancelled"))
        } catch {
            let text = String(describing: error)
            if text.contains("CERTIFICATE_VERIFY_FAILED") {
                return .failure(
                    .unreachable(
                        "cannot reach the service: its certificate is not trusted (CERTIFICATE_VERIFY_FAILED); "
                            + "check the URL's host name and the system's trust store"
                    )
                )
            }
            return .failure(.unreachable("cannot reach the service: \(text.prefix(300))"))
        }
    }

    private static func failure(_ error: HTTPClientError) -> GeolocateFailure {
        switch error {
        case .connectTimeout: .unreachable("cannot connect to the service: timed out")
        case .deadlineExceeded, .readTimeout: .unreachable("the service did not answer in time")
        case .remoteConnectionClosed: .unreachable("the service closed the connection before answering")
        default: .unreachable("cannot reach the service: \(error)")
        }
    }

    private static func describe(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}
