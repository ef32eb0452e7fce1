import Foundation
import LocationTestSupport
import Testing

/// The rule ids that code and tests cite name rules `docs/SEMANTICS.md` defines: a test titled by a rule
/// that does not exist, or a comment pointing at a renumbered one, fails here.
@Suite("Rule citations")
struct RuleCitationTests {
    static let root = Repository.root()

    @Test("SEMANTICS: every rule id cited in Sources/ and Tests/ is defined in docs/SEMANTICS.md")
    func everyCitedRuleIsDefined() throws {
        let document = try String(contentsOfFile: Self.root + "/docs/SEMANTICS.md", encoding: .utf8)
        let defined = try RuleCitations.definitions(in: document)
        let cited = try RuleCitations.citations(under: ["Sources", "Tests"], of: Self.root)
        // Neither side may be empty by accident (a moved document, a walk that read nothing).
        #expect(defined.count > 90, "SEMANTICS.md defines only \(defined.sorted())")
        #expect(Set(cited.map(\.file)).count > 50, "the walk of Sources/ and Tests/ read too few files")
        let undefined = cited.filter { !defined.contains($0.id) }
        #expect(
            undefined.isEmpty,
            "cited but not defined in docs/SEMANTICS.md:\n\(undefined.map(\.description).joined(separator: "\n"))"
        )
    }

    @Test("SEMANTICS: a citation is found in each shape the code writes one, and a Unicode escape is not one")
    func citationShapes() throws {
        let text = """
            @Test("R1, R2: a restart keeps records")
            /// SEMANTICS L3: lingering
            // the rule (I4) and §10
            let name = "caf\\u{E9}", hex = 0xA1, word = "UTF8 X509 P256k"
            """
        let found = try RuleCitations.citations(in: text, file: "sample.swift")
        #expect(found.map(\.id) == ["R1", "R2", "L3", "I4"])
        #expect(found.map(\.line) == [1, 1, 2, 3])
    }

    @Test("SEMANTICS: definitions are the bulleted ids, not ids mentioned in a rule's text")
    func definitionShape() throws {
        let document = """
            - **App**: a program
            - **L3** A client that closes leaves its sessions lingering (see L4).
              - **L8** indented: not a definition
            - **S11** An opted-out app
            """
        #expect(try RuleCitations.definitions(in: document) == ["L3", "S11"])
    }
}
