import ArgumentParser
import Testing
import Varlink

@testable import LocctlCommands

/// The command line: what each command accepts, what it refuses, and what a refusal exits with.
@Suite("locctl parsing")
struct ParsingTests {
    @Test("locctl: no command is status, as systemctl's is list-units")
    func defaultCommand() throws {
        #expect(try Locctl.parseAsRoot([]) is StatusCommand)
        let status = try #require(try Locctl.parseAsRoot(["status", "--json", "--socket", "/tmp/x"]) as? StatusCommand)
        #expect(status.json)
        #expect(status.connection.socketPath == "/tmp/x")
    }

    @Test("locctl: --no-legend is taken by every read command, and --no-pager anywhere, as systemctl's options are")
    func systemctlHabits() throws {
        #expect(Locctl.commandLine(["--no-pager", "apps", "--no-pager"]) == ["apps"])
        #expect(Locctl.commandLine(["--no-pager"]) == [])
        #expect(Locctl.commandLine(["agent", "--", "--no-pager"]) == ["agent", "--", "--no-pager"])
        for line in [["status"], ["app", "com.ex.maps"], ["session", "s1-1"], ["watch"], ["apps"], ["sessions"]] {
            _ = try Locctl.parseAsRoot(Locctl.commandLine(line + ["--no-legend", "--json", "--no-pager"]))
            _ = try Locctl.parseAsRoot(Locctl.commandLine(["--no-legend", "--no-pager"] + line))
        }
    }

    @Test("locctl: --json=short and --json=pretty are --json anywhere, --json=off is no JSON, as systemctl's --json=")
    func jsonFormats() throws {
        #expect(Locctl.commandLine(["apps", "--json=pretty"]) == ["apps", "--json"])
        #expect(Locctl.commandLine(["--json=short", "status"]) == ["status", "--json"])
        #expect(Locctl.commandLine(["status", "--json=off"]) == ["status"])
        #expect(Locctl.commandLine(["agent", "--", "--json=off"]) == ["agent", "--", "--json=off"])
        let status = try #require(try Locctl.parseAsRoot(Locctl.commandLine(["--json=pretty"])) as? StatusCommand)
        #expect(status.json)
        #expect(JSONOutput.style(of: ["status", "--json=pretty"]) == .pretty)
        #expect(JSONOutput.style(of: ["status", "--json"]) == .short)
        #expect(JSONOutput.style(of: ["agent", "--", "--json=pretty"]) == .short)
    }

    @Test("locctl --help lists the global options, each with what it does")
    func globalOptionsInHelp() {
        let help = Locctl.helpMessage()
        for option in ["--socket <path>", "--json[=FORMAT]", "--no-legend", "--no-pager"] {
            #expect(help.contains("  " + option), "\(option)")
        }
        // Each fits the 80 columns argument-parser wraps at, so none is broken across lines.
        let lines = help.split(separator: "\n").filter { $0.hasPrefix("  --") }
        #expect(lines.count >= 4 && lines.allSatisfy { $0.count <= 80 })
    }

    @Test("locctl: app ids, session ids and scenario files complete from what there is, in every shell")
    func liveCompletions() {
        for shell in [CompletionShell.bash, .zsh, .fish] {
            let script = Locctl.completionScript(for: shell)
            for command in ["app", "auth", "app-state", "location-button", "session"] {
                #expect(script.contains("---completion \(command) -- positional@0"), "\(shell): \(command)")
            }
        }
        #expect(Locctl.completionScript(for: .bash).contains("toml"))
        #expect(LiveCompletion.socketPath(in: ["locctl", "auth", "--socket", "/tmp/x", "com"]) == "/tmp/x")
        #expect(LiveCompletion.socketPath(in: ["locctl", "--socket=/tmp/y", "app"]) == "/tmp/y")
        // A locd that is not there completes nothing, and says nothing.
        #expect(LiveCompletion.appIDs(["locctl", "auth", "--socket", "/nonexistent/io.locd", ""], 4, "").isEmpty)
    }

