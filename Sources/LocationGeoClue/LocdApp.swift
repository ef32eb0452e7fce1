import JSON
import LocationClient
import Varlink

/// One D-Bus peer's connection to locd as one app, made at the peer's first `Start` and shared by its clients of that
/// app: a brokered `Hello` for the peer's process (SEMANTICS I8, I9), as the app id derived from that process, else
/// the client's `DesktopId` (I12). locd checks the app's manifest against the peer's process, not locd-geoclue; for
/// an app with no manifest it prompts with the description from the app's `.desktop` file (I11).
///
/// Its streams (each client's updates, which also decide a `Start` whose prompt is pending, G18) each need a
/// connection of their own, with the same `Hello`; one whose stream locd ended with its final reply (U18) is kept for
/// the next, two at most.
///
/// Closing it never says `Goodbye`, which would end at once the sessions of every connection speaking for the peer's
/// process, lingering ones included (SEMANTICS L3, I8). A peer's sessions are ended one by one (`Stop`,
/// `DeleteClient`) before the connection closes, or left to linger when the peer left the bus.
///
/// A connection locd closed, or one that could not be made, is made again at the next use, with the same `Hello`: a
/// started client takes its session back on it after locd restarted (SEMANTICS G16, R3). One closed here, or whose
/// `Hello` locd refused, stays closed: the peer's next `Start` needs a new one.
///
/// Used on the bus thread only; its connections are served there (``LocdLink``).
final class LocdApp {
    let appID: String
    private let socketPath: String
    /// The peer's process: its pid and pidfd, which every `Hello` of the app's connections passes.
    private let process: PeerProcess
    private unowned let bus: BusConnection
    private var state = State.unopened
    /// The control connection while its `Hello` waits for the answer.
    private var opening: LocdLink?
    /// The app's lingering sessions, as the control connection's `Hello` listed them.
    private(set) var lingeringAtHello: [LingeringSession] = []
    /// The sessions the clients of this connection hold, lingering ones they took back included: two clients share
    /// the connection, and a resume of a session the connection already owns would hand the same session to both;
    /// after locd restarted, every one of them is listed as lingering until its client takes it back.
    private var claimed: Set<String> = []
    /// Stream connections whose stream locd ended, `Hello` said, for the next stream.
    private var idleStreams: [LocdLink] = []
    static let idleStreamConnections = 2

    private enum State {
        case unopened
        case opening(waiting: [(Result<LocdLink, any Error>) -> Void])
        case open(LocdLink)
        /// locd could not be reached, or closed the connection: the next use connects again.
        case broken(any Error)
        /// The `Hello` was refused, or the connection was closed here: the peer's next `Start` needs a new one.
        case over(any Error)
    }

    init(appID: String, socketPath: String?, process: PeerProcess, bus: BusConnection) {
        self.appID = appID
        self.socketPath = socketPath ?? DefaultSocket.path()
        self.process = process
        self.bus = bus
    }

    /// Whether a new client of the app may use this connection: it is not over, and locd has not closed it.
    var isUsable: Bool {
        switch state {
        case .over: false
        case .open, .broken, .unopened, .opening: true
        }
    }

    /// Every `Hello` of the app's connections: read once, with the `.desktop` file's description.
    private lazy var helloParameters: JSONObject = {
        var parameters: JSONObject = [
            "appId": .string(appID), "state": .string("foreground"), "process": .int(Int64(process.pid)),
        ]
        if let description = DesktopDescription().description(of: appID) {
            parameters["description"] = .string(description)
        }
        return parameters
    }()

    /// Hands `body` the control connection, once its `Hello` is answered; made on first use.
    func control(_ body: @escaping (Result<LocdLink, any Error>) -> Void) {
        switch state {
        case .open(let link) where link.isOpen: body(.success(link))
        case .over(let error): body(.failure(error))
        case .opening(var waiting):
            waiting.append(body)
            state = .opening(waiting: waiting)
        case .unopened, .open, .broken:
            // A connection locd closed is made again: its streams' connections went with it.
            for link in idleStreams { link.close() }
            idleStreams = []
            state = .opening(waiting: [body])
            do {
                let link = try LocdLink(path: socketPath, hello: helloParameters, passing: process.pidfd, on: bus) {
                    [self] reply in helloAnswered(reply)
                }
                opening = link
            } catch {
                opened(.failure(LocationClientError.daemonUnavailable(socketPath: socketPath, reason: "\(error)")))
            }
        }
    }

    private func helloAnswered(_ reply: Result<VarlinkReply, LocdLink.LinkFailure>) {
        guard let link = opening else { return }
        opening = nil
        switch reply {
        case .success(let reply) where reply.error != nil:
            link.close()
            opened(
                .failure(LocationClientError(VarlinkError(name: reply.error ?? "", parameters: reply.parameters))),
                final: true
            )
        case .success(let reply):
            lingeringAtHello =
                reply.parameters["lingeringSessions"]?.arrayValue?.compactMap(LingeringSession.init(wire:)) ?? []
            opened(.success(link))
        case .failure(let failure):
            opened(.failure(LocationClientError.daemonUnavailable(socketPath: socketPath, reason: "\(failure)")))
        }
    }

    /// The control connection's `Hello` was answered; `final` when locd refused it.
    private func opened(_ result: Result<LocdLink, any Error>, final: Bool = false) {
        guard case .opening(let waiting) = state else { return }
        switch result {
        case .success(let link): state = .open(link)
        case .failure(let error): state = final ? .over(error) : .broken(error)
        }
        for body in waiting { body(result) }
    }

    /// A connection for a stream, `Hello` said (or about to be: calls may follow at once, and a refused `Hello`
    /// fails them with its reason): a kept one, else a new one.
    func streamLink() throws -> LocdLink {
        while let kept = idleStreams.popLast() {
            if kept.isOpen { return kept }
        }
        var link: LocdLink?
        link = try LocdLink(path: socketPath, hello: helloParameters, passing: process.pidfd, on: bus) { reply in
            guard case .success(let reply) = reply, let error = reply.error else { return }
            let refusal = LocationClientError(VarlinkError(name: error, parameters: reply.parameters))
            link?.fail("\(refusal)", refusal: refusal)
        }
        guard let link else { throw LocdLink.LinkFailure(description: "no connection to locd") }
        return link
    }

    /// Keeps a connection whose stream locd ended, for the next stream; closes it past the few kept.
    func park(_ link: LocdLink) {
        guard link.isOpen, isUsable, idleStreams.count < Self.idleStreamConnections else { return link.close() }
        idleStreams.append(link)
    }

    /// Whether the lingering session `id` is still free for a client of this connection to take; marks it taken.
    func claim(_ id: String) -> Bool {
        claimed.insert(id).inserted
    }

    /// A client of this connection no longer holds the session `id`.
    func release(_ id: String) {
        claimed.remove(id)
    }

    /// Runs `body` on the bus thread once `seconds` have passed.
    func after(_ seconds: Double, _ body: @escaping () -> Void) {
        bus.after(seconds, body)
    }

    /// Closes the connections without `Goodbye`: what sessions they still own linger (SEMANTICS L3).
    func close() {
        let links: [LocdLink]
        switch state {
        case .open(let link): links = [link]
        case .opening: links = opening.map { [$0] } ?? []
        case .unopened, .over, .broken: links = []
        }
        opened(.failure(LocationClientError.closed), final: true)
        state = .over(LocationClientError.closed)
        opening = nil
        for link in links + idleStreams { link.close() }
        idleStreams = []
    }
}
