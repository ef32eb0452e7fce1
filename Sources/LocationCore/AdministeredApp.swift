/// One `[[administered-app]]` of locd.toml (SEMANTICS G32), GeoClue's `[app] system=` and `users=`: the
/// administrator's grant of an app, which overlays its users' records as `restricted-apps` does and is never stored.
package struct AdministeredApp: Hashable, Codable, Sendable {
    /// `authorized`: an undecided record of the app reads as authorized While Using, with no prompt.
    package var authorized: Bool
    /// `users`: the only uids whose app of this id may locate; every other user's is restricted. `nil`: every user.
    package var users: Set<UInt32>?

    package init(authorized: Bool = false, users: Set<UInt32>? = nil) {
        self.authorized = authorized
        self.users = users
    }

    /// G32: whether `manifest` gives its app an identity locd verifies against the process, which `authorized`
    /// needs: `identity = "executable"`. A stand-in (I11, M3), `uid` or `any` lets any program say the id.
    package static func verifies(_ manifest: Manifest?) -> Bool {
        guard let manifest, !manifest.isStandIn else { return false }
        return manifest.identity == .executable
    }

    /// `record` of the app of `user` (`nil`: the installed entry of no user) as the rules read it.
    /// - Parameters:
    ///   - verified: whether locd verifies the app's identity against its process (a manifest with
    ///     `identity = "executable"`): only then does `authorized` grant anything (G32).
    ///   - windowless: the app has no window (L14): the grant reads as Always, since it is never in use.
    func overlaid(
        _ record: AuthorizationRecord,
        user: UInt32?,
        verified: Bool,
        windowless: Bool = false
    ) -> AuthorizationRecord {
        var record = record
        if let users, let user, !users.contains(user) {
            record.status = .restricted
            return record
        }
        if authorized && verified && record.status == .notDetermined {
            record.status = windowless ? .authorizedAlways : .authorizedWhenInUse
            record.provisional = false
            record.oneTime = false
            // The record's accuracy stays: full, unless the person turned Precise Location off for the app.
            record.alwaysDecision = windowless ? .granted : .declined
        }
        return record
    }
}
