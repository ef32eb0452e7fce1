import LocationProtocol

/// A service session, like `CLServiceSession`: while the app holds it, the app states that it needs location at
/// the session's authorization level, and locd raises the prompts that calls for.
///
/// Sessions layer: an app may hold many, and none modifies another. A session lasts until ``invalidate()``,
/// ``LocationClient/goodbye()``, or the daemon ends it; a daemon restart does not end it, because the client takes
/// it back by itself (SEMANTICS R3).
public final class ServiceSession: Sendable {
    /// `CLServiceSession.AuthorizationRequirement`; raw values are the wire names.
    ///
    /// `none` mirrors Apple's name; the parameters that take this type are never optional, so `.none` is not
    /// `Optional.none` there.
    public enum AuthorizationRequirement: String, Sendable, Hashable, CaseIterable {
        case none
        case whenInUse
        case always
    }

    /// The daemon's id of the session, stable across daemon restarts.
    public let id: String
    public let authorization: AuthorizationRequirement
    public let fullAccuracyPurposeKey: String?
    /// The diagnostic the daemon sent with the session when it was created or resumed: the decision about it when
    /// no prompt is pending, without a ``diagnostics`` stream (`nil` if the reply had none).
    public let diagnosticAtStart: Diagnostic?
    private let link: AppLink

    init(
        id: String,
        authorization: AuthorizationRequirement,
        fullAccuracyPurposeKey: String?,
        diagnosticAtStart: Diagnostic? = nil,
        link: AppLink
    ) {
        self.id = id
        self.authorization = authorization
        self.fullAccuracyPurposeKey = fullAccuracyPurposeKey
        self.diagnosticAtStart = diagnosticAtStart
        self.link = link
    }

    /// The session's diagnostic now, then each change (`CLServiceSession.diagnostics`).
    ///
    /// The sequence finishes when the session ends (``invalidate()``, or the daemon ended it), and throws
    /// ``LocationClientError/sessionInvalidated(id:message:)`` if a daemon restart lost it. Across a restart the
    /// same diagnostic is not repeated.
    public var diagnostics: LocationStream<Diagnostic> {
        let link = self.link
        let id = self.id
        // Diagnostics are state: when the app reads slowly, only the newest matters (PROTOCOL "Limits").
        return LocationStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            var last: Diagnostic?
            try await link.follow(AppMethod.sessionDiagnostics.name, ["id": .string(id)], session: id) { reply, _ in
                let diagnostic = try Diagnostic(wire: reply["diagnostic"])
                if diagnostic != last { continuation.yield(diagnostic) }
                last = diagnostic
                if reply["ended"]?.boolValue == true {
                    await link.sessionEnded(id)
                    return .finished
                }
                return .more
            }
        }
    }

    /// Ends the session now, like ``invalidate()``, and returns once the daemon has been told (or could not be
    /// reached): for a caller that closes the client next and must not leave the session lingering.
    public func end() async {
        await link.invalidate(id)
    }

    /// Ends the session now (`CLServiceSession.invalidate()`); its diagnostics sequences finish.
    ///
    /// Returns at once; the daemon is told in the background. Calling it again does nothing. A program that exits
    /// next must not rely on it: call ``LocationClient/goodbye()``, or await ``end()``, first, or the daemon never
    /// hears it and the session lingers for the relaunch window, as a crashed app's would (SEMANTICS L3).
    public func invalidate() {
        let link = self.link
        let id = self.id
        Task { await link.invalidate(id) }
    }
}
