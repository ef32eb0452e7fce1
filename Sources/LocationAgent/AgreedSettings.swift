/// The grants and the switch locd and the desktop last agreed on (SEMANTICS N10), kept across sessions: one line per
/// app, `APPID GRANT`, `@switch on|off` (`@` begins no app id), and `@precise APPID` for each app N14 made
/// approximate. A line that cannot be read is skipped: it only makes that app compared as
/// one never agreed on.
struct AgreedSettings: Equatable, Sendable {
    var apps: [String: DesktopGrant] = [:]
    var switchOn: Bool?
    /// The apps GNOME's `max-accuracy-level` below exact made approximate, precise again when it goes (N14).
    var heldPrecise: Set<String> = []

    init() {}

    init(text: String) {
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 2 else { continue }
            let name = String(fields[0])
            let value = String(fields[1])
            if name == "@precise", SettingsSyncCore.isSynced(value) {
                heldPrecise.insert(value)
            } else if name == "@switch" {
                switchOn = value == "on" ? true : value == "off" ? false : nil
            } else if let grant = DesktopGrant(rawValue: value), SettingsSyncCore.isSynced(name) {
                apps[name] = grant
            }
        }
    }

    var text: String {
        var lines = apps.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.rawValue)" }
        if let switchOn { lines.append("@switch \(switchOn ? "on" : "off")") }
        lines += heldPrecise.sorted().map { "@precise \($0)" }
        return lines.map { $0 + "\n" }.joined()
    }
}
