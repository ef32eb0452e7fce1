import Foundation

/// A `/proc` tree of one's own in a temporary directory: a process's files are written as a test needs them.
final class FakeProc {
    let root: String

    init() throws {
        root = NSTemporaryDirectory() + "fake-proc-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Writes `text` at `PID/relative`, making the directories on the way.
    func write(_ pid: Int32, _ relative: String, _ text: String) throws {
        let path = "\(root)/\(pid)/\(relative)"
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true
        )
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    /// Makes `PID/relative` a symbolic link to `target`.
    func link(_ pid: Int32, _ relative: String, to target: String) throws {
        let path = "\(root)/\(pid)/\(relative)"
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true
        )
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
    }

    /// A cgroup file of the unified hierarchy whose path ends in `unit`.
    func cgroup(_ pid: Int32, unit: String) throws {
        try write(pid, "cgroup", "0::/user.slice/user-1000.slice/user@1000.service/app.slice/\(unit)\n")
    }
}
