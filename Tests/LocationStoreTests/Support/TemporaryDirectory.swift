import Foundation

/// A fresh, empty directory under the system's temporary directory, removed with everything in it.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "locd-store-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Runs `body` with a fresh directory and removes it afterwards, whether `body` threw or not.
    static func with<T>(_ body: (String) throws -> T) throws -> T {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        return try body(directory.path)
    }
}
