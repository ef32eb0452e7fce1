import Foundation
import LocationTestSupport
import Testing

@testable import LocationConfiguration
@testable import LocationCore

#if canImport(Glibc)
import Glibc
#endif

/// SEMANTICS M5 and I13: the executables of manifests and brokers are resolved with realpath(3) when loaded, and
/// a path that resolves nowhere is said with file, line and key.
@Suite("Executable paths")
struct ExecutablePathTests {
    /// `path` with every link followed, as /proc/PID/exe would name the program.
    private static func real(_ path: String) -> String {
        guard let pointer = realpath(path, nil) else { return path }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    private static let sleep = real("/usr/bin/sleep")

    private static func manifest(_ id: String, executables: [String]) -> String {
        let list = executables.map { "\"\($0)\"" }.joined(separator: ", ")
        return "id = \"\(id)\"\nidentity = \"executable\"\nexecutables = [\(list)]\n"
    }

    @Test("M5: a manifest naming a link is compared in resolved form: the link's target, as /proc/PID/exe names it")
    func manifestLinkResolved() throws {
        try TemporaryDirectory.with { directory in
            let link = directory.at("bin/maps")
            try FileManager.default.createDirectory(atPath: directory.at("bin"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/usr/bin/sleep")
            try directory.write("apps.d/com.ex.maps.toml", Self.manifest("com.ex.maps", executables: [link]))

            let result = ManifestLoader.load(directories: [directory.at("apps.d")])

            #expect(result.errors == [])
            #expect(result.warnings == [])
            let manifest = try #require(result.manifests.first)
            #expect(manifest.executables == [link])
            #expect(manifest.resolvedExecutables == [link: Self.sleep])
            #expect(manifest.comparedExecutables == [Self.sleep])
            #expect(manifest.comparedExecutablesDescription == "\(link) (resolved: \(Self.sleep))")
        }
    }

    @Test(
        "M5: a dangling link, a loop of links, a directory or a file no one may execute rejects its manifest with file, line and key; the others load"
    )
    func manifestPathThatNamesNothing() throws {
        try TemporaryDirectory.with { directory in
            let fileManager = FileManager.default
            try fileManager.createDirectory(atPath: directory.at("bin"), withIntermediateDirectories: true)
            try fileManager.createSymbolicLink(atPath: directory.at("bin/dangling"), withDestinationPath: "gone")
            try fileManager.createSymbolicLink(atPath: directory.at("bin/loop-a"), withDestinationPath: "loop-b")
            try fileManager.createSymbolicLink(atPath: directory.at("bin/loop-b"), withDestinationPath: "loop-a")
            try directory.write("bin/text", "not a program")
            let cases: [(path: String, says: String)] = [
                (directory.at("bin/dangling"), "is a dangling link to gone"),
                (directory.at("bin/loop-a"), "is a loop of links"),
                (directory.at("bin"), "is a directory"),
                (directory.at("bin/text"), "is a file that no one may execute"),
            ]
            for (index, bad) in cases.enumerated() {
                let id = "com.ex.bad\(index)"
                let text =
                    "id = \"\(id)\"\nidentity = \"executable\"\n\nexecutables = [\"/usr/bin/sleep\", \"\(bad.path)\"]\n"
                try directory.write("apps.d/\(id).toml", text)
            }
            try directory.write(
                "apps.d/com.ex.good.toml",
                Self.manifest("com.ex.good", executables: ["/usr/bin/sleep"])
            )

            let result = ManifestLoader.load(directories: [directory.at("apps.d")])

            #expect(result.manifests.map(\.appID) == ["com.ex.good"])
            #expect(result.errors.count == cases.count)
            for (index, bad) in cases.enumerated() {
                let prefix = directory.at("apps.d/com.ex.bad\(index).toml") + ":4: key executables: \"\(bad.path)\" "
                let error = result.errors.first { $0.file.hasSuffix("com.ex.bad\(index).toml") }?.description ?? ""
                #expect(error.hasPrefix(prefix + bad.says), "\(error)")
                #expect(error.contains("remove it from executables"), "\(error)")
            }
        }
    }

    @Test(
        "M5: a path that does not exist is one warning naming file, line and key; the manifest loads, the path matches nothing until a load finds it"
    )
    func manifestPathNotInstalled() throws {
        try TemporaryDirectory.with { directory in
            let missing = directory.at("bin/later")
            let other = directory.at("bin/never")
            let file = try directory.write(
                "apps.d/com.ex.later.toml",
                Self.manifest("com.ex.later", executables: [missing, "/usr/bin/sleep", other])
            )

            let before = ManifestLoader.load(directories: [directory.at("apps.d")])

            #expect(before.errors == [])
            #expect(
                before.warnings.map(\.description) == [
                    "\(file):3: key executables: \"\(missing)\", \"\(other)\" do not exist: not installed, or a wrong "
                        + "path; reload locd after installing (until then they match no process)"
                ]
            )
            let loaded = try #require(before.manifests.first)
            #expect(loaded.comparedExecutables == [Self.sleep])
            #expect(loaded.comparedExecutablesDescription.contains("\(missing) (did not exist when loaded)"))

            // Installed: the next load (a reload) resolves it.
            try FileManager.default.createDirectory(atPath: directory.at("bin"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: missing, withDestinationPath: "/usr/bin/sleep")
            let after = ManifestLoader.load(directories: [directory.at("apps.d")])
            #expect(after.errors == [])
            #expect(after.warnings.count == 1)
            #expect(after.warnings.first?.description.contains("\"\(other)\" does not exist") == true)
            #expect(after.manifests.first?.comparedExecutables == [Self.sleep, Self.sleep])
        }
    }

    @Test(
        "M5: executables are resolved only where they are read: uid and any identities, and a parse alone, resolve nothing"
    )
    func resolvedOnlyWhenUsed() throws {
        try TemporaryDirectory.with { directory in
            try directory.write(
                "apps.d/com.ex.uid.toml",
                "id = \"com.ex.uid\"\nidentity = \"uid\"\nusers = [\"0\"]\nexecutables = [\"/no/such/program\"]\n"
            )
            let result = ManifestLoader.load(directories: [directory.at("apps.d")])
            #expect(result.errors == [] && result.warnings == [])
            #expect(result.manifests.first?.resolvedExecutables == nil)
        }
        let parsed = ManifestParser.parse(
            bytes: Array(Self.manifest("com.ex.maps", executables: ["/no/such/program"]).utf8),
            file: "apps.d/com.ex.maps.toml"
        )
        #expect(parsed.warnings == [])
        #expect(parsed.manifest?.comparedExecutables == ["/no/such/program"])
    }

    @Test("I13: a broker's executable given as a link is resolved when locd.toml is loaded")
    func brokerLinkResolved() throws {
        try TemporaryDirectory.with { directory in
            let link = directory.at("locd-geoclue")
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/usr/bin/sleep")
            let main = try directory.write("locd.toml", "[[broker]]\nuser = \"b\"\nexecutable = \"\(link)\"\n")
            let configuration = try DaemonConfiguration.loadOwn(path: main)
            #expect(configuration.brokers == [Broker(user: "b", executable: link, resolvedExecutable: Self.sleep)])
            #expect(configuration.brokers.first?.comparedExecutable == Self.sleep)
            #expect(configuration.brokers.first?.executableDescription == "\(link) (resolved: \(Self.sleep))")
        }
    }

    @Test(
        "I13: a broker's executable that is missing, a dangling link or a loop of links is a configuration error naming file, line and key"
    )
    func brokerPathThatNamesNothing() throws {
        try TemporaryDirectory.with { directory in
            let fileManager = FileManager.default
            try fileManager.createSymbolicLink(
                atPath: directory.at("dangling"),
                withDestinationPath: "/no/such/program"
            )
            try fileManager.createSymbolicLink(atPath: directory.at("loop-a"), withDestinationPath: "loop-b")
            try fileManager.createSymbolicLink(atPath: directory.at("loop-b"), withDestinationPath: "loop-a")
            let cases: [(path: String, says: String)] = [
                (directory.at("missing"), "does not exist: install the broker"),
                (directory.at("dangling"), "is a dangling link to /no/such/program, which names nothing, so no broker"),
                (directory.at("loop-a"), "is a loop of links, which names nothing, so no broker"),
            ]
            for bad in cases {
                let main = try directory.write(
                    "locd.toml",
                    "[[broker]]\nuser = \"a\"\n[[broker]]\nuser = \"b\"\n\nexecutable = \"\(bad.path)\"\n"
                )
                let issue = #expect(throws: ConfigurationIssue.self) { try DaemonConfiguration.loadOwn(path: main) }
                let expected = "\(main):6: key broker[2].executable: \"\(bad.path)\" \(bad.says)"
                #expect(issue?.description.hasPrefix(expected) == true, "\(issue?.description ?? "")")
                #expect(issue?.description.contains("override it with broker = []") == true)
            }
        }
    }

    @Test(
        "I13: only the brokers in force once every file is read are resolved: broker = [] in a drop-in silences a broken one"
    )
    func overriddenBrokerNotResolved() throws {
        try TemporaryDirectory.with { directory in
            let main = try directory.write("locd.toml", "[[broker]]\nuser = \"b\"\nexecutable = \"/no/such/broker\"\n")
            #expect(throws: ConfigurationIssue.self) { try DaemonConfiguration.loadOwn(path: main) }
            try directory.write("locd.toml.d/90-none.toml", "broker = []\n")
            #expect(try DaemonConfiguration.loadOwn(path: main).brokers == [])
        }
    }
}
