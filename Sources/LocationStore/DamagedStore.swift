/// What start-up found damaged in the store, and where it put the damaged files before starting a new store
/// (R9).
package struct DamagedStore: Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, naming the file.
    package var reason: String
    /// The damaged files' new paths.
    package var setAside: [String]

    package var description: String {
        let kept = setAside.isEmpty ? "nothing to keep" : "kept as " + setAside.joined(separator: ", ")
        return "the store was damaged: \(reason); set aside and started afresh (\(kept); salvage with "
            + "`sqlite3 FILE .recover`)"
    }
}
