import Foundation
import LocationTestSupport
import Testing

/// No program spells a Varlink method or error name by hand: every one is LocationProtocol's, so a name changes
/// in one place and a typo does not compile.
@Suite("Wire name literals")
struct WireNameLiteralTests {
    /// Where a name may still be written out, and why.
    static let allowed: [String] = [
        // The vocabulary itself.
        "Sources/LocationProtocol/"
    ]

    /// A string literal that starts with a method or error name of locd's interfaces or the standard one.
    static var literal: Regex<Substring> { #/"(?:io\.locd\.(?:App|Admin|NetworkLocation)|org\.varlink\.service)\./# }

    /// Each `file:line` under `root`'s Sources/ that holds such a literal, outside ``allowed``.
    static func literals(under root: String) throws -> [String] {
        let base = URL(fileURLWithPath: root).appendingPathComponent("Sources")
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else {
            return ["Sources/ could not be read"]
        }
        var found: [String] = []
        for case let url as URL in walker where ["swift", "c", "h", "sh"].contains(url.pathExtension) {
            let path = "Sources/" + url.path.dropFirst(base.path.count + 1)
            guard !allowed.contains(where: { path.hasPrefix($0) }) else { continue }
            found += literals(in: try String(contentsOf: url, encoding: .utf8), file: path)
        }
        return found.sorted()
    }

    static func literals(in text: String, file: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
            line.contains(literal) ? "\(file):\(index + 1): \(line.trimmingCharacters(in: .whitespaces))" : nil
        }
    }

    @Test("PROTOCOL: no source outside LocationProtocol spells a Varlink method or error name as a literal")
    func noLiterals() throws {
        let found = try Self.literals(under: Repository.root())
        #expect(
            found.isEmpty,
            "use LocationProtocol's AppMethod, AdminMethod, WireErrorName, …:\n\(found.joined(separator: "\n"))"
        )
    }

    @Test("PROTOCOL: the literal check finds a method, an error, a built name and a python call, and not prose")
    func checkFindsLiterals() {
        let sample = """
            link.call("io.locd.App.CreateSession")
            error.name == "org.varlink.service.PermissionDenied"
            throw .methodNotFound("io.locd.Admin.\\(name)")
            s.sendall(json.dumps({"method": "io.locd.NetworkLocation.Watch"}))
            "call io.locd.App.Hello(appId) on this connection first"
            InterfaceName.app == "io.locd.App"
            """
        #expect(Self.literals(in: sample, file: "x").count == 4)
    }
}
