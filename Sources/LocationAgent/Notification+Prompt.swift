import DisplayText
import Foundation

/// The words of a prompt's notification (SEMANTICS N2, N4): the seeds' iOS dialog, with the app's name and icon.
extension Notification {
    /// The key of the action that flips precise location; no wire answer is named so.
    static let accuracyToggleKey = "toggleAccuracy"

    /// The buttons' labels, by wire answer, in the order an iOS dialog shows them.
    static let optionLabels: KeyValuePairs<String, String> = [
        "allowOnce": "Allow Once",
        "allowWhileUsing": "Allow While Using App",
        "allowAlways": "Always Allow",
        "allow": "Allow",
        "keepWhileUsing": "Keep Only While Using",
        "changeToAlways": "Change to Always Allow",
        "keepAlways": "Keep Always Allow",
        "changeToWhileUsing": "Change to While Using",
        "deny": "Don't Allow",
    ]

    /// What to run where the notification cannot ask (N4).
    static let terminalAdvice = "run “locctl agent” in a terminal"

    /// The notification of `prompt`.
    /// - Parameters:
    ///   - precise: the accuracy shown, for a prompt with the toggle.
    ///   - canAsk: whether the server shows actions; without, the body says how to answer instead (N4).
    ///   - markup: whether the server reads the body as markup, so the app's words are escaped.
    init(prompt: Prompt, app: AppLook, precise: Bool, replaces: UInt32 = 0, canAsk: Bool, markup: Bool) {
        // I16: the app's own words, shown and not obeyed.
        var body = prompt.usageDescription.escapedForDisplay
        if !canAsk {
            body += (body.isEmpty ? "" : "\n\n") + "To answer, \(Self.terminalAdvice)."
        }
        self.init(
            replacesID: replaces,
            appIcon: app.icon ?? "",
            summary: Self.summary(kind: prompt.kind, name: app.name),
            body: markup ? Self.escaped(body) : body,
            desktopEntry: app.desktopEntry,
            imagePath: app.icon
        )
        guard canAsk else { return }
        actions = Self.optionLabels.filter { prompt.options.contains($0.key) }.map {
            Action(key: $0.key, label: $0.value)
        }
        actions += prompt.options.filter { option in !Self.optionLabels.contains { $0.key == option } }
            .map { Action(key: $0, label: $0) }
        if prompt.accuracyToggle {
            actions.append(Action(key: Self.accuracyToggleKey, label: precise ? "Precise: On" : "Precise: Off"))
        }
    }

    /// The one notice of a server that cannot ask (N4).
    static func cannotAsk(markup: Bool) -> Notification {
        let body =
            "This desktop's notifications show no buttons, so apps' location prompts cannot be answered here. "
            + "To answer them, \(terminalAdvice)."
        return Notification(
            summary: "Location prompts need a terminal",
            body: markup ? escaped(body) : body,
            imagePath: nil
        )
    }

    /// The summary in the seeds' words for a prompt of `kind` of the app called `name`.
    static func summary(kind: String, name: String) -> String {
        switch kind {
        case "authorization": "Allow “\(name)” to use your location?"
        case "alwaysUpgrade": "Allow “\(name)” to also use your location even when you are not using the app?"
        case "temporaryFullAccuracy": "“\(name)” would like to use your precise location"
        case "alwaysReconfirm":
            "“\(name)” has been using your location in the background. Do you want to continue to allow this?"
        default: "“\(name)” asks about your location"
        }
    }

    /// `text` with the characters of the notification markup escaped, so that an app's words are shown as they are.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
