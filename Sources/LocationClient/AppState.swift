/// Whether the app is in the foreground or the background, as the daemon counts "in use" (SEMANTICS L1, L2).
public enum AppState: String, Sendable, Hashable, CaseIterable {
    case foreground
    case background
}
