import ArgumentParser
import JSON
import Varlink

/// `locctl forget --user NAME|UID`: forgets the apps with no manifest of their own that a user made (SEMANTICS F20).
struct ForgetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Forget the apps with no manifest of their own that a user made.",
        discussion: """
            An app with no manifest of its own (allow-unknown-apps, or unknown-brokered-apps for a \\
            GeoClue client) belongs to the user whose process made it, and each user may own \\
            max-apps-per-uid of them (SEMANTICS F20). This forgets every such app of the user, as if \\
            locd had never known it: its prompts are withdrawn, its sessions and streams end, its \\
            connections must say Hello again, and its authorization, conditions and stored rows go. \\
            Its next Hello makes it anew, asking again. Apps with a manifest of their own are never \\
            touched. --unknown-owner forgets those whose maker locd does not know (stored by a \\
            version that kept no owners). locctl apps --user shows what would go.

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
        let reply = try connection.call("io.locd.Admin.ForgetApps", parameters)
        print(Self.summary(reply, whose: whose))
    }

    /// "Forgot 3 apps of user nobody (65534)."
    static func summary(_ reply: JSONObject, whose: String) -> String {
        let count = reply["forgotten"]?.intValue ?? 0
        return "Forgot \(count) app\(count == 1 ? "" : "s") \(whose)."
    }
}
