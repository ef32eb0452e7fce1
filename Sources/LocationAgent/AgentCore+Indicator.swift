/// Which apps use location, shown (SEMANTICS N5): a tray item where the session has a tray, else one resident
/// notification.
extension AgentCore {
    /// `Admin.Watch` is open: what is used now is read once, and again after each event.
    mutating func watchOpened() -> [Action] {
        guard indicator.watch == .open else { return [] }
        return readStatus()
    }

    /// locd reported an event of the person's apps: whatever it was, `Status` tells what is used now. One read at a
    /// time; events during it make one more read, however many came.
    mutating func watchEvent() -> [Action] {
        guard indicator.watch == .open else { return [] }
        indicator.retrySeconds = Self.firstRetrySeconds
        return readStatus()
    }

    private mutating func readStatus() -> [Action] {
        if indicator.reading {
            indicator.readAgain = true
            return []
        }
        indicator.reading = true
        return [.readStatus]
    }

    /// `Status` answered: the apps using location now, shown as the tray item's look or the notification.
    mutating func statusRead(_ use: LocationUse) -> [Action] {
        guard indicator.watch == .open, indicator.reading else { return [] }
        indicator.reading = false
        var actions = show(use)
        if indicator.readAgain {
            indicator.readAgain = false
            actions += readStatus()
        }
        return actions
    }

    /// locd ended `Watch`, refused it or a `Status` call, or could not be reached. Nothing is known to use location
    /// until it is read again (locd's apps lose their sessions when it stops); `Watch` is opened again after a wait
    /// that doubles while this keeps happening, as the prompt stream is (N1).
    mutating func watchLost(_ reason: String) -> [Action] {
        guard indicator.watch == .open else { return [] }
        indicator.watch = .waitingToReopen
        indicator.reading = false
        indicator.readAgain = false
        var actions = show(.none)
        actions += [
            .log(
                .warning,
                "\(reason); watching which apps use location again in \(Self.format(indicator.retrySeconds)) s"
            ),
            .scheduleWatchRetry(seconds: indicator.retrySeconds),
        ]
        indicator.retrySeconds = min(indicator.retrySeconds * 2, Self.mostRetrySeconds)
        return actions
    }

    mutating func watchRetryDue() -> [Action] {
        guard indicator.watch == .waitingToReopen else { return [] }
        indicator.watch = .open
        return [.openWatch]
    }

    /// Whether someone owns `org.kde.StatusNotifierWatcher`, found at the start or by `NameOwnerChanged`: a tray that
    /// appears gets the item, and the notification closes; a tray that goes leaves the notification to show it.
    mutating func trayKnown(present: Bool) -> [Action] {
        indicator.tray = present ? .present : .absent
        var actions: [Action] = present ? [.registerTray] : []
        actions += showNotification()
        return actions
    }

    /// The person activated the tray item (a click): the settings open.
    mutating func trayActivated() -> [Action] {
        [.openSettings]
    }

    /// The server showed the resident notification as `id`.
    mutating func inUseNotificationShown(_ id: UInt32) -> [Action] {
        indicator.notification = id
        return []
    }

    /// `use` is what is used now: the tray item's look follows it, and so does the notification.
    private mutating func show(_ use: LocationUse) -> [Action] {
        if use != indicator.use {
            indicator.use = use
            indicator.dismissed = false
        }
        var actions: [Action] = []
        let look = Indicator.TrayLook(use)
        if look != indicator.trayLook {
            indicator.trayLook = look
            actions.append(.showTray(look))
        }
        return actions + showNotification()
    }

    /// The notification as it should be now: shown, replaced in place, or closed. There is none while a tray shows
    /// the item, while the tray is not known yet, without a notification server, or once the person closed it for
    /// this list.
    mutating func showNotification() -> [Action] {
        let wanted = indicator.tray == .absent && !indicator.use.isEmpty && !indicator.dismissed
        guard wanted, case .present(let canAsk, let markup) = server else {
            guard let id = indicator.notification else { return [] }
            indicator.notification = nil
            return [.closeNotification(id)]
        }
        if indicator.notification != nil && indicator.notificationShows == indicator.use { return [] }
        indicator.notificationShows = indicator.use
        let notification = Notification(
            use: indicator.use,
            replaces: indicator.notification ?? 0,
            canAsk: canAsk,
            markup: markup
        )
        return [.notifyInUse(notification)]
    }

    /// Whether `id` is the resident notification, and so none of a prompt's.
    func showsUse(_ id: UInt32) -> Bool {
        indicator.notification == id
    }

    /// The person chose `key` on the resident notification: Settings opens the settings.
    func inUseActionInvoked(_ key: String) -> [Action] {
        key == Notification.settingsKey ? [.openSettings] : []
    }

    /// The person closed the resident notification: it stays closed until the list changes.
    mutating func inUseNotificationClosed() -> [Action] {
        indicator.notification = nil
        indicator.dismissed = true
        return [.log(.info, "the notification of the apps using location was closed; shown again when they change")]
    }
}
