/// Who made an app with no manifest of its own (SEMANTICS F20): the uid whose `Hello` made it, or no one known.
///
/// Such an app counts against its owner's `max-apps-per-uid`; an administrator forgets a user's apps by owner
/// (`Admin.ForgetApps`). An app with a manifest of its own has no owner that counts.
package enum AppOwner: Hashable, Codable, Sendable {
    /// The uid of the process whose `Hello` made the app: the peer's, or for a broker's `Hello` the real uid of
    /// the process it speaks for (I9).
    case uid(UInt32)
    /// Made before owners were kept (a store from an earlier version), or left without a manifest by a reload
    /// (M2): counted against no uid.
    case unknown

    /// The owner of an app whose maker's uid is `uid`, if known.
    init(_ uid: UInt32?) {
        self = uid.map(AppOwner.uid) ?? .unknown
    }
}
