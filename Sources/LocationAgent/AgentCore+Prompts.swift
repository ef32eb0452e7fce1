import LocationProtocol

/// Prompts and their notifications (SEMANTICS N2, N3, N4).
extension AgentCore {
    /// locd sent `prompt`, of the app that looks like `app`: one notification (N2), or with a server that cannot ask
    /// one that says how to answer, and the terminal the first time if asked for (N4).
    mutating func promptReceived(_ prompt: Prompt, app: AppLook) -> [Action] {
        retrySeconds = Self.firstRetrySeconds
        guard stream == .open, case .present(let canAsk, let markup) = server,
            !shown.contains(where: { $0.prompt.id == prompt.id })
        else { return [] }
        let entry = Shown(prompt: prompt, app: app, precise: prompt.preciseByDefault, notification: nil)
        shown.append(entry)
        if leftToDesktop(prompt) { return [leavingLog(prompt)] }
        return showPrompt(entry, canAsk: canAsk, markup: markup)
    }

    /// The notification of `entry`, and the terminal the first time a server that cannot ask shows one if asked for
    /// (N4).
    mutating func showPrompt(_ entry: Shown, canAsk: Bool, markup: Bool) -> [Action] {
        let prompt = entry.prompt
        var actions: [Action] = [
            .notify(
                Notification(prompt: prompt, app: entry.app, precise: entry.precise, canAsk: canAsk, markup: markup),
                prompt: prompt.id
            )
        ]
        if !canAsk && opensTerminal && !terminalOpened {
            terminalOpened = true
            actions.append(.openTerminal)
        }
        return actions
    }

    /// locd withdrew the prompt (answered anywhere, dismissed, cancelled): its notification closes (N3).
    mutating func promptWithdrawn(_ id: String) -> [Action] {
        retrySeconds = Self.firstRetrySeconds
        guard let index = shown.firstIndex(where: { $0.prompt.id == id }) else { return [] }
        let notification = shown.remove(at: index).notification
        return notification.map { [.closeNotification($0)] } ?? []
    }

    /// The server showed the notification of `prompt` (`nil`: the notice) as `id`. A prompt withdrawn meanwhile, or
    /// left to the desktop's own dialog meanwhile (N6), closes it at once.
    mutating func notificationShown(_ id: UInt32, for prompt: String?) -> [Action] {
        guard let prompt else { return [] }
        guard let index = shown.firstIndex(where: { $0.prompt.id == prompt }), !leftToDesktop(shown[index].prompt)
        else { return [.closeNotification(id)] }
        shown[index].notification = id
        return []
    }

    /// The person chose `key` on notification `id`: the accuracy toggle shows the same notification again in place
    /// with the other label; an option is the answer, with the accuracy shown (N2, N3). The resident notification of
    /// the apps using location has its own action (N5).
    mutating func actionInvoked(_ key: String, on id: UInt32) -> [Action] {
        if showsUse(id) { return inUseActionInvoked(key) }
        guard let index = shown.firstIndex(where: { $0.notification == id }),
            case .present(let canAsk, let markup) = server
        else { return [] }
        let entry = shown[index]
        if key == Notification.accuracyToggleKey && entry.prompt.accuracyToggle {
            shown[index].precise.toggle()
            let again = Notification(
                prompt: entry.prompt,
                app: entry.app,
                precise: !entry.precise,
                replaces: id,
                canAsk: canAsk,
                markup: markup
            )
            return [.notify(again, prompt: entry.prompt.id)]
        }
        guard entry.prompt.options.contains(key) else { return [] }
        guard answering.count < Self.mostAnswersWaiting else {
            return [
                .log(
                    .warning,
                    "\(answering.count) answers wait for locd's replies: the answer to prompt \(entry.prompt.id) is "
                        + "not sent; choose it again once locd replies"
                )
            ]
        }
        let accuracy = entry.prompt.accuracyToggle ? (entry.precise ? "full" : "reduced") : nil
        answering.append(Answering(prompt: entry.prompt.id, answer: key, accuracy: accuracy))
        return [.answer(prompt: entry.prompt.id, answer: key, accuracy: accuracy)]
    }

    /// Notification `id` closed, by the person or the server: nothing is answered, the prompt stays pending in locd,
    /// where `locctl agent` can still answer it (N3). The resident notification closed stays closed until the apps
    /// using location change (N5).
    mutating func notificationClosed(_ id: UInt32) -> [Action] {
        if showsUse(id) { return inUseNotificationClosed() }
        guard let index = shown.firstIndex(where: { $0.notification == id }) else { return [] }
        shown[index].notification = nil
        return [.log(.info, "the notification of prompt \(shown[index].prompt.id) was closed unanswered")]
    }

    /// locd took the answer to `prompt`: its withdrawal, on the stream, closes the notification (N3).
    mutating func answerTaken(_ prompt: String) -> [Action] {
        guard let sent = answerReplied(prompt) else { return [] }
        return [.log(.info, "answered prompt \(prompt): \(sent.answer)\(sent.accuracy.map { " (\($0))" } ?? "")")]
    }

    /// locd refused an answer: a prompt gone meanwhile (`NoSuchPrompt`) is the person's too late, and nothing
    /// follows (N3); anything else is logged, and the notification stays to be chosen again.
    mutating func answerRefused(_ prompt: String, error: String) -> [Action] {
        _ = answerReplied(prompt)
        if error == WireErrorName.noSuchPrompt.name {
            return [.log(.info, "prompt \(prompt) was answered too late: it is gone")]
        }
        return [.log(.warning, "cannot answer prompt \(prompt): \(error)")]
    }

    /// The answer to `prompt` could not be sent (locd not there), or its connection broke before the reply: logged,
    /// and the notification stays to be chosen again (N3).
    mutating func answerFailed(_ prompt: String, reason: String) -> [Action] {
        _ = answerReplied(prompt)
        return [.log(.warning, "cannot answer prompt \(prompt): \(reason)")]
    }

    /// Forgets the first answer to `prompt` on its way, now that its reply came; that answer.
    private mutating func answerReplied(_ prompt: String) -> Answering? {
        guard let index = answering.firstIndex(where: { $0.prompt == prompt }) else { return nil }
        return answering.remove(at: index)
    }
}
