import ArgumentParser
import JSON

#if canImport(Glibc)
import Glibc
#endif

/// User names and uids, as the password database (and NSS) knows them: every app is a user's app (SEMANTICS H1),
/// `locctl` shows whose it is, and `--user` takes a name or a uid.
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

    /// `nobody`, or the bare uid where no name resolves: the short form a table cell shows.
    static func label(_ uid: UInt32, name: (UInt32) -> String? = name(of:)) -> String {
        name(uid) ?? String(uid)
    }

    /// The uid a reply's object names under `key` (`user` of an AppEntry, Session, Prompt or Event), if any.
    static func uid(in value: JSONValue?, key: String = "user") -> UInt32? {
        value?[key]?.intValue.flatMap { UInt32(exactly: $0) }
    }

    /// The uid this process's connections carry: the effective uid, which the kernel gives locd at `connect`.
    static var current: UInt32 { geteuid() }
}

/// `--user NAME|UID` of the commands that reach one app or its sessions: which user's app (SEMANTICS H4).
///
/// An administrator may name any user; anyone else reaches only their own apps, and naming another user is
/// refused by locd with `PermissionDenied`.
struct UserOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The user (a name or a uid) whose app this is; another user's needs an administrator.",
            valueName: "user"
        ),
        completion: .none
    )
    var user: String?

    /// The uid `--user` names, or `nil` when it is not given.
    func uid() throws -> UInt32? {
        try user.map(Users.resolve)
    }
}
