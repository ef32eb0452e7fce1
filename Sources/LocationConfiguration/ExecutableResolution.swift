#if canImport(Glibc)
import Glibc
#endif

/// What a configured executable path names once its links are followed (SEMANTICS M5, I13): the path
/// `/proc/PID/exe` of a process running it shows, since the kernel always names an executable resolved.
package enum ExecutableResolution: Hashable, Sendable {
    /// The path resolves, with realpath(3), to this regular file that someone may execute.
    case resolved(String)
    /// Nothing is at the path, nor at a link on the way: the program is not installed, or the path is wrong.
    case missing
    /// Something is there, but no process can run it: a dangling link, a loop of links, a directory, a file no one
    /// may execute, a directory locd may not search. The text says which, for a message.
    case unusable(String)

    /// Resolves `path` as realpath(3) does, and says what is at the end.
    /// - Parameter path: an absolute path as written in a manifest or `locd.toml`.
    package static func resolve(_ path: String) -> ExecutableResolution {
        guard let pointer = realpath(path, nil) else {
            return failure(of: path, errno: errno)
        }
        let resolved = String(cString: pointer)
        free(pointer)
        var status = stat()
        guard stat(resolved, &status) == 0 else {
            return .unusable("cannot be examined (\(describe(errno)))")
        }
        let linked = resolved == path ? "" : " (a link to \(resolved))"
        guard status.st_mode & S_IFMT == S_IFREG else {
            let what = status.st_mode & S_IFMT == S_IFDIR ? "a directory" : "not a regular file"
            return .unusable("is \(what)\(linked)")
        }
        guard status.st_mode & 0o111 != 0 else {
            return .unusable("is a file that no one may execute\(linked)")
        }
        return .resolved(resolved)
    }

    /// Why realpath(3) failed: a path with nothing at its end, or at the end of a link on its way, is missing; a
    /// link whose target is missing is dangling.
    private static func failure(of path: String, errno error: Int32) -> ExecutableResolution {
        switch error {
        case ENOENT:
            if let link = danglingLink(on: path) {
                let target = readLink(link).map { " to \($0)" } ?? ""
                let place = link == path ? "is" : "goes through"
                return .unusable(
                    "\(place) a dangling link\(link == path ? "" : " \(link)")\(target), which names nothing"
                )
            }
            return .missing
        case ELOOP:
            return .unusable("is a loop of links, which names nothing")
        case ENOTDIR:
            return .unusable("has a part that is not a directory")
        case EACCES:
            return .unusable("has a directory that locd may not search")
        default:
            return .unusable("cannot be resolved (\(describe(error)))")
        }
    }

    /// The first link on the way to `path` (or `path` itself) whose target does not exist, if any.
    private static func danglingLink(on path: String) -> String? {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            var status = stat()
            guard lstat(prefix, &status) == 0 else { return nil }
            if status.st_mode & S_IFMT == S_IFLNK && stat(prefix, &status) != 0 && errno == ENOENT {
                return prefix
            }
        }
        return nil
    }

    private static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func describe(_ error: Int32) -> String {
        String(cString: strerror(error))
    }
}
