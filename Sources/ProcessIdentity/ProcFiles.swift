#if canImport(Glibc)
import Glibc
#endif

/// Small, bounded reads of `/proc` files: a link's target and a file's text, refusing what is not a regular
/// file or is longer than a limit, so that a hostile tree (a process's own root) cannot make the reader block
/// on a FIFO or read without end.
enum ProcFiles {
    /// The target of the symbolic link at `path`.
    static func link(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4097)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0, count < buffer.count - 1 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The text of the file `name` in the directory `directory`, opened without following a link at `name`;
    /// `nil` unless it is a regular file (or a `/proc` file, which reports size 0) of at most `limit` bytes.
    static func text(directory: String, name: String, limit: Int) -> String? {
        bytes(directory: directory, name: name, limit: limit).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// The bytes of the file `name` in the directory `directory`, read as ``text(directory:name:limit:)`` reads
    /// them, for files whose text need not be UTF-8 (a process's name in `/proc/PID/stat` is any bytes).
    static func bytes(directory: String, name: String, limit: Int) -> [UInt8]? {
        let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return nil }
        defer { close(folder) }
        let file = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            guard bytes.count <= limit else { return nil }
        }
        return bytes
    }

    /// The text of the file at `path` (its directory, then its name, as ``text(directory:name:limit:)``).
    static func text(_ path: String, limit: Int) -> String? {
        guard let slash = path.lastIndex(of: "/") else { return nil }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        return text(directory: directory, name: String(path[path.index(after: slash)...]), limit: limit)
    }
}
