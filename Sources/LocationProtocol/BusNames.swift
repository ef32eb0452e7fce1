/// The D-Bus names locd's own programs own or serve on the person's session bus (SEMANTICS §16).
package enum BusName {
    /// locd-agent's well-known name (N1), also its tray item's id.
    package static let agent = "io.locd.Agent"
    /// The name locd-agent owns while KWin's script reports the window in front to it (L15).
    package static let agentDesktop = "io.locd.Agent.Desktop"
    /// The interface a desktop's own reporter (KWin's script, GNOME Shell's extension) calls.
    package static let desktopSourceInterface = "io.locd.DesktopSource1"
}
