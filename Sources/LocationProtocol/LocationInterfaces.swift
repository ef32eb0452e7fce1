/// The Varlink interface texts of locd, exactly as PROTOCOL.md gives them; served verbatim by
/// `org.varlink.service.GetInterfaceDescription` and parsed by independent clients.
public enum LocationInterfaces {
    /// `io.locd.App`.
    public static let app = """
        # Location sessions for apps, mirroring Core Location's CLServiceSession.
        interface io.locd.App

        # An app's authorization record as Core Location reports it, and the Settings label.
        type Authorization (
          status: (notDetermined, restricted, denied, authorizedAlways, authorizedWhenInUse),
          accuracy: (fullAccuracy, reducedAccuracy),
          provisional: bool,
          oneTime: bool,
          temporaryFullAccuracy: bool,
          settingsLabel: (restricted, never, askNextTime, whileUsing, always)
        )

        # The flags that are set, in bit order (empty when nothing limits), and the same as a mask:
        # bit 0 authorizationDenied ... bit 13 authorizationRequestInProgress.
        type Diagnostic (
          flags: [](authorizationDenied, authorizationDeniedGlobally, authorizationRestricted,
                    stationary, insufficientlyInUse, locationUnavailable, accuracyLimited,
                    conditionUnsupported, conditionLimitExceeded, persistenceUnavailable,
                    alwaysAuthorizationDenied, fullAccuracyDenied, serviceSessionRequired,
                    authorizationRequestInProgress),
          mask: int
        )

        # A session. While lingering, deadline is CLOCK_BOOTTIME nanoseconds and remainingSeconds the
        # time left. user: the uid whose app it is (SEMANTICS H1).
        type Session (
          id: string,
          appId: string,
          kind: (explicit, implicit, backgroundActivity),
          authorization: (none, whenInUse, always),
          fullAccuracyPurposeKey: ?string,
          state: (active, limited, lingering, invalidated),
          diagnostic: Diagnostic,
          deadline: ?int,
          remainingSeconds: ?float,
          user: ?int
        )

        # A location fix; timestamp is Unix time in seconds.
        type Location (
          latitude: float,
          longitude: float,
          altitude: ?float,
          horizontalAccuracy: float,
          verticalAccuracy: ?float,
          speed: ?float,
          course: ?float,
          timestamp: float
        )

        type Update (
          location: ?Location,
          diagnostic: Diagnostic
        )

        type CircularCondition (
          latitude: float,
          longitude: float,
          radius: float
        )

        type MonitorEvent (
          monitor: string,
          identifier: string,
          state: (unknown, satisfied, unsatisfied),
          date: float,
          diagnostic: Diagnostic
        )

        # Binds this connection to an app; must precede every other io.locd.App call.
        # process: a broker (locd.toml [[broker]]) speaks for this pid, whose pidfd it passes with
        # this call's bytes (SCM_RIGHTS); description: that app's usage description, read only
        # for an app with no manifest.
        method Hello(
          appId: string,
          state: ?(foreground, background),
          process: ?int,
          description: ?string
        ) -> (
          authorization: Authorization,
          lingeringSessions: []Session
        )

        # Ends this client cleanly: its sessions end now, with no relaunch window.
        method Goodbye() -> ()

        method SetAppState(state: (foreground, background)) -> ()

        method GetAuthorization() -> (authorization: Authorization)

        # Current authorization first, then every change (locationManagerDidChangeAuthorization).
        method WatchAuthorization() -> (authorization: Authorization)

        # Legacy requestWhenInUseAuthorization / requestAlwaysAuthorization; replies at once.
        method RequestAuthorization(level: (whenInUse, always)) -> (authorization: Authorization)

        # Legacy requestTemporaryFullAccuracyAuthorization(withPurposeKey:); replies at once.
        method RequestTemporaryFullAccuracy(purposeKey: string) -> (authorization: Authorization)

        # Replies once the session is stored. Called with more, it first replies (continues) as soon
        # as the session is decided, before it is stored; only the final reply acknowledges it.
        method CreateSession(authorization: (none, whenInUse, always), fullAccuracyPurposeKey: ?string) -> (
          session: Session
        )

        # Takes over a lingering session of the same app; with more, as CreateSession.
        method ResumeSession(id: string) -> (session: Session)

        method InvalidateSession(id: string) -> ()

        method ListSessions() -> (sessions: []Session)

        # Current diagnostic first, then each change; the final reply has ended = true.
        method SessionDiagnostics(id: string) -> (diagnostic: Diagnostic, ended: bool)

        method BeginBackgroundActivity() -> (session: Session)

        # accuracy reduced: approximate locations (the grid cell) even with a precise grant, as
        # kCLLocationAccuracyReduced; such updates do not set accuracyLimited. session: one of the
        # app's sessions; when it ends, the stream ends with a final reply and the connection is free
        # for the next call.
        method LiveUpdates(
          configuration: ?(default, automotiveNavigation, otherNavigation, fitness, airborne),
          accuracy: ?(full, reduced),
          session: ?string
        ) -> (update: Update)

        method AddCondition(monitor: string, identifier: string, condition: CircularCondition) -> ()

        method RemoveCondition(monitor: string, identifier: string) -> ()

        method MonitorEvents(monitor: string) -> (event: MonitorEvent)

        error HelloRequired ()
        error AppUnknown (appId: string)
        error NoSuchSession (id: string)
        error SessionInvalidated (id: string)
        error UsageDescriptionMissing (key: string)
        error UnknownPurposeKey (purposeKey: string)
        error LimitExceeded (limit: string, maximum: int)
        error BackgroundActivityUnavailable (reason: string)
        """

