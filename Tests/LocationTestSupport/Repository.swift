import Foundation

/// The repository's root, found from this file's place in it, for tests of the shipped files, the scripts and
/// the documents.
package enum Repository {
    /// The folder holding `Package.swift`, above `file`.
    package static func root(from file: String = #filePath) -> String {
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
