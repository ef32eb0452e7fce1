import Foundation

/// The rule ids of `docs/SEMANTICS.md` and the places that cite them, read as text.
///
/// A rule is defined by a bullet `- **ID** text`; an id is a capital letter and a number (`L3`, `S11`).
/// A citation is such an id standing as a word of its own anywhere in a source: `@Test("R1: …")`,
/// "SEMANTICS L3", "(I4)". Unicode escapes such as `\u{E9}` are not citations.
enum RuleCitations {
    /// One id cited at a place.
    struct Citation: Equatable, CustomStringConvertible {
        var id: String
        var file: String
        var line: Int

        var description: String { "\(file):\(line) cites \(id)" }
    }

    /// The file endings of sources and scripts that may cite a rule; data and golden files are left out.
    static let sourceEndings: Set<String> = ["swift", "py", "sh", "c", "h"]

    /// The ids the document defines.
    static func definitions(in document: String) throws -> Set<String> {
        let bullet = try Regex(#"^- \*\*([A-Z][0-9]{1,3})\*\*"#).anchorsMatchLineEndings()
        return Set(document.matches(of: bullet).compactMap { $0.output[1].substring.map(String.init) })
    }

    /// The ids `text` cites, with their line numbers, in order.
    static func citations(in text: String, file: String) throws -> [Citation] {
        let escape = try Regex(#"\\u\{[0-9A-Fa-f]+\}"#)
        // What stands before the id is matched, not looked behind at (Swift's Regex has no lookbehind).
        let id = try Regex(#"(?:^|[^\w{])([A-Z][0-9]{1,2})(?![\w}])"#)
        var found: [Citation] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let plain = line.replacing(escape, with: "")
            for match in plain.matches(of: id) {
                // X11, the window system, is a name: SEMANTICS has no rules of a section X.
                guard let cited = match.output[1].substring, cited != "X11" else { continue }
                found.append(Citation(id: String(cited), file: file, line: index + 1))
            }
        }
        return found
    }

    /// Every citation in the sources under `folders` of the repository at `root`.
    static func citations(under folders: [String], of root: String) throws -> [Citation] {
        var found: [Citation] = []
        for folder in folders {
            let base = URL(fileURLWithPath: root).appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else {
                continue
            }
            for case let url as URL in walker where sourceEndings.contains(url.pathExtension) {
                let text = try String(contentsOf: url, encoding: .utf8)
                found += try citations(in: text, file: folder + "/" + relativePath(of: url, in: base))
            }
        }
        return found
    }

    private static func relativePath(of url: URL, in base: URL) -> String {
        String(url.standardizedFileURL.path.dropFirst(base.standardizedFileURL.path.count + 1))
    }
}
