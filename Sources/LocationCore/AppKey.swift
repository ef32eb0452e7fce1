/// Whose app: an app id and the user whose processes it is (SEMANTICS H1).
///
/// Everything the rules keep per app (the record, prompts, sessions, lifecycle, monitors) is kept per key, so one
/// person's answer never decides for another's use of the same app. The user is always named: ``noUser(_:)`` is the
/// app of no user, the installed entry of an app (H2) and the one person of a core driven without uids.
package struct AppKey: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    package var appID: String
    /// The uid of the app's processes: the connection's, or for a broker's `Hello` the real uid of the process it
    /// speaks for (I9); `nil` for the app's entry of no user (H2).
    package var user: UInt32?

    package init(_ appID: String, user: UInt32?) {
        self.appID = appID
        self.user = user
    }

    /// The app's entry of no user (H2): the installed app's, or that of a core that is given no uids.
    package static func noUser(_ appID: String) -> AppKey { AppKey(appID, user: nil) }

    /// App-id order, each app's entry of no user first, then its users by uid.
    package static func < (lhs: AppKey, rhs: AppKey) -> Bool {
        if lhs.appID != rhs.appID { return lhs.appID < rhs.appID }
        switch (lhs.user, rhs.user) {
        case (nil, nil): return false
        case (nil, _): return true
        case (_, nil): return false
        case (let left?, let right?): return left < right
        }
    }

    /// `com.example.maps`, or `com.example.maps (uid 1000)` for a user's.
    package var description: String {
        guard let user else { return appID }
        return "\(appID) (uid \(user))"
    }
}
