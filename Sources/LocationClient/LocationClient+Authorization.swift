import LocationProtocol

extension LocationClient {
    /// The app's authorization now (`CLLocationManager.authorizationStatus` and `accuracyAuthorization`).
    public var authorization: Authorization {
        get async throws {
            let reply = try await link.call(AppMethod.getAuthorization.name, retry: true)
            let authorization = try Authorization(wire: reply["authorization"])
            await link.noteAuthorization(authorization)
            return authorization
        }
    }

    /// The authorization now, then each change (`locationManagerDidChangeAuthorization`).
    ///
    /// Across a daemon restart the same authorization is not repeated.
    public var authorizationUpdates: LocationStream<Authorization> {
        let link = self.link
        return LocationStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            var last: Authorization?
            try await link.follow(AppMethod.watchAuthorization.name, [:]) { reply, _ in
                let authorization = try Authorization(wire: reply["authorization"])
                if authorization != last { continuation.yield(authorization) }
                last = authorization
                await link.noteAuthorization(authorization)
                return .more
            }
        }
    }

    /// Legacy `requestWhenInUseAuthorization()`: asks for the prompt and replies at once, with the authorization
    /// as it is before the user answers. Prefer a ``ServiceSession``, which asks by existing.
    @discardableResult
    public func requestWhenInUseAuthorization() async throws -> Authorization {
        try await requestAuthorization(level: "whenInUse")
    }

    /// Legacy `requestAlwaysAuthorization()`; see ``requestWhenInUseAuthorization()``.
    @discardableResult
    public func requestAlwaysAuthorization() async throws -> Authorization {
        try await requestAuthorization(level: "always")
    }

    /// Legacy `requestTemporaryFullAccuracyAuthorization(withPurposeKey:)`: asks for a temporary full-accuracy
    /// prompt and replies at once.
    /// - Parameter purposeKey: a key of the manifest's `NSLocationTemporaryUsageDescriptionDictionary`.
    @discardableResult
    public func requestTemporaryFullAccuracyAuthorization(purposeKey: String) async throws -> Authorization {
        let reply = try await link.call(
            AppMethod.requestTemporaryFullAccuracy.name,
            ["purposeKey": .string(purposeKey)],
            retry: true
        )
        return try Authorization(wire: reply["authorization"])
    }

    private func requestAuthorization(level: String) async throws -> Authorization {
        let reply = try await link.call(AppMethod.requestAuthorization.name, ["level": .string(level)], retry: true)
        return try Authorization(wire: reply["authorization"])
    }
}
