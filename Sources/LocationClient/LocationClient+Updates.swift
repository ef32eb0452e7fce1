import JSON
import LocationProtocol
import Varlink

extension LocationClient {
    /// Live location updates (`CLLocationUpdate.liveUpdates(_:)`): one update at once, then one per delivered fix
    /// or change of the flags.
    ///
    /// Without an explicit session of at least `.whenInUse`, iterating creates the app's implicit session for as
    /// long as it runs (unless the manifest sets `CLRequireExplicitServiceSession`; then updates say
    /// ``LocationUpdate/serviceSessionRequired`` instead). Across a daemon restart an identical update is not
    /// repeated. When the app reads slower than updates come, the oldest are dropped past 64.
    ///
    /// - Parameters:
    ///   - configuration: what the updates are for; it sets the distance and time filters.
    ///   - accuracy: `.reduced` asks for approximate locations even when precise ones are allowed
    ///     (`desiredAccuracy = kCLLocationAccuracyReduced`): the grid cell a reduced grant would give, without
    ///     ``LocationUpdate/accuracyLimited``, since the app chose it. `nil` or `.full`: what the grant allows.
    ///   - session: one of this client's sessions: the updates end when it ends (SEMANTICS U18), and the
    ///     stream's connection is kept for the next stream, so a program that starts and stops often opens one.
    public func liveUpdates(
        _ configuration: LocationUpdate.LiveConfiguration = .default,
        accuracy: LocationUpdate.DesiredAccuracy? = nil,
        session: ServiceSession? = nil
    ) -> LocationStream<
        LocationUpdate
    > {
        let link = self.link
        var parameters = JSONObject([("configuration", .string(configuration.rawValue))])
        if let accuracy { parameters["accuracy"] = .string(accuracy.rawValue) }
        if let session { parameters["session"] = .string(session.id) }
        return LocationStream(bufferingPolicy: .bufferingNewest(64)) { [parameters] continuation in
            var last: LocationUpdate?
            try await link.follow(AppMethod.liveUpdates.name, parameters, session: session?.id) { reply, first in
                let update = try LocationUpdate(wire: reply["update"])
                // The first update after a reconnection restates the last one; only a new one is news.
                if !(first && update == last) { continuation.yield(update) }
                last = update
                return .more
            }
        }
    }

    /// The monitor named `name` (`CLMonitor.requestMonitorWithConfiguration`): the same name reaches the same
    /// conditions from any process of the app.
    public func monitor(named name: String) -> Monitor {
        Monitor(name: name, link: link)
    }
}
