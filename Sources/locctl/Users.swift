import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

/// User names and uids, as the password database (and NSS) knows them: `locctl apps` shows the user that made an
/// app, and `--user` takes a name or a uid (SEMANTICS F20).
enum Users {
    /// The name of `uid`, if the system knows one.
    static func name(of uid: UInt32) -> String? {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return nil }
        return String(cString: name)
    }

    /// The uid a user name or a number names; `nil` for a name the system does not know.
    static func uid(of user: String) -> UInt32? {
        if let entry = getpwnam(user) { return entry.pointee.pw_uid }
        // A number that is no user's name is a uid: one whose user was removed still owns its apps.
        guard let number = UInt32(user), number != UInt32.max else { return nil }
        return number
    }

    /// The uid of `user`, or a failure that says what `--user` takes.
    static func resolve(_ user: String) throws -> UInt32 {
        guard let uid = uid(of: user) else {
            throw ValidationError(
                "the system knows no user \(user): give a user name or a uid (locctl apps shows them)"
            )
        }
        return uid
    }

    /// `nobody (65534)`, or the bare uid where no name resolves.
    static func describe(_ uid: UInt32, name: (UInt32) -> String? = name(of:)) -> String {
        name(uid).map { "\($0) (\(uid))" } ?? String(uid)
    }
}
