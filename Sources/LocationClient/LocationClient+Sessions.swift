import JSON
import LocationProtocol
import Varlink

extension LocationClient {
    /// Creates a service session (`CLServiceSession(authorization:fullAccuracyPurposeKey:)`): the app now needs
    /// location at this level, and the daemon raises the prompts that calls for before it replies.
    /// - Parameters:
    ///   - authorization: `.none` to receive location only if already authorized, `.whenInUse`, or `.always`.
    ///   - fullAccuracyPurposeKey: a key of the manifest's `NSLocationTemporaryUsageDescriptionDictionary`, to ask
    ///     for temporary full accuracy while the session lasts.
    /// - Throws: ``LocationClientError/usageDescriptionMissing(key:message:)``,
    ///   ``LocationClientError/unknownPurposeKey(purposeKey:message:)``,
    ///   ``LocationClientError/limitExceeded(limit:maximum:message:)``.
    public func serviceSession(
        authorization: ServiceSession.AuthorizationRequirement,
        fullAccuracyPurposeKey: String? = nil
    ) async throws -> ServiceSession {
        var parameters: JSONObject = ["authorization": .string(authorization.rawValue)]
        if let fullAccuracyPurposeKey { parameters["fullAccuracyPurposeKey"] = .string(fullAccuracyPurposeKey) }
        let reply = try await link.call(AppMethod.createSession.name, parameters)
        return try await adopt(reply)
    }

    /// Takes over a session of this app that is lingering — one a previous process of the app created and kept the
    /// id of (SEMANTICS S14). Sessions this client created need no call: it takes them back by itself after a
    /// daemon restart.
    public func resumeSession(id: String) async throws -> ServiceSession {
        let reply = try await link.call(AppMethod.resumeSession.name, ["id": .string(id)], retry: true)
        return try await adopt(reply)
    }

    /// The app's sessions that were lingering when this client last said `Hello`: those a previous process of the
    /// app left when it exited without ``goodbye()``, which ``resumeSession(id:)`` takes over (SEMANTICS L4, S14).
    /// A session another process took since is answered `noSuchSession` by the resume.
    public var lingeringSessionsAtHello: [LingeringSession] {
        get async { await link.lingeringAtHello }
    }

    /// Begins a background activity session (`CLBackgroundActivitySession`): the app stays in use in the
    /// background while it holds it.
    /// - Throws: ``LocationClientError/backgroundActivityUnavailable(reason:message:)`` when the app is not in the
    ///   foreground, not authorized, or lacks `location` in `UIBackgroundModes`.
    public func beginBackgroundActivity() async throws -> BackgroundActivitySession {
        let reply = try await link.call(AppMethod.beginBackgroundActivity.name)
        guard let id = reply["session"]?["id"]?.stringValue else {
            throw LocationClientError.unexpectedReply("BeginBackgroundActivity replied without a session id")
        }
        await link.track(id)
        return BackgroundActivitySession(id: id, link: link)
    }

    private func adopt(_ reply: JSONObject) async throws -> ServiceSession {
        guard let session = WireSession(json: reply["session"]) else {
            throw LocationClientError.unexpectedReply("a session reply without a session (id, kind, state, diagnostic)")
        }
        await link.track(session.id)
        return ServiceSession(
            id: session.id,
            authorization: ServiceSession.AuthorizationRequirement(rawValue: session.authorization) ?? .none,
            fullAccuracyPurposeKey: session.fullAccuracyPurposeKey,
            diagnosticAtStart: ServiceSession.Diagnostic(flags: DiagnosticFlags(rawValue: session.diagnostic.mask)),
            link: link
        )
    }
}
