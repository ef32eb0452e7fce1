import Foundation
import LocationCore

/// Reads every app manifest of the configured `apps-dirs` (SEMANTICS §2, M1).
package enum ManifestLoader {
    /// Manifests larger than this are refused rather than read: no app needs a megabyte of descriptions.
    static let maximumFileBytes = 1 << 20

    /// Loads every `*.toml` in `directories`; a later directory's file of the same name overrides an earlier one.
    ///
    /// A missing directory is skipped (the vendor or admin directory may not exist). A file that cannot be read,
    /// does not parse, lacks `id` or has a value of the wrong type is left out with an error; the others load.
    /// `executables` are resolved with realpath(3) (M5): one that names nothing a process can run is an error of its
    /// manifest, one that does not exist a warning.
    /// - Parameter directories: the `apps-dirs`, in order; relative paths are taken from the current directory.
    /// - Returns: the manifests sorted by app id, the errors and the warnings, each naming file, line and key.
    package static func load(
        directories: [String]
    ) -> (manifests: [Manifest], errors: [ConfigurationIssue], warnings: [ConfigurationIssue]) {
        var errors: [ConfigurationIssue] = []
        var winners: [String: String] = [:]  // file name → path of the last directory that has it
        for directory in directories {
            switch manifestFiles(in: directory) {
            case .success(let names):
                for name in names {
                    winners[name] = directory.hasSuffix("/") ? directory + name : directory + "/" + name
                }
            case .failure(let issue):
                errors.append(issue)
            }
        }

        var manifests: [Manifest] = []
        var warnings: [ConfigurationIssue] = []
        for path in winners.values.sorted() {
            let outcome: ManifestParser.Outcome
            switch contents(of: path) {
            case .success(let bytes):
                outcome = ManifestParser.parse(bytes: bytes, file: path, resolvingExecutables: true)
            case .failure(let issue): outcome = (nil, [issue], [])
            }
            manifests += outcome.manifest.map { [$0] } ?? []
            errors += outcome.errors
            warnings += outcome.warnings
        }
        return (manifests.sorted { $0.appID < $1.appID }, errors, warnings)
    }

    /// The names of the `*.toml` files in `directory`, skipping hidden ones (editor leftovers) and subdirectories.
    private static func manifestFiles(in directory: String) -> Result<[String], ConfigurationIssue> {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: directory, isDirectory: &isDirectory) else { return .success([]) }
        guard isDirectory.boolValue else {
            return .failure(ConfigurationIssue(file: directory, line: nil, key: nil, message: "not a directory"))
        }
        guard let names = try? fileManager.contentsOfDirectory(atPath: directory) else {
            return .failure(ConfigurationIssue(file: directory, line: nil, key: nil, message: "cannot list directory"))
        }
        return .success(
            names.filter { name in
                guard name.hasSuffix(".toml"), !name.hasPrefix(".") else { return false }
                var isSubdirectory: ObjCBool = false
                let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
                return fileManager.fileExists(atPath: path, isDirectory: &isSubdirectory) && !isSubdirectory.boolValue
            }
        )
    }

    private static func contents(of path: String) -> Result<[UInt8], ConfigurationIssue> {
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(ConfigurationIssue(file: path, line: nil, key: nil, message: "cannot read file"))
        }
        guard data.count <= maximumFileBytes else {
            let message = "larger than \(maximumFileBytes) bytes; a manifest is a few lines of TOML"
            return .failure(ConfigurationIssue(file: path, line: nil, key: nil, message: message))
        }
        return .success([UInt8](data))
    }
}
