// The desktop says what is in front (SEMANTICS L10–L13).

/// One window in front as a desktop source reports it (L10, L12).
package struct FrontWindow: Sendable, Hashable, Codable {
    /// The desktop's names for the window's app (a Wayland `app_id`, a `WM_CLASS` class, a GTK application id, a
    /// desktop id) and the id I12 derives from its process.
    package var names: [String]
    /// The window's process, where the desktop knows it.
    package var pid: Int32?
    /// That process's executable (`/proc/PID/exe`), compared with manifests' `executables`.
    package var executable: String?
    /// The processes that descend from the window's (a program run in a terminal window).
    package var descendants: [Int32]

    package init(names: [String], pid: Int32? = nil, executable: String? = nil, descendants: [Int32] = []) {
        self.names = names
        self.pid = pid
        self.executable = executable
        self.descendants = descendants
    }
}

/// A user's desktop source, as `Admin.Status` shows it (L13).
package struct DesktopView: Hashable, Codable, Sendable {
    package var desktop: String
    package var user: UInt32
    /// Whether its last report read the desktop: only then does it decide (L11).
    package var reading: Bool
    /// Why it cannot read the desktop, when it cannot.
    package var failure: String?
    package var locked: Bool
}

/// The latest report of a user's desktop source, and the connection it came on (L11).
struct DesktopReport {
    var client: ClientID
    var name: String
    var front: [FrontWindow]
    var locked: Bool
    var failure: String?

    func view(user: UInt32) -> DesktopView {
        DesktopView(desktop: name, user: user, reading: failure == nil, failure: failure, locked: locked)
    }
}

extension LocationCore {
    /// The most windows and names one report may carry: a desktop shows fewer in front.
    static let maxFrontWindows = 256
    static let maxWindowNames = 8
    static let maxDescendants = 4096

    /// `Admin.SetDesktop`: the caller's own user's desktop source, or an administrator's for the user it names (L11).
    mutating func setDesktop(
        _ call: CallID,
        name: String,
        front: [FrontWindow],
        locked: Bool,
        failure: String?,
        user: UInt32?
    ) {
        let scope = scope(of: call)
        if let refusal = scope.refusal(toName: user) { return fail(call, refusal) }
        guard let owner = user ?? scope.uid else {
            return fail(
                call,
                .invalidParameter(parameter: "user", reason: "name the user whose desktop this is")
            )
        }
        if let refusal = Self.refusal(of: name, front: front) { return fail(call, refusal) }
        let old = desktops[owner]
        if let old, old.client != call.client { clients[old.client]?.desktopOf = nil }
        desktops[owner] = DesktopReport(client: call.client, name: name, front: front, locked: locked, failure: failure)
        clients[call.client]?.desktopOf = owner
        if failure != nil, old?.failure == nil {
            returnToClaims(of: owner)
        } else {
            applyDesktop(of: owner)
        }
        reply(call, .empty)
    }

    /// Why a report is refused: a bound passed or an empty name.
    private static func refusal(of name: String, front: [FrontWindow]) -> LocationError? {
        if name.isEmpty || name.utf8.count > 64 {
            return .invalidParameter(parameter: "desktop", reason: "name the desktop in 1 to 64 bytes, as sway or x11")
        }
        if front.count > maxFrontWindows {
            return .invalidParameter(parameter: "front", reason: "at most \(maxFrontWindows) windows are in front")
        }
        if front.contains(where: { $0.names.count > maxWindowNames || $0.descendants.count > maxDescendants }) {
            return .invalidParameter(
                parameter: "front",
                reason: "a window has at most \(maxWindowNames) names and \(maxDescendants) descendants"
            )
        }
        return nil
    }

    /// The desktop source of a closed connection no longer decides: its user's apps take their own claims (L11).
    mutating func desktopClosed(_ client: ClientID, user: UInt32) {
        guard let report = desktops[user], report.client == client else { return }
        desktops[user] = nil
        if report.failure == nil { returnToClaims(of: user) }
    }

    /// Each running app of the user in the state its desktop gives it (L10, L11).
    mutating func applyDesktop(of user: UInt32) {
        for app in apps.ordered where apps[app].user == user && apps[app].isRunning { followDesktop(app) }
    }

    /// Moves a running app to the state its user's desktop gives it, if a desktop decides (L11).
    mutating func followDesktop(_ app: Int) {
        guard apps[app].isRunning, let state = desktopState(app) else { return }
        move(app, to: state)
    }

    /// Each running app of the user in the state it last claimed, no desktop deciding any more (L11).
    private mutating func returnToClaims(of user: UInt32) {
        for app in apps.ordered where apps[app].user == user {
            apps[app].overruledBy = nil
            guard apps[app].isRunning else { continue }
            move(app, to: apps[app].claim ?? .foreground)
        }
    }

    /// The desktop source that decides the app's state, if one does (L11).
    func decidingDesktop(_ app: AppRuntime) -> DesktopReport? {
        guard let user = app.user, let report = desktops[user], report.failure == nil else { return nil }
        return report
    }

    /// The state the app's desktop gives it, `nil` where no desktop decides (L10, L11): `foreground` while a window
    /// in front shows it and it does not claim `background`.
    func desktopState(_ app: Int) -> RunningState? {
        guard let report = decidingDesktop(apps[app]) else { return nil }
        let front =
            !report.locked && apps[app].claim != .background && report.front.contains { shows($0, app: app) }
        return front ? .foreground : .background
    }

    /// L12: whether a window in front is one of the app's.
    private func shows(_ window: FrontWindow, app: Int) -> Bool {
        let runtime = apps[app]
        if window.names.contains(runtime.appID) { return true }
        if let executable = window.executable, let manifest = runtime.manifest,
            manifest.comparedExecutables.contains(executable)
        {
            return true
        }
        for client in runtime.clients {
            guard let pid = clients[client]?.pid, pid > 0 else { continue }
            if pid == window.pid || window.descendants.contains(pid) { return true }
        }
        return false
    }

    /// The app's own `SetAppState` (L1): its claim, which moves it where no desktop decides, and where one does only
    /// to the background (L11).
    mutating func claim(_ app: Int, _ state: RunningState) {
        apps[app].claim = state
        guard let decided = desktopState(app), let report = decidingDesktop(apps[app]) else {
            return move(app, to: state)
        }
        if state == .foreground && decided == .background && apps[app].overruledBy != report.name {
            apps[app].overruledBy = report.name
            messages.append(.overruled(apps[app].key, desktop: report.name))
        }
        move(app, to: decided)
    }

    /// What `Admin.Status` shows of desktop sources: the caller's own user's, or an administrator's every one (L13).
    func desktopViews(_ scope: CallerScope) -> [DesktopView] {
        desktops.keys.sorted().compactMap { user in
            scope.administrator || scope.uid == user ? desktops[user]?.view(user: user) : nil
        }
    }

    /// Which source decided a running app's state: its desktop's name, or `app` (L13); `nil` when not running.
    func stateSource(_ app: AppRuntime) -> String? {
        guard app.isRunning else { return nil }
        return decidingDesktop(app)?.name ?? "app"
    }
}
