import Foundation
import LocationProtocol
import LocationTestSupport
import Testing

/// docs/PROTOCOL.md against the IDL texts the daemon serves: every interface written there is the served text,
/// line for line, so the document cannot drift from `GetInterfaceDescription`.
@Suite struct ProtocolDocumentTests {
    /// The fenced blocks of PROTOCOL.md that declare an interface, by interface name.
    static func documentedInterfaces() throws -> [String: String] {
        let text = try String(contentsOfFile: Repository.root() + "/docs/PROTOCOL.md", encoding: .utf8)
        var blocks: [String: String] = [:]
        for (index, part) in text.components(separatedBy: "```").enumerated() where index % 2 == 1 {
            let body = part.hasPrefix("\n") ? String(part.dropFirst()) : part
            guard let line = body.split(separator: "\n").first(where: { $0.hasPrefix("interface ") }) else { continue }
            blocks[String(line.dropFirst("interface ".count))] = body
        }
        return blocks
    }

    @Test("PROTOCOL: io.locd.App, io.locd.Admin (U16's providers included) and io.locd.NetworkLocation as served")
    func interfacesMatch() throws {
        let documented = try Self.documentedInterfaces()
        let served = LocationInterfaces.all + [("io.locd.NetworkLocation", LocationInterfaces.networkLocation)]
        for (name, description) in served {
            let block = try #require(documented[name], "PROTOCOL.md has no block for \(name)")
            #expect(block.trimmingCharacters(in: .whitespacesAndNewlines) == description, "\(name) differs")
        }
        #expect(LocationInterfaces.admin.contains("  providers: []ProviderStatus,\n  lastFixFrom: ?string,\n"))
    }
}