    /// `io.locd.Admin`.
    public static let admin = """
        # Administration, prompts and observation of locd.
        interface io.locd.Admin

        type Authorization (
          status: (notDetermined, restricted, denied, authorizedAlways, authorizedWhenInUse),
          accuracy: (fullAccuracy, reducedAccuracy),
          provisional: bool,
          oneTime: bool,
          temporaryFullAccuracy: bool,
          settingsLabel: (restricted, never, askNextTime, whileUsing, always)
        )

        type Diagnostic (
          flags: [](authorizationDenied, authorizationDeniedGlobally, authorizationRestricted,
                    stationary, insufficientlyInUse, locationUnavailable, accuracyLimited,
                    conditionUnsupported, conditionLimitExceeded, persistenceUnavailable,
                    alwaysAuthorizationDenied, fullAccuracyDenied, serviceSessionRequired,
                    authorizationRequestInProgress),
          mask: int
        )

        type Session (
          id: string,
          appId: string,
          kind: (explicit, implicit, backgroundActivity),
          authorization: (none, whenInUse, always),
          fullAccuracyPurposeKey: ?string,
          state: (active, limited, lingering, invalidated),
          diagnostic: Diagnostic,
          deadline: ?int,
          remainingSeconds: ?float,
          user: ?int
        )

        # manifest: the manifest's file, a stand-in's "(allow-unknown-apps)" or "(unknown-brokered-apps)",
        # or "(none)" for an app kept for what it holds with no manifest at all. owner: the uid whose Hello
        # made an app with no manifest of its own; ownerUnknown: true for such an app whose maker is not
        # known (stored before owners were kept, or left without its manifest by a reload). Neither is
        # given for an app with a manifest of its own. user: the uid whose app this is (SEMANTICS H1),
        # absent for an installed app's entry of no user (H2). policy: the administrator's setting of the
        # app for every user (H5), the loosest a user may choose. stateSource: while it runs, who decided its
        # state: its desktop's name (sway, x11, ...) or app, its own word (L13).
        type AppEntry (
          appId: string,
          manifest: string,
          state: (notRunning, foreground, background, terminated),
          inUse: bool,
          usingLocationInBackground: bool,
          authorization: Authorization,
          clients: int,
          sessions: int,
          owner: ?int,
          ownerUnknown: ?bool,
          user: ?int,
          policy: ?Policy,
          stateSource: ?string
        )

        # An administrator's setting of an app for every user (SEMANTICS H5): setting, the one every user's
        # app takes and the loosest a user may choose; precise: false, approximate locations only.
        type Policy (
          setting: ?(never, whileUsing, always),
          precise: ?bool
        )

        # brokered: a broker speaks for a process of the app (a GeoClue client through locd-geoclue,
        # SEMANTICS I8): a desktop whose own GeoClue agent shows dialogs asks it there (N6).
        type Prompt (
          id: string,
          appId: string,
          kind: (authorization, alwaysUpgrade, temporaryFullAccuracy, alwaysReconfirm),
          usageDescription: string,
          purposeKey: ?string,
          options: [](allowWhileUsing, allowOnce, deny, keepWhileUsing, changeToAlways, allow, keepAlways, changeToWhileUsing, allowAlways),
          defaultAccuracy: (full, reduced),
          accuracyToggle: bool,
          raisedAt: float,
          user: ?int,
          brokered: ?bool
        )

        # running: some session or stream needs location, so the provider is started (U3).
        # lastFix: Unix time of the newest fix, kept after the fix is lost; lastLatitude, lastLongitude,
        # lastAccuracy: its point and accuracy.
        # state: the provider's own state; source: its point, file, gpsd or locd-network address;
        # lastError: why it is retrying or failed. name: the kind, numbered from its second table on (gpsd#2).
        # In DaemonStatus.provider, hasFix and lastFix are the daemon's; in providers, each provider's own,
        # hasFix meaning a fresh fix (U14).
        type ProviderStatus (
          name: string,
          running: bool,
          hasFix: bool,
          lastFix: ?float,
          state: ?(stopped, connecting, running, retrying, failed),
          source: ?string,
          lastLatitude: ?float,
          lastLongitude: ?float,
          lastError: ?string,
          kind: ?(static, nmea, gpsd, network),
          lastAccuracy: ?float
        )

        # appsUsingLocation: apps receiving location right now (the status-bar / Control Centre list).
        # appsUsingLocationInBackground: those of them in the background under a While-Using grant
        # (the blue indicator); an app authorized Always is not among them.
        # provider: the provider that supplied the last fix, else the first; providers: every configured
        # one, in configuration order; lastFixFrom: the name of the one that supplied the last fix (U16).
        # calls: calls locd has run since it started, on every connection: read twice, how many ran in
        # between (F19). administrator: whether the caller may administer (SEMANTICS I3). For a caller that
        # may not (H4), appsUsingLocation and appsUsingLocationInBackground are its own apps', the counts are
        # the machine's in aggregate, the providers carry no lastLatitude, lastLongitude, lastAccuracy or
        # source, and locationServicesEnabledForUser is its own switch (H6).
        type DaemonStatus (
          version: string,
          pid: int,
          uptimeSeconds: float,
          locationServicesEnabled: bool,
          provider: ProviderStatus,
          storeHealthy: bool,
          apps: int,
          clients: int,
          sessions: int,
          lingeringSessions: int,
          pendingPrompts: int,
          agents: int,
          calls: int,
          appsUsingLocation: []string,
          appsUsingLocationInBackground: []string,
          providers: []ProviderStatus,
          lastFixFrom: ?string,
          administrator: bool,
          locationServicesEnabledForUser: ?bool,
          desktops: ?[]DesktopStatus
        )

        # A user's desktop source (SEMANTICS L11, L13): reading, whether its last report read the desktop
        # (only then does it decide); failure, why it cannot.
        type DesktopStatus (
          desktop: string,
          user: int,
          reading: bool,
          failure: ?string,
          locked: bool
        )

        # A window in front (SEMANTICS L10, L12): names, the desktop's names for its app (Wayland app_id,
        # WM_CLASS class, GTK application id, desktop id) and the id I12 derives from its process; pid, its
        # process; executable, that process's /proc/PID/exe; descendants, the processes descending from it.
        type FrontWindow (
          names: []string,
          pid: ?int,
          executable: ?string,
          descendants: ?[]int
        )

        type Event (
          kind: (sessionCreated, sessionChanged, sessionEnded, appStateChanged,
                 authorizationChanged, promptRaised, promptResolved, servicesChanged),
          appId: ?string,
          sessionId: ?string,
          detail: string,
          timestamp: float,
          user: ?int
        )

        # Every method is open to every local user (SEMANTICS H4). An administrator's call (I3) reaches every
        # user's apps, and user (a uid) names one user's; any other caller's reaches its own uid's apps only,
        # and naming another user is PermissionDenied. Reload, ForgetApps, LocationButton and
        # Prompts(everyone: true) are the administrators'. An installed app (a manifest) is known to every
        # user, its record at its defaults until something changes it: only an id with no manifest and no app
        # of that user is NoSuchApp (H2).
        method Status() -> (status: DaemonStatus)
        method ListApps(user: ?int) -> (apps: []AppEntry)
        method ListSessions(appId: ?string, user: ?int) -> (sessions: []Session)
        # By an administrator naming no user: the app's setting for every user, and the loosest any user may
        # choose (H5); by anyone else: its own app's, within that.
        method SetAuthorization(appId: string, setting: ?(never, askNextTime, whileUsing, always), precise: ?bool, user: ?int) -> (authorization: Authorization)
        # By an administrator: the machine's switch (A4); by anyone else: its own (H6).
        method SetLocationServices(enabled: bool) -> ()
        method SetAppState(appId: string, state: (foreground, background), user: ?int) -> ()
        # The caller's desktop (an administrator's: user's) says what is in front (SEMANTICS L10-L12): while this
        # connection stays open and its last report has no failure, it decides the state of that user's running
        # apps. failure: the desktop cannot be read, so the apps keep their own word. Naming another user is
        # PermissionDenied for a caller that may not administer.
        method SetDesktop(desktop: string, front: []FrontWindow, locked: ?bool, failure: ?string, user: ?int) -> ()
        # A trusted location button was pressed for the app: one-time grant, no prompt.
        method LocationButton(appId: string, user: ?int) -> (authorization: Authorization)
        # Registers the caller as an agent while the call is open: the head prompt of each of its user's
        # apps' queues (with everyone, an administrator's: every user's, H7), pending ones first, then each
        # new one; withdrawn names a prompt sent earlier that is gone. users (with everyone) narrows the
        # stream to those uids' prompts: it is offered, and counts as an agent (P14) for, theirs alone, and
        # its first reply is empty, sent once locd counts it (a broker replacing its stream closes the old
        # one after that).
        method Prompts(everyone: ?bool, users: ?[]int) -> (prompt: ?Prompt, withdrawn: ?string)
        method AnswerPrompt(id: string, answer: (allowWhileUsing, allowOnce, deny, keepWhileUsing, changeToAlways, allow, keepAlways, changeToWhileUsing, allowAlways), accuracy: ?(full, reduced)) -> ()
        # Every state change, as it happens.
        method Watch() -> (event: Event)
        method Reload() -> ()
        # Forgets every app of the user owner (a uid; SEMANTICS H1, H8), or with ownerUnknown every app of
        # no user with no manifest of its own whose maker is unknown, as if it had never been known: its
        # prompts are withdrawn, its sessions and streams end, and its record, conditions and connections'
        # Hello go. Give one.
        method ForgetApps(owner: ?int, ownerUnknown: ?bool) -> (forgotten: int)

        error NoSuchApp (appId: string)
        error NoSuchPrompt (id: string)
        error InvalidAnswer (id: string, answer: string)
        """

