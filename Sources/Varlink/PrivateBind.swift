import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Where a listening socket is bound before it is published (``VarlinkServer/bind(path:mode:)``): a fresh
/// directory of mode 0700 beside its path, which no other user can enter, so that the socket can be given its
/// mode before anyone can reach it, whatever the umask, and then linked into place.
///
/// `mkdtemp` makes the directory 0700 whatever the umask; `link` within one filesystem publishes the socket, with
/// its mode, in one step, and only where nothing is: a socket already at the path is probed, and replaced only if
/// nobody listens on it (SEMANTICS R14). Changing the umask instead would change it for every thread of the process
/// while they create files.
struct PrivateBind {
    /// The socket's path once published.
    let target: String
    /// The fresh directory, and the path the socket is bound at in it.
    let directory: String
    let temporary: String

    /// Makes the fresh directory beside `target`.
    /// - Throws: when the directory cannot be made, or `target` exists and is not a socket (it is never replaced).
    init(target: String) throws {
        self.target = target
        var information = stat()
        if lstat(target, &information) == 0, information.st_mode & S_IFMT != S_IFSOCK {
            throw IOError(errnoCode: EEXIST, reason: "\(target) exists and is not a socket; not replacing it")
        }
        let slash = target.lastIndex(of: "/")
        let parent = slash.map { String(target[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        var template = Array(((parent == "/" ? "/" : parent + "/") + ".XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw IOError(errnoCode: errno, reason: "cannot make a private directory beside \(target)")
        }
        directory = String(cString: made)
        temporary = directory + "/s"
    }

    /// Gives the bound socket `mode` and links it at ``target``; the fresh directory goes either way.
    ///
    /// A socket already at ``target`` that a process listens on is left alone: this throws ``SocketInUse`` naming
    /// that process. A stale one, which refuses connections, is removed first, but only while it is still the
    /// file that was probed; a server that published its socket meanwhile wins, and is then the one named.
    func publish(mode: mode_t) throws {
        defer { abandon() }
        guard chmod(temporary, mode) == 0 else {
            throw IOError(errnoCode: errno, reason: "chmod \(temporary)")
        }
        // Each round either publishes, fails, or removes one stale file that another server may replace at once.
        for _ in 0..<3 {
            if link(temporary, target) == 0 { return }
            guard errno == EEXIST else {
                throw IOError(errnoCode: errno, reason: "cannot link the socket to \(target)")
            }
            try removeIfStale()
        }
        throw IOError(errnoCode: EEXIST, reason: "\(target) kept reappearing; not replacing it")
    }

    /// Removes the file at ``target`` if it is a socket that nobody listens on; throws ``SocketInUse`` if someone
    /// does, and says why when it is something else or the probe cannot tell.
    private func removeIfStale() throws {
        var probed = stat()
        guard lstat(target, &probed) == 0 else { return }  // gone since: link again
        guard probed.st_mode & S_IFMT == S_IFSOCK else {
            throw IOError(errnoCode: EEXIST, reason: "\(target) exists and is not a socket; not replacing it")
        }
        switch ListenerProbe.probe(target) {
        case .nothing:
            return
        case .live(let credentials):
            throw SocketInUse(path: target, credentials: credentials)
        case .unknown(let code):
            throw IOError(
                errnoCode: code,
                reason: "cannot tell whether a process listens on \(target); not replacing it"
            )
        case .stale:
            var now = stat()
            guard lstat(target, &now) == 0, now.st_dev == probed.st_dev, now.st_ino == probed.st_ino else { return }
            if unlink(target) != 0 && errno != ENOENT {
                throw IOError(errnoCode: errno, reason: "cannot remove the stale socket \(target)")
            }
        }
    }

    /// Removes the fresh directory, and the socket if it is still there.
    func abandon() {
        unlink(temporary)
        rmdir(directory)
    }
}
