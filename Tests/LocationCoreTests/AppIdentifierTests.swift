import AppIdentifiers
import Testing

@testable import LocationCore

/// SEMANTICS I15: the grammar of an app id, on its own.
@Suite("App id grammar")
struct AppIdentifierRuleTests {
    @Test(
        "I15: desktop file ids, reverse-DNS and Flatpak ids, snap instances and plain names are app ids, up to 255 bytes",
        arguments: [
            "gammastep", "gnome-datetime-panel", "geoclue-where-am-i", "org.gnome.Maps", "org.mozilla.firefox",
            "io.elementary.desktop.agent-geoclue2", "sm.puri.Phosh", "lipstick", "firefox_esr", "_private", "7zip",
            String(repeating: "a", count: 255),
        ]
    )
    func accepted(id: String) {
        #expect(AppIdentifier.isValid(id))
    }

    @Test(
        """
        I15: empty, over 255 bytes, a leading dot or dash, a slash, a space, a control or bidi character and \
        any non-ASCII letter are not app ids
        """,
        arguments: [
            "", String(repeating: "a", count: 256), ".hidden", "-flag", "..", "a/b", "../etc", "org gnome",
            "a\u{1B}[2J",
            "a\nb", "a\u{0}", "a\u{7F}", "a\u{9B}", "a\u{202E}b", "a\u{2066}", "caf\u{E9}",
            "org.gnome.Maps.desktop\u{200F}",
            "a:b", "a@b", "a\\b",
        ]
    )
    func refused(id: String) {
        #expect(!AppIdentifier.isValid(id))
    }
}
