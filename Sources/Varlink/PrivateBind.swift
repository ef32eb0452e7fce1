import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Where a listening socket is bound before it is published (``VarlinkServer/bind(path:mode:)``): a fresh
/// directory of mode 0700 beside its path, which no other user can enter, so that the socket can be given its
/// mode before anyone can reach it, whatever the umask, and then renamed into place.
///
/// `mkdtemp` makes the directory 0700 whatever the umask; `rename` within one filesystem publishes the socket,
/// with its mode, in one step, replacing a stale one. Changing the umask instead would change it for every thread
/// of the process while they create files.
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

    /// Gives the bound socket `mode` and renames it to ``target``; the fresh directory goes either way.
    func publish(mode: mode_t) throws {
        defer { abandon() }
        guard chmod(temporary, mode) == 0 else {
            throw IOError(errnoCode: errno, reason: "chmod \(temporary)")
        }
        guard rename(temporary, target) == 0 else {
            throw IOError(errnoCode: errno, reason: "cannot move the socket to \(target)")
        }
    }

    /// Removes the fresh directory, and the socket if it is still there.
    func abandon() {
        unlink(temporary)
        rmdir(directory)
    }
}