    /// `io.locd.NetworkLocation`: served by `locd-network` on its own socket and called by locd's network
    /// provider only; locd itself does not serve it, so it is not in ``all``.
    public static let networkLocation = """
        # Positions from the access points in view, asked of an ichnaea-compatible geolocation
        # service. Served by locd-network; locd, which has no network, is its only client.
        interface io.locd.NetworkLocation

        # Where to ask and how often: the keys of locd's network [[provider]] table.
        # url: an ichnaea-compatible geolocate endpoint, https://, or http:// on a loopback address.
        # considerIp: with no access point in view, ask by the IP address the request comes from.
        # interval: ask again after this many seconds even when the access points have not changed.
        # minimumInterval: never ask more often than this many seconds.
        # accessPoints: read them from wpa_supplicant, from NetworkManager, or from whichever is on the bus.
        type Settings (
          url: string,
          considerIp: bool,
          interval: float,
          minimumInterval: float,
          accessPoints: (auto, wpaSupplicant, networkManager)
        )

        # What the service answered. timestamp is Unix time in seconds, when it answered; basis says
        # what the request carried: access points (wifi, accessPoints of them) or none (ip).
        type Position (
          latitude: float,
          longitude: float,
          accuracy: float,
          timestamp: float,
          basis: (wifi, ip),
          accessPoints: int
        )

        # Requires more. Asks while the call is open, and only then: the first reply at once
        # (started), then a position each time the service answers with one, and lost with the
        # reason each time there is none to give (no access point and considerIp false, the
        # service unreachable, refusing or answering what is not a position).
        method Watch(settings: Settings) -> (
          event: (started, position, lost),
          position: ?Position,
          reason: ?string
        )

        error InvalidSettings (field: string, reason: string)

        # More Watches are open than locd-network serves (limit: watches), or more connections
        # (limit: max-connections, max-connections-per-uid); message says what to do.
        error LimitExceeded (limit: string, maximum: int, message: string)
        """

    /// Every interface locd serves besides `org.varlink.service`, by name.
    public static let all: [(name: String, description: String)] = [
        (InterfaceName.app, app),
        (InterfaceName.admin, admin),
    ]
}
