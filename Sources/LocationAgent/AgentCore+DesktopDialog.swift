/// A desktop that asks GeoClue clients itself (SEMANTICS N6): GNOME Shell is a GeoClue agent with dialogs of its own,
/// which locd-geoclue asks (G11), so a brokered authorization prompt shown here as well would ask the person twice.
extension AgentCore {
    /// Whether `prompt` is left to the desktop's own dialog now: an authorization prompt of an app a broker speaks
    /// for, while the session's shell shows GeoClue's dialogs. Every other prompt is the agent's to show.
    func leftToDesktop(_ prompt: Prompt) -> Bool {
        desktopAsks && Self.desktopWouldAsk(prompt)
    }

    /// Whether the desktop's dialog asks `prompt` while it runs: GeoClue's `AuthorizeApp` is its only question.
    private static func desktopWouldAsk(_ prompt: Prompt) -> Bool {
        prompt.brokered && prompt.kind == "authorization"
    }

    /// `org.gnome.Shell` has an owner on the session bus, or not any more (`NameHasOwner` at the start,
    /// `NameOwnerChanged` after): the prompts left to its dialog close here while it runs, and show here once it is
    /// gone, since nobody else would ask them.
    mutating func desktopDialogChanged(present: Bool) -> [Action] {
        guard present != desktopAsks else { return [] }
        desktopAsks = present
        var actions: [Action] = [
            .log(
                .info,
                present
                    ? "GNOME Shell runs in this session: its own dialog asks GeoClue clients' authorization prompts"
                    : "GNOME Shell left this session: GeoClue clients' authorization prompts are shown here"
            )
        ]
        guard case .present(let canAsk, let markup) = server else { return actions }
        for index in shown.indices where Self.desktopWouldAsk(shown[index].prompt) {
            if present {
                actions.append(leavingLog(shown[index].prompt))
                if let id = shown[index].notification { actions.append(.closeNotification(id)) }
                shown[index].notification = nil
            } else {
                actions += showPrompt(shown[index], canAsk: canAsk, markup: markup)
            }
        }
        return actions
    }

    /// The line that says why `prompt` shows no notification.
    func leavingLog(_ prompt: Prompt) -> Action {
        .log(.info, "prompt \(prompt.id) of \(prompt.appID) is left to GNOME Shell's dialog, which locd-geoclue asks")
    }
}
