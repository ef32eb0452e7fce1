import Foundation

/// A fresh directory under `NSTemporaryDirectory()` for one test, removed when the test's body returns.
struct TemporaryDirectory {
    let path: String

    /// Runs `body` with a new directory and removes it afterwards, whatever happens.
    static func with<Result>(_ body: (TemporaryDirectory) throws -> Result) throws -> Result {
        let path = NSTemporaryDirectory() + "locd-config-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(TemporaryDirectory(path: path))
    }

    /// Writes `text` to `relativePath` (creating directories on the way) and returns the file's full path.
    @discardableResult
    func write(_ relativePath: String, _ text: String) throws -> String {
        let file = path + "/" + relativePath
        let directory = (file as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// The full path of `relativePath` inside this directory.
    func at(_ relativePath: String) -> String {
        path + "/" + relativePath
    }
}

/// The repository's root, found from this file's place in it, for tests of the shipped files.
enum Repository {
    static func root(from file: String = #filePath) -> String {
        var url = URL(fileURLWithPath: file)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url.path
            }
        }
        return FileManager.default.currentDirectoryPath
    }
}