    @Test("locctl: a mistyped command is named as unknown, with the closest command and the list, not status's usage")
    func unknownCommand() {
        let message = Locctl.unknownCommand(in: Locctl.commandLine(["stauts"]))
        #expect(
            message?.hasPrefix("locctl: unknown command 'stauts'. Did you mean 'status'?") == true,
            "\(message ?? "")"
        )
        #expect(message?.contains("apps, app, sessions") == true)
        #expect(
            Locctl.unknownCommand(in: Locctl.commandLine(["--socket", "/tmp/x", "frobnicate"]))?.contains("Did")
                == false
        )
        for line in [[], ["status"], ["--json"], ["help", "apps"], ["--socket", "/tmp/x", "apps"]] {
            #expect(Locctl.unknownCommand(in: Locctl.commandLine(line)) == nil, "\(line)")
        }
    }

    @Test("locctl: --socket, --json and --no-legend before the command mean what they mean after it, as in systemctl")
    func globalOptionsBeforeTheCommand() throws {
        let before = Locctl.commandLine(["--socket", "/tmp/x", "status", "--json"])
        let after = Locctl.commandLine(["status", "--socket", "/tmp/x", "--json"])
        #expect(before == ["status", "--socket", "/tmp/x", "--json"])
        #expect(after == ["status", "--socket", "/tmp/x", "--json"])
        let status = try #require(try Locctl.parseAsRoot(before) as? StatusCommand)
        #expect(status.json)
        #expect(status.connection.socketPath == "/tmp/x")

        let sessions = Locctl.commandLine(["--json", "--socket=/tmp/y", "--no-legend", "sessions", "--app", "a"])
        let parsed = try #require(try Locctl.parseAsRoot(sessions) as? SessionsCommand)
        #expect(parsed.output.json && parsed.output.noLegend)
        #expect(parsed.connection.socketPath == "/tmp/y")
        #expect(parsed.appID == "a")

        // Only the options: the default command gets them.
        #expect(Locctl.commandLine(["--socket", "/tmp/z"]) == ["status", "--socket", "/tmp/z"])
        // A socket path that reads like a command is still the socket's value.
        #expect(Locctl.commandLine(["--socket", "status", "apps"]) == ["apps", "--socket", "status"])
        // What follows the command is never touched, nor a command line that starts with anything else.
        #expect(Locctl.commandLine(["auth", "--json", "x"]) == ["auth", "--json", "x"])
        #expect(Locctl.commandLine(["--version"]) == ["--version"])
        // A global option a command does not take is refused as if written after it.
        #expect(throws: (any Error).self) { try Locctl.parseAsRoot(Locctl.commandLine(["--json", "reload"])) }
    }

    @Test("A3: auth takes the Settings words never, ask-next-time, while-using, always and sends their wire names")
    func authSettings() throws {
        let expected = [
            "never": "never", "ask-next-time": "askNextTime", "while-using": "whileUsing", "always": "always",
        ]
        for (word, wire) in expected {
            let command = try #require(try Locctl.parseAsRoot(["auth", "com.ex.maps", word]) as? AuthCommand)
            #expect(command.appID == "com.ex.maps")
            #expect(command.setting?.wireName == wire)
            #expect(command.precise == nil)
        }
        #expect(AuthorizationSetting.allCases.count == expected.count)
    }

    @Test("A3: auth also takes the settings as locctl apps prints them, askNextTime and whileUsing")
    func authSettingsAsPrinted() throws {
        for (word, setting) in [("askNextTime", AuthorizationSetting.askNextTime), ("whileUsing", .whileUsing)] {
            let command = try #require(try Locctl.parseAsRoot(["auth", "com.ex.maps", word]) as? AuthCommand)
            #expect(command.setting == setting)
        }
        #expect(throws: (any Error).self) { try Locctl.parseAsRoot(["auth", "com.ex.maps", "WhileUsing"]) }
        #expect(throws: (any Error).self) { try Locctl.parseAsRoot(["auth", "com.ex.maps", "authorizedAlways"]) }
    }

    @Test("H4: auth, sessions, app, app-state and location-button take --user NAME|UID; auth without it names no user")
    func userOptions() throws {
        let auth = try #require(
            try Locctl.parseAsRoot(["auth", "com.ex.maps", "never", "--user", "nobody"]) as? AuthCommand
        )
        #expect(try auth.who.uid() == 65534)
        #expect(try (Locctl.parseAsRoot(["auth", "com.ex.maps", "never"]) as? AuthCommand)?.who.uid() == nil)
        let sessions = try #require(try Locctl.parseAsRoot(["sessions", "--user", "0"]) as? SessionsCommand)
        #expect(try sessions.who.uid() == 0)
        let app = try #require(try Locctl.parseAsRoot(["app", "com.ex.maps", "--user", "root"]) as? AppCommand)
        #expect(try app.who.uid() == 0)
        let button = try #require(
            try Locctl.parseAsRoot(["location-button", "com.ex.run", "--user", "4242"]) as? LocationButtonCommand
        )
        #expect(try button.who.uid() == 4242)
        let unknown = try #require(
            try Locctl.parseAsRoot(["auth", "com.ex.maps", "never", "--user", "no such user here"]) as? AuthCommand
        )
        #expect(throws: (any Error).self) { try unknown.who.uid() }
    }

    @Test("L1, H4: app-state takes an app, foreground or background, and --user")
    func appStateOptions() throws {
        let moved = try #require(
            try Locctl.parseAsRoot(["app-state", "com.ex.run", "background", "--user", "nobody"]) as? AppStateCommand
        )
        #expect(moved.appID == "com.ex.run")
        #expect(moved.state == .background)
        #expect(try moved.who.uid() == 65534)
        #expect(
            (try Locctl.parseAsRoot(["app-state", "com.ex.run", "foreground"]) as? AppStateCommand)?.state
                == .foreground
        )
        #expect(throws: (any Error).self) { try Locctl.parseAsRoot(["app-state", "com.ex.run", "terminated"]) }
        #expect(throws: (any Error).self) { try Locctl.parseAsRoot(["app-state", "com.ex.run"]) }
    }

    @Test("A3: auth --precise on|off, alone or with a setting; neither is a usage error")
    func authPrecise() throws {
        let both = try #require(
            try Locctl.parseAsRoot(["auth", "com.ex.maps", "while-using", "--precise", "off"]) as? AuthCommand
        )
        #expect(both.setting == .whileUsing)
        #expect(both.precise == .off)
        let alone = try #require(try Locctl.parseAsRoot(["auth", "com.ex.maps", "--precise", "on"]) as? AuthCommand)
        #expect(alone.setting == nil)
        #expect(alone.precise?.isOn == true)
        #expect(throws: (any Error).self) { try Locctl.parseAsRoot(["auth", "com.ex.maps"]) }
        #expect(throws: (any Error).self) { try Locctl.parseAsRoot(["auth", "com.ex.maps", "sometimes"]) }
        #expect(throws: (any Error).self) {
            try Locctl.parseAsRoot(["auth", "com.ex.maps", "always", "--precise", "yes"])
        }
    }

    @Test("locctl: a command line it cannot parse is a usage error, which locctl exits 1 for, with the allowed values")
    func usageErrors() {
        do {
            _ = try Locctl.parseAsRoot(["services", "maybe"])
            Issue.record("services maybe parsed")
        } catch {
            #expect(Locctl.exitCode(for: error) == .validationFailure)
            let message = Locctl.fullMessage(for: error)
            #expect(message.contains("on"))
            #expect(message.contains("off"))
        }
    }

    @Test("locctl sessions --app ID --json --no-legend")
    func sessionsOptions() throws {
        let command = try #require(
            try Locctl.parseAsRoot(["sessions", "--app", "com.ex.run", "--json", "--no-legend"]) as? SessionsCommand
        )
        #expect(command.appID == "com.ex.run")
        #expect(command.output.json)
        #expect(command.output.noLegend)
        let all = try #require(try Locctl.parseAsRoot(["sessions"]) as? SessionsCommand)
        #expect(all.appID == nil)
    }

    @Test("locctl app, session, location-button and services take their one argument")
    func singleArguments() throws {
        #expect((try Locctl.parseAsRoot(["app", "com.ex.maps"]) as? AppCommand)?.appID == "com.ex.maps")
        #expect((try Locctl.parseAsRoot(["session", "s1-2", "--json"]) as? SessionCommand)?.sessionID == "s1-2")
        #expect(
            (try Locctl.parseAsRoot(["location-button", "com.ex.run"]) as? LocationButtonCommand)?.appID == "com.ex.run"
        )
        #expect((try Locctl.parseAsRoot(["services", "off"]) as? ServicesCommand)?.state.isOn == false)
        #expect(try Locctl.parseAsRoot(["reload"]) is ReloadCommand)
        #expect(throws: (any Error).self) { try Locctl.parseAsRoot(["app"]) }
        #expect(throws: (any Error).self) { try Locctl.parseAsRoot(["session"]) }
    }

    @Test("F20: locctl forget takes --user NAME|UID or --unknown-owner, one of them; locctl apps takes --user")
    func forgetOptions() throws {
        let byUser = try #require(try Locctl.parseAsRoot(["forget", "--user", "nobody"]) as? ForgetCommand)
        #expect(byUser.user == "nobody" && !byUser.unknownOwner)
        let unknown = try #require(try Locctl.parseAsRoot(["forget", "--unknown-owner"]) as? ForgetCommand)
        #expect(unknown.user == nil && unknown.unknownOwner)
        for bad in [["forget"], ["forget", "--user", "65534", "--unknown-owner"]] {
            do {
                _ = try Locctl.parseAsRoot(bad)
                Issue.record("\(bad) parsed")
            } catch {
                #expect(Locctl.exitCode(for: error) == .validationFailure)
                #expect(Locctl.fullMessage(for: error).contains("--user NAME|UID or --unknown-owner"))
            }
        }
        #expect((try Locctl.parseAsRoot(["apps", "--user", "65534"]) as? AppsCommand)?.user == "65534")
        #expect(Users.uid(of: "root") == 0)
        #expect(Users.uid(of: "4242") == 4242)
        #expect(Users.uid(of: "4294967295") == nil)
        #expect(Users.uid(of: "no such user here") == nil)
    }

    @Test("locctl agent --answer takes the wire option names; --precise needs --answer; H7: --all-users")
    func agentOptions() throws {
        let agent = try #require(
            try Locctl.parseAsRoot(["agent", "--answer", "allowWhileUsing", "--precise", "off"]) as? AgentCommand
        )
        #expect(agent.answer == .allowWhileUsing)
        #expect(agent.precise == .off)
        #expect((try Locctl.parseAsRoot(["agent"]) as? AgentCommand)?.answer == nil)
        #expect((try Locctl.parseAsRoot(["agent"]) as? AgentCommand)?.allUsers == false)
        let kiosk = try #require(
            try Locctl.parseAsRoot(["agent", "--all-users", "--answer", "deny"]) as? AgentCommand
        )
        #expect(kiosk.allUsers && kiosk.answer == .deny)
        #expect(throws: (any Error).self) { try Locctl.parseAsRoot(["agent", "--answer", "yes"]) }
        #expect(throws: (any Error).self) { try Locctl.parseAsRoot(["agent", "--precise", "on"]) }
    }

    @Test("locctl: NoSuchApp, NoSuchSession and NoSuchPrompt exit 4, every other failure 1")
    func exitCodes() {
        for name in ["io.locd.Admin.NoSuchApp", "io.locd.App.NoSuchSession", "io.locd.Admin.NoSuchPrompt"] {
            #expect(CommandFailure.exitCode(forErrorNamed: name) == ExitCode(4))
        }
        for name in ["io.locd.Admin.InvalidAnswer", "org.varlink.service.PermissionDenied", "io.locd.App.AppUnknown"] {
            #expect(CommandFailure.exitCode(forErrorNamed: name) == .failure)
        }
    }

    @Test("locctl: an error prints its Varlink name and the daemon's what-to-do message")
    func errorMessages() {
        let error = VarlinkError(
            name: "io.locd.Admin.NoSuchApp",
            parameters: ["appId": .string("com.x"), "message": .string("add a manifest for com.x to apps.d")]
        )
        #expect(CommandFailure.message(for: error) == "io.locd.Admin.NoSuchApp: add a manifest for com.x to apps.d")
        #expect(
            CommandFailure.message(for: VarlinkError(name: "org.varlink.service.ExpectedMore"))
                == "org.varlink.service.ExpectedMore"
        )
        let refused = CommandFailure.message(for: VarlinkClient.ClientError.connect(path: "/run/x/io.locd", errno: 2))
        #expect(refused.hasPrefix("cannot connect to /run/x/io.locd: No such file or directory."))
        #expect(refused.contains("systemctl start locd.socket"))
        #expect(refused.contains("LOCD_SOCKET"))
        // Varlink's own errors name no service: locctl says it is locd and what to check.
        let closed = CommandFailure.message(for: VarlinkClient.ClientError.closed)
        #expect(closed == "locd closed the connection; check that it is still running (systemctl status locd).")
        let timedOut = CommandFailure.message(for: VarlinkClient.ClientError.timedOut)
        #expect(timedOut == "locd did not answer in time; check that it is not stuck (systemctl status locd).")
        let malformed = CommandFailure.message(for: VarlinkClient.ClientError.malformedReply)
        #expect(malformed.hasPrefix("locd sent a reply that is not valid Varlink"))
        #expect(malformed.contains("same version"))
    }

    @Test("locctl --help: every command has an abstract, a discussion and an example")
    func helpIsComplete() {
        let commands: [ParsableCommand.Type] = [
            StatusCommand.self, AppsCommand.self, AppCommand.self, SessionsCommand.self, SessionCommand.self,
            WatchCommand.self, AuthCommand.self, AppStateCommand.self, ServicesCommand.self,
            LocationButtonCommand.self, ReloadCommand.self, AgentCommand.self, ForgetCommand.self,
        ]
        for command in commands {
            let configuration = command.configuration
            let name = configuration.commandName ?? "?"
            #expect(!configuration.abstract.isEmpty, "\(name)")
            #expect(configuration.discussion.contains("Example: locctl \(name)"), "\(name)")
            let help = Locctl.helpMessage(for: command)
            #expect(help.contains("--socket"), "\(name)")
            #expect(!help.contains("<socket>"), "\(name): the socket's value name is path")
        }
        #expect(Locctl.helpMessage().contains("4 no such"))
    }

    @Test("locctl: completion scripts for bash, zsh and fish know every command, --user and --all-users")
    func completions() {
        for shell in [CompletionShell.bash, .zsh, .fish] {
            let script = Locctl.completionScript(for: shell)
            for command in Locctl.configuration.subcommands {
                let name = command.configuration.commandName ?? "?"
                #expect(script.contains(name), "\(shell): \(name)")
            }
            for option in ["user", "all-users"] {
                #expect(script.contains(option), "\(shell): --\(option)")
            }
        }
    }

    @Test("H4: locctl --help says what an ordinary user may do and what needs an administrator")
    func helpSaysWhoMayDoWhat() {
        let help = Locctl.helpMessage()
        #expect(help.contains("ordinary user"))
        #expect(help.contains("administrator"))
        #expect(Locctl.helpMessage(for: AuthCommand.self).contains("for every user"))
        #expect(Locctl.helpMessage(for: ServicesCommand.self).contains("for themselves alone"))
        #expect(Locctl.helpMessage(for: AgentCommand.self).contains("--all-users"))
    }
}
