import AsyncHTTPClient
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
import Glibc
#endif

/// Asks an ichnaea-compatible geolocate endpoint over HTTPS (U6, U12), within bounds: a connect timeout, a total
/// deadline that covers the answer's body too (a service that drips its answer is cut off), at most
/// ``maximumBodyBytes`` of body, and at most ``maximumRedirects`` redirects, none back to a URL already visited.
/// Certificates are checked as the HTTP client does by default, against the system's trust store.
public final class GeolocateClient: Sendable {
    /// The largest answer read: a position is a hundred bytes; anything near a mebibyte is not one.
    public static let maximumBodyBytes = 1 << 20
    public static let maximumRedirects = 3

    private let client: HTTPClient
    private let deadline: Duration

    /// - Parameter deadline: how long one request may take from connecting to the last byte of the answer.
    public init(deadline: Duration) {
        let seconds = deadline.components.seconds
        let connect = TimeAmount.seconds(max(1, min(5, seconds)))
        let configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: Self.maximumRedirects, allowCycles: false),
            timeout: .init(connect: connect, read: connect)
        )
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.deadline = deadline
    }

    /// Closes the client's connections.
    public func shutdown() async {
        try? await client.shutdown()
    }

    /// Sends `request` to `url` and reads the answer, or says why there is none.
    public func locate(url: String, _ request: GeolocateRequest) async -> Result<GeolocateAnswer, GeolocateFailure> {
        let limit = deadline
        let outcome = await withTaskGroup(of: Result<(Int, [UInt8]), GeolocateFailure>?.self) { group in
            group.addTask { await self.exchange(url: url, body: request.body) }
            // The client's own deadline comes first and says why (a refused connection is retried until it);
            // this one, a moment later, also cuts off an answer whose body is still coming.
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
        return outcome.flatMap { status, body in GeolocateAnswer.decode(status: status, body: body) }
    }

    private func exchange(url: String, body: String) async -> Result<(Int, [UInt8]), GeolocateFailure> {
        var http = HTTPClientRequest(url: url)
        http.method = .POST
        http.headers.add(name: "Content-Type", value: "application/json")
        http.headers.add(name: "User-Agent", value: "locd-network")
        http.body = .bytes(ByteBuffer(string: body))
        do {
            let response = try await client.execute(
                http,
                deadline: .now()
                    + .nanoseconds(
                        Int64(deadline.components.seconds) * 1_000_000_000 + deadline.components.attoseconds
                            / 1_000_000_000
                    )
            )
            let bytes = try await response.body.collect(upTo: Self.maximumBodyBytes)
            return .success((Int(response.status.code), Array(buffer: bytes)))
        } catch is NIOTooManyBytesError {
            return .failure(.badAnswer("the answer is larger than \(Self.maximumBodyBytes) bytes"))
        } catch let error as HTTPClientError {
            return .failure(Self.failure(error))
        } catch let error as IOError {
            return .failure(.unreachable("cannot reach the service: \(String(cString: strerror(error.errnoCode)))"))
        } catch is CancellationError {
            return .failure(.unreachable("the request was cancelled"))
        } catch {
            return .failure(.unreachable("cannot reach the service: \(error)"))
        }
    }

    private static func failure(_ error: HTTPClientError) -> GeolocateFailure {
        switch error {
        case .redirectCycleDetected: .refused("the service redirects in a loop")
        case .redirectLimitReached: .refused("the service redirects more than \(maximumRedirects) times")
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
