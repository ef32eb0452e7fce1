import Foundation
import LocationTestSupport
import Testing

/// The man pages of `man/`, which `make install` installs and the units' `Documentation=` names.
@Suite("Man pages")
struct ManPageTests {
    static let root = Repository.root()
    static let pages = [
        "locd.8", "locctl.1", "locd.toml.5", "locd-apps.d.5", "locd-geoclue.8", "locd-network.8", "locd-agent.1",
    ]

    @Test("man: man/ holds the seven pages, and systemd/install.mk installs each of them")
    func pagesInstalled() throws {
        let present = try FileManager.default.contentsOfDirectory(atPath: Self.root + "/man").sorted()
        #expect(present == Self.pages.sorted())
        let install = try String(contentsOfFile: Self.root + "/systemd/install.mk", encoding: .utf8)
        let listed = install.split(separator: "\n").first { $0.hasPrefix("LOCD_MAN_PAGES =") }
        let names = listed.map { $0.dropFirst("LOCD_MAN_PAGES =".count).split(separator: " ").map(String.init) }
        #expect(names?.sorted() == Self.pages.sorted())
    }

    @Test("man: each page renders with no warning from groff -ww, nor from man --warnings", arguments: pages)
    func rendersWithoutWarnings(page: String) throws {
        let path = Self.root + "/man/" + page
        let groff = try Self.run("/usr/bin/groff", ["-ww", "-z", "-man", "-Tutf8", path])
        #expect(groff.status == 0 && groff.errors.isEmpty, "groff -ww on \(page):\n\(groff.errors)")
        let man = try Self.run("/usr/bin/man", ["--warnings", "-E", "UTF-8", "-l", path])
        #expect(man.status == 0 && man.errors.isEmpty, "man --warnings on \(page):\n\(man.errors)")
        #expect(man.output.contains("NAME"), "man printed no page for \(page)")
    }

    @Test("man: every locd page a unit's Documentation= or a page's SEE ALSO names is one of man/")
    func referencesResolve() throws {
        let units = try FileManager.default.contentsOfDirectory(atPath: Self.root + "/systemd")
            .filter { $0.hasSuffix(".service") || $0.hasSuffix(".socket") }
        var named: [(page: String, in: String)] = []
        for unit in units {
            let text = try String(contentsOfFile: Self.root + "/systemd/" + unit, encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("Documentation=") {
                for uri in line.dropFirst("Documentation=".count).split(separator: " ") {
                    #expect(uri.hasPrefix("man:"), "\(unit) documents itself by \(uri), not an installed man page")
                    // man:locd.toml(5) is the page locd.toml.5.
                    let reference = uri.dropFirst("man:".count).replacingOccurrences(of: "(", with: ".")
                    named.append((reference.replacingOccurrences(of: ")", with: ""), unit))
                }
            }
        }
        for page in Self.pages {
            let text = try String(contentsOfFile: Self.root + "/man/" + page, encoding: .utf8)
            // `.BR locd\-apps.d (5),` in SEE ALSO and in the text.
            for line in text.split(separator: "\n") where line.hasPrefix(".BR locd") || line.hasPrefix(".BR locctl") {
                let words = line.split(separator: " ")
                guard words.count >= 3, words[2].hasPrefix("(") else { continue }
                let name = words[1].replacingOccurrences(of: "\\-", with: "-")
                named.append((name + "." + words[2].dropFirst().prefix(1), page))
            }
        }
        #expect(named.count > 20, "too few references read: \(named)")
        for reference in named where reference.page.hasPrefix("locd") || reference.page.hasPrefix("locctl") {
            #expect(Self.pages.contains(reference.page), "\(reference.in) names \(reference.page), which man/ lacks")
        }
    }

    private static func run(
        _ tool: String,
        _ arguments: [String]
    ) throws -> (status: Int32, output: String, errors: String) {
        try #require(
            FileManager.default.isExecutableFile(atPath: tool),
            "\(tool) is missing: ./.ci/install-deps --tests installs groff-base and man-db"
        )
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C.UTF-8"
        environment["MANWIDTH"] = "80"
        environment.removeValue(forKey: "MANPAGER")
        environment.removeValue(forKey: "PAGER")
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // The pages are a few kilobytes: stderr cannot fill its pipe while stdout is read to its end.
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.waitForExit().status, printed, said)
    }
}
