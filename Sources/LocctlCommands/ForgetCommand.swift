import ArgumentParser
import JSON
import LocationProtocol
import Varlink

/// `locctl forget --user NAME|UID`: forgets every app of a user (SEMANTICS F20, H8).
struct ForgetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Forget every app of a user (for administrators).",
        discussion: """
            Every app belongs to the user whose processes run it (SEMANTICS H1), and each user may have \
            max-apps-per-uid of them (F20, H8). This forgets every app of the user, as if locd had never \
            known it: its prompts are withdrawn, its sessions and streams end, its connections must say \
            Hello again, and its authorization, conditions and stored rows go. Its next Hello makes it \
            anew, asking again. The installed entries of no user are never touched. --unknown-owner \
            forgets the apps of no user with no manifest of their own whose maker locd does not know \
            (stored by an older version). locctl apps --user shows what would go.

            Prints how many apps were forgotten.

            Example: locctl forget --user nobody
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .long, help: "The user (a name or a uid) whose apps to forget.", completion: .none)
    var user: String?

    @Flag(name: .long, help: "Forget the apps with no manifest of their own whose maker is unknown.")
    var unknownOwner = false

    func validate() throws {
        if (user == nil) == !unknownOwner {
            throw ValidationError("give --user NAME|UID or --unknown-owner (one of them)")
        }
    }

    func run() throws {
        let parameters: JSONObject
        let whose: String
        if let user {
            let uid = try Users.resolve(user)
            parameters = ["owner": .int(Int64(uid))]
            whose = "of user " + Users.describe(uid)
        } else {
            parameters = ["ownerUnknown": .bool(true)]
            whose = "whose maker is unknown"
        }
        let reply = try connection.call(AdminMethod.forgetApps.name, parameters)
        print(Self.summary(reply, whose: whose))
    }

    /// "Forgot 3 apps of user nobody (65534)."
    static func summary(_ reply: JSONObject, whose: String) -> String {
        let count = reply["forgotten"]?.intValue ?? 0
        return "Forgot \(count) app\(count == 1 ? "" : "s") \(whose)."
    }
}
