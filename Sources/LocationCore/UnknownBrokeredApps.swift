/// `unknown-brokered-apps`: what an app with no manifest gets when a broker says `Hello` for it (SEMANTICS I11).
package enum UnknownBrokeredApps: String, CaseIterable, Hashable, Codable, Sendable {
    /// It may ask: it gets a manifest with a when-in-use usage description (the broker's, else
    /// "(no description)"), so that its first request raises a prompt.
    case ask
    /// It is refused like an unknown app that connects itself (`AppUnknown`).
    case deny
}
