/// The Varlink interfaces locd and locd-network serve, by name (PROTOCOL.md "Interfaces").
package enum InterfaceName {
    package static let app = "io.locd.App"
    package static let admin = "io.locd.Admin"
    package static let networkLocation = "io.locd.NetworkLocation"
    /// The standard interface every Varlink server answers.
    package static let service = "org.varlink.service"
}

/// A Varlink method: its fully qualified name is its raw value, so a call names it without building a string.
package protocol VarlinkMethodName: RawRepresentable, CaseIterable, Hashable, Sendable where RawValue == String {
    /// The interface the method belongs to.
    static var interface: String { get }
}

extension VarlinkMethodName {
    /// The fully qualified name, `interface.Method`.
    package var name: String { rawValue }

    /// The name after the interface, `Method`.
    package var member: String { String(rawValue.dropFirst(Self.interface.count + 1)) }
}

/// The methods of `io.locd.App`.
package enum AppMethod: String, VarlinkMethodName {
    case hello = "io.locd.App.Hello"
    case goodbye = "io.locd.App.Goodbye"
    case setAppState = "io.locd.App.SetAppState"
    case getAuthorization = "io.locd.App.GetAuthorization"
    case watchAuthorization = "io.locd.App.WatchAuthorization"
    case requestAuthorization = "io.locd.App.RequestAuthorization"
    case requestTemporaryFullAccuracy = "io.locd.App.RequestTemporaryFullAccuracy"
    case createSession = "io.locd.App.CreateSession"
    case resumeSession = "io.locd.App.ResumeSession"
    case invalidateSession = "io.locd.App.InvalidateSession"
    case listSessions = "io.locd.App.ListSessions"
    case sessionDiagnostics = "io.locd.App.SessionDiagnostics"
    case beginBackgroundActivity = "io.locd.App.BeginBackgroundActivity"
    case liveUpdates = "io.locd.App.LiveUpdates"
    case addCondition = "io.locd.App.AddCondition"
    case removeCondition = "io.locd.App.RemoveCondition"
    case monitorEvents = "io.locd.App.MonitorEvents"

    package static var interface: String { InterfaceName.app }
}

/// The methods of `io.locd.Admin`.
package enum AdminMethod: String, VarlinkMethodName {
    case status = "io.locd.Admin.Status"
    case listApps = "io.locd.Admin.ListApps"
    case listSessions = "io.locd.Admin.ListSessions"
    case setAuthorization = "io.locd.Admin.SetAuthorization"
    case setLocationServices = "io.locd.Admin.SetLocationServices"
    case setAppState = "io.locd.Admin.SetAppState"
    case setDesktop = "io.locd.Admin.SetDesktop"
    case locationButton = "io.locd.Admin.LocationButton"
    case prompts = "io.locd.Admin.Prompts"
    case answerPrompt = "io.locd.Admin.AnswerPrompt"
    case watch = "io.locd.Admin.Watch"
    case reload = "io.locd.Admin.Reload"
    case forgetApps = "io.locd.Admin.ForgetApps"

    package static var interface: String { InterfaceName.admin }
}

/// The methods of `io.locd.NetworkLocation`, which locd-network serves and locd's network provider calls.
package enum NetworkLocationMethod: String, VarlinkMethodName {
    case watch = "io.locd.NetworkLocation.Watch"

    package static var interface: String { InterfaceName.networkLocation }
}

/// The methods of `org.varlink.service`.
package enum ServiceMethod: String, VarlinkMethodName {
    case getInfo = "org.varlink.service.GetInfo"
    case getInterfaceDescription = "org.varlink.service.GetInterfaceDescription"

    package static var interface: String { InterfaceName.service }
}
