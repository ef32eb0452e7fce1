import JSON
import Varlink

extension VarlinkClient {
    /// Starts a streaming call and returns its first reply's parameters.
    func stream(_ method: String, _ parameters: JSONObject = [:]) throws -> JSONObject {
        try send(VarlinkCall(method: method, parameters: parameters, more: true))
        return try next()
    }

    /// The next reply of an open stream; an error reply throws.
    func next() throws -> JSONObject {
        let reply = try receive()
        if let error = reply.error { throw VarlinkError(name: error, parameters: reply.parameters) }
        return reply.parameters
    }

    /// Reads stream replies until one satisfies `condition`; returns it.
    func next(until condition: (JSONObject) -> Bool) throws -> JSONObject {
        while true {
            let reply = try next()
            if condition(reply) { return reply }
        }
    }
}

extension JSONObject {
    /// `diagnostic.flags` of a reply, of its `session`, or of its `update`.
    var flags: [String] {
        let diagnostic = self["diagnostic"] ?? self["session"]?["diagnostic"] ?? self["update"]?["diagnostic"]
        return diagnostic?["flags"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    var sessionID: String? { self["session"]?["id"]?.stringValue }
}

/// Catches the Varlink error name a call throws.
func errorName(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch let error as VarlinkError {
        return error.name
    } catch {
        return "\(error)"
    }
}

/// An app authorized by an admin, holding a `whenInUse` session, and a second connection of the app
/// watching that session's diagnostics.
struct WatchedSession {
    let admin: VarlinkClient
    let app: VarlinkClient
    let watcher: VarlinkClient
    let id: String
    /// The first reply of the diagnostics stream.
    let firstFlags: [String]
}

extension DaemonProcess {
    func watchedSession(_ appID: String = "com.ex.maps", setting: String = "whileUsing") throws -> WatchedSession {
        let admin = try connect()
        try admin.call("io.locd.Admin.SetAuthorization", ["appId": .string(appID), "setting": .string(setting)])
        let app = try self.app(appID)
        let created = try app.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        guard let id = created.sessionID else { throw VarlinkClient.ClientError.malformedReply }
        let watcher = try self.app(appID)
        let first = try watcher.stream("io.locd.App.SessionDiagnostics", ["id": .string(id)])
        return WatchedSession(admin: admin, app: app, watcher: watcher, id: id, firstFlags: first.flags)
    }
}
