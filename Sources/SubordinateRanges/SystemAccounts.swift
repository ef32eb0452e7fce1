#if canImport(Glibc)
import Glibc
#endif

/// The system's accounts, as far as subordinate ranges need them (SEMANTICS H9): a uid in a range that has an
/// account of its own (a directory's user whose uid a range covers, as sssd's id mapping gives from 200000) counts
/// as itself, never as the range's user.
package enum SystemAccounts {
    /// Whether the system has a passwd entry for `uid` (getpwuid_r: local files, sssd, LDAP, whatever NSS asks).
    @Sendable
    package static func exists(_ uid: UInt32) -> Bool {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        var status = getpwuid_r(uid, &entry, &buffer, buffer.count, &result)
        if status == ERANGE {
            buffer = [CChar](repeating: 0, count: 1 << 16)
            status = getpwuid_r(uid, &entry, &buffer, buffer.count, &result)
        }
        return status == 0 && result != nil
    }

    /// The accounts the system lists (getpwent: those NSS enumerates), at most `limit` of them.
    package static func listed(limit: Int = 1 << 20) -> [(name: String, uid: UInt32)] {
        var accounts: [(name: String, uid: UInt32)] = []
        setpwent()
        defer { endpwent() }
        while accounts.count < limit, let entry = getpwent() {
            accounts.append((String(cString: entry.pointee.pw_name), entry.pointee.pw_uid))
        }
        return accounts
    }
}

extension SubordinateIDs {
    /// Records each of `accounts` whose uid lies in a range as an account of its own (it counts as itself), and
    /// returns a line for each to log, naming the account, the range's line and what it means (H9).
    package mutating func admit(_ accounts: [(name: String, uid: UInt32)]) -> [String] {
        var lines: [String] = []
        for (name, uid) in accounts {
            guard let delegation = delegation(of: uid), addAccount(uid) else { continue }
            lines.append(overlap(uid: uid, name: name, delegation))
        }
        return lines
    }

    /// The line logged for the account `name` (uid `uid`) that lies in the range of `delegation`.
    package func overlap(uid: UInt32, name: String?, _ delegation: Delegation) -> String {
        let account = name.map { "the account \($0)" } ?? "an account"
        return "\(source):\(delegation.line): uid \(uid) is \(account), inside the range this line delegates to uid "
            + "\(delegation.owner): it counts as itself, not as uid \(delegation.owner) (SEMANTICS H9); "
            + "give uid \(delegation.owner) a range clear of the system's accounts"
    }
}

/// The answers of ``SystemAccounts/exists(_:)`` for uids in a range, for one load of the ranges (H9): the system is
/// asked once per uid, and only for a uid in a range, so an ordinary connection pays nothing. A uid found to have
/// an account is recorded in the ``SubordinateIDs`` themselves; the uids without one are kept here, up to
/// ``bound``, past which they are forgotten and asked again.
package struct AccountLookup: Sendable {
    package static let bound = 65_536
    private var withoutAccount: Set<UInt32> = []
    private let exists: @Sendable (UInt32) -> Bool

    package init(exists: @escaping @Sendable (UInt32) -> Bool = SystemAccounts.exists) {
        self.exists = exists
    }

    /// The uid `uid` counts as (H9), asking the system whether it has an account when it lies in a range and has
    /// not been asked before in this load.
    /// - Returns: the uid it counts as, and the range it lies in when it was just found to have an account of its
    ///   own (the caller records it in its ``SubordinateIDs`` with ``SubordinateIDs/addAccount(_:)`` and logs it).
    package mutating func counted(
        _ uid: UInt32,
        in ids: SubordinateIDs
    ) -> (counted: UInt32, found: SubordinateIDs.Delegation?) {
        guard let delegation = ids.delegation(of: uid) else { return (uid, nil) }
        if ids.accounts.contains(uid) { return (uid, nil) }
        if withoutAccount.contains(uid) { return (delegation.owner, nil) }
        guard exists(uid) else {
            if withoutAccount.count >= Self.bound { withoutAccount.removeAll(keepingCapacity: true) }
            withoutAccount.insert(uid)
            return (delegation.owner, nil)
        }
        return (uid, delegation)
    }
}
