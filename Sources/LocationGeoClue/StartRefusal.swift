import LocationClient

/// Why locd did not let a client start, as the message of the error `Start` answers: what happened and what to do
/// about it.
struct StartRefusal: Error, Sendable, Equatable {
    var message: String
    /// A bound was reached (G8: the uid's connections to locd, F11), not a decision: the client may try again once
    /// it has let go of some.
    var isLimit = false

    /// The D-Bus error `Start` answers: `LimitsExceeded` for a bound, `AccessDenied` for the rest (G3).
    var error: GeoClueError {
        isLimit ? .limitsExceeded(message) : .accessDenied(message)
    }

    static func denied(_ app: String) -> StartRefusal {
        StartRefusal(
            message: "locd denies '\(app)' location: allow it with `locctl auth \(app) while-using` "
                + "(or in the desktop's location settings)"
        )
    }

    static let servicesOff = StartRefusal(
        message: "location services are off in locd: turn them on with `locctl services on`"
    )

    static func restricted(_ app: String) -> StartRefusal {
        StartRefusal(
            message: "'\(app)' is restricted by locd's policy (restricted-apps in locd.toml): "
                + "only an administrator can lift it there"
        )
    }

    static func unanswered(_ app: String) -> StartRefusal {
        StartRefusal(
            message: "no one answered locd's location prompt for '\(app)' in time: run a prompt agent "
                + "(locd-agent in the desktop session, `locctl agent`, or the desktop's own) and start again, or allow it with "
                + "`locctl auth \(app) while-using`"
        )
    }

    /// The uid's GeoClue agent reports `MaxAccuracyLevel` 0 (GeoClue's words first, then what to do).
    static func geolocationDisabled(_ uid: UInt32) -> StartRefusal {
        StartRefusal(
            message: "Geolocation disabled for UID \(uid): the desktop's location agent reports location off "
                + "(MaxAccuracyLevel 0); turn Location Services on in the desktop's privacy settings"
        )
    }

    /// The refusal locd's diagnostic flags tell, most general first; `nil` when they refuse nothing.
    static func of(_ flags: DiagnosticFlags, app: String) -> StartRefusal? {
        if flags.contains(.authorizationDeniedGlobally) { return servicesOff }
        if flags.contains(.authorizationRestricted) { return .restricted(app) }
        if flags.contains(.authorizationDenied) { return .denied(app) }
        return nil
    }

    /// locd ended a started client's session while connected (G16: a real stop).
    static func updatesEnded(_ app: String) -> StartRefusal {
        StartRefusal(message: "locd ended the location session of '\(app)' (see `locctl sessions` and locd's log)")
    }

    /// locd closed a started client's connection (it stopped, restarted or crashed): G16 connects again.
    static func locdAway(_ app: String) -> StartRefusal {
        StartRefusal(
            message: "locd closed the connection of '\(app)' (it stopped or restarted): start it with "
                + "`systemctl start locd.socket` if it does not come back; locd-geoclue connects again and takes "
                + "the session back"
        )
    }

    /// A `Start` locd has not decided within the bound, with the app's prompt waiting for an answer (G17): GeoClue's
    /// words for an app not authorized for a uid, then what to do.
    static func undecided(_ app: String, uid: UInt32, seconds: Double) -> StartRefusal {
        StartRefusal(
            message: "'\(app)' not authorized yet for UID \(uid): locd's location prompt for it still waits for an "
                + "answer after \(Int(seconds)) s. Answer it (the desktop's location dialog, locd-agent, or "
                + "`locctl agent`) and call Start again, or allow it with `locctl auth \(app) while-using`; allowed "
                + "while this client exists, it starts by itself"
        )
    }

    /// A `Start` locd has not decided within the bound, with no prompt pending: locd is slow to answer (G17).
    static func slow(_ app: String, seconds: Double) -> StartRefusal {
        StartRefusal(
            message: "locd did not decide about '\(app)' within \(Int(seconds)) s: check `locctl status` "
                + "and locd's log, then call Start again; decided while this client exists, it starts by itself"
        )
    }

    static func ended(_ app: String) -> StartRefusal {
        StartRefusal(message: "locd ended the session of '\(app)' before it decided: start again")
    }

    /// locd answered with something that is not what its protocol says (`what`).
    static func unexpectedReply(_ what: String, app: String) -> StartRefusal {
        from(LocationClientError.unexpectedReply(what), app: app)
    }

    /// The refusal a failed call to locd stands for.
    static func from(_ error: any Error, app: String) -> StartRefusal {
        if let refusal = error as? StartRefusal { return refusal }
        guard let error = error as? LocationClientError else {
            return StartRefusal(message: "locd-geoclue could not ask locd for '\(app)': \(error)")
        }
        switch error {
        case .appUnknown:
            return StartRefusal(
                message: "locd has no manifest for '\(app)': install apps.d/\(app).toml with an "
                    + "NSLocationWhenInUseUsageDescription (see locd's README)"
            )
        case .permissionDenied(let message) where message.contains("could not tell which process wrote"):
            return StartRefusal(
                message: "locd could not tell that locd-geoclue wrote its Hello (locd was started by a socket made "
                    + "without PassCredentials=yes): call Start again"
            )
        case .permissionDenied(let message) where message.contains("only a broker"):
            return StartRefusal(
                message: "locd does not take locd-geoclue as a broker: run it as the user of a [[broker]] of locd.toml "
                    + "(locd-geoclue.service runs it as locd-geoclue, which locd.toml.d/geoclue.toml names) and "
                    + "reload locd"
            )
        case .permissionDenied(let message):
            return StartRefusal(
                message: "locd does not let this program be '\(app)' (\(message)): the app's manifest must name the "
                    + "program that calls GeoClue (identity, executables or users); locd's log names the paths it "
                    + "compared, links resolved"
            )
        case .limitExceeded(_, _, let message):
            return StartRefusal(message: "locd holds back '\(app)': \(message)", isLimit: true)
        case .daemonUnavailable:
            return StartRefusal(message: "\(error.message); start it with `systemctl start locd.socket`")
        default:
            return StartRefusal(message: "locd refused '\(app)': \(error.description)")
        }
    }
}
