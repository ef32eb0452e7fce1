import Foundation

/// A fresh, empty directory under the system's temporary directory for one test, removed with everything in it.
package struct TemporaryDirectory: Sendable {
    package let path: String

    /// Makes the directory, named `prefix` and a UUID; the caller removes it with ``remove()``.
    package init(prefix: String = "locd-tests") throws {
        path = NSTemporaryDirectory() + prefix + "-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Removes the directory and everything in it.
    package func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Runs `body` with a new directory and removes it afterwards, whether `body` threw or not.
    package static func with<Result>(
        prefix: String = "locd-tests",
        _ body: (TemporaryDirectory) throws -> Result
    ) throws -> Result {
        let directory = try TemporaryDirectory(prefix: prefix)
        defer { directory.remove() }
        return try body(directory)
    }

    /// Writes `text` to `relativePath` (creating directories on the way) and returns the file's full path.
    @discardableResult
    package func write(_ relativePath: String, _ text: String) throws -> String {
        let file = at(relativePath)
        let directory = (file as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// The full path of `relativePath` inside this directory.
    package func at(_ relativePath: String) -> String {
        path + "/" + relativePath
    }
}
